"""`python -m evaluator validate`: exit codes and the JSON shape scripts rely on."""
import json
import subprocess
import sys
from pathlib import Path

from evaluator.cli import main
from evaluator.synthetic import make_run, make_topics
from tests.waiting import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


def files(tmp_path):
    topics = [make_topics(tmp_path / "topics" / f"topics.miracl-v1.0-{lang}-dev.tsv", language=lang, count=20)
              for lang in ("sw", "yo")]
    runs = [make_run(tmp_path / f"run.miracl.bm25.{lang}.dev.txt", language=lang, count=20, depth=10)
            for lang in ("sw", "yo")]
    return topics, runs


def test_it_exits_0_and_prints_warnings_for_valid_runs(tmp_path, capsys):
    topics, runs = files(tmp_path)
    status = main(["validate", "--run", *map(str, runs), "--topics", *map(str, topics), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0 and out["errors"] == []
    assert {r["subset"] for r in out["runs"]} == {"sw", "yo"} and all(r["documents"] > 0 for r in out["runs"])
    assert all(set(w) == {"file", "line", "column", "code", "message"} for w in out["warnings"])


def test_it_exits_1_and_lists_errors_with_file_line_and_code(tmp_path, capsys):
    topics, runs = files(tmp_path)
    bad = tmp_path / "mine.txt"
    bad.write_bytes(runs[0].read_bytes() + b"99999 Q0 1#1 1 nan other\n")
    # a directory of topic files stands for each of them
    status = main(["validate", "--run", f"sw={bad}", "--topics", str(tmp_path / "topics"), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 1
    lines = len(runs[0].read_bytes().splitlines()) + 1
    assert {(e["file"], e["line"], e["code"]) for e in out["errors"]} == {
        (str(bad), lines, "unknown-qid"), (str(bad), lines, "bad-score"), (str(bad), lines, "several-tags")}


def test_it_rejects_a_run_whose_language_it_cannot_tell(tmp_path, capsys):
    bad = tmp_path / "run.txt"
    bad.write_text("1 Q0 1#1 1 1.0 t\n")
    assert main(["validate", "--benchmark", "miracl", "--run", str(bad)]) == 1
    assert "unknown-subset" in capsys.readouterr().out


def test_it_reads_an_unnamed_run_as_any_trec_run_without_a_benchmark(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 FBIS3-27619 1 1.0 Anserini+RM3 comment\n")
    assert main(["validate", "--run", str(run)]) == 0
    assert "extra-columns" in capsys.readouterr().out


def test_it_refuses_a_subset_the_benchmark_does_not_declare(tmp_path, capsys):
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 1#1 1 1.0 t\n")
    assert main(["validate", "--benchmark", "dureader", "--run", f"en={run}"]) == 1
    assert "dureader has no subset 'en'" in capsys.readouterr().out


def test_it_runs_as_a_module(tmp_path):
    topics, runs = files(tmp_path)
    done = subprocess.run([sys.executable, "-m", "evaluator", "validate", "--run", str(runs[1]),
                           "--topics", str(topics[1]), "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["errors"] == []


def test_it_checks_the_shipped_samples_from_one_folder(capsys):
    samples = str(ROOT / "evaluator" / "samples")
    assert main(["validate", "--run", samples, "--topics", samples, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["runs"]) == 4  # two runs per language, topics picked out of the same folder
    assert {w["code"] for w in out["warnings"]} == {"missing-queries"}
