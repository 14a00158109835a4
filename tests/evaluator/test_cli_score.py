"""`python -m evaluator score` on files small enough to check by hand.

sw: q1 judges 1#0 relevant, 2#0 not; q2 judges 3#0 relevant. The run finds 1#0 first for
q1 and misses q2: nDCG@10 and R@100 are 1 for q1, 0 for q2, 0.5 on average.
te: q1 judges 5#0 relevant; the run puts it second: nDCG@10 = 1 / log2(3), R@100 = 1.
"""
import csv
import io
import json
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from evaluator.cli import main

TE_NDCG = 1 / math.log2(3)


@pytest.fixture
def files(tmp_path):
    def write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return str(path)

    return {
        "qrels": [write("qrels.miracl-v1.0-sw-dev.tsv", "q1\tQ0\t1#0\t1\nq1\tQ0\t2#0\t0\nq2\tQ0\t3#0\t1\n"),
                  write("qrels.miracl-v1.0-te-dev.tsv", "q1\tQ0\t5#0\t1\n")],
        "runs": [write("run.miracl.bm25.sw.dev.txt", "q1 Q0 1#0 1 2.0 bm25\nq1 Q0 9#9 2 1.0 bm25\n"),
                 write("run.miracl.bm25.te.dev.txt", "q1 Q0 7#0 1 3.0 bm25\nq1 Q0 5#0 2 2.0 bm25\n")],
        "topics": [write("topics.miracl-v1.0-sw-dev.tsv", "q1\tswali\nq2\tswali mbili\n"),
                   write("topics.miracl-v1.0-te-dev.tsv", "q1\tప్రశ్న\n")],
        "bad": write("run.miracl.bm25.sw.bad.txt", "q1 Q0 1#0 1 high bm25\n"),
        "dir": str(tmp_path),
    }


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_it_prints_json_per_language_and_group(files, capsys):
    code, out, _ = run_cli(capsys, "score", "--qrels", *files["qrels"], "--run", *files["runs"],
                           "--topics", *files["topics"], "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert document["subsets"] == {"sw": {"nDCG@10": 0.5, "R@100": 0.5},
                                   "te": {"nDCG@10": pytest.approx(TE_NDCG, abs=1e-15), "R@100": 1.0}}
    # MIRACL's groups, limited to the languages given: sw and te are both known languages
    assert document["groups"] == {"known": {"nDCG@10": pytest.approx((0.5 + TE_NDCG) / 2), "R@100": 0.75},
                                  "all": {"nDCG@10": pytest.approx((0.5 + TE_NDCG) / 2), "R@100": 0.75}}
    assert document["errors"] == []


def test_it_averages_named_groups_with_the_missing_rule(files, capsys):
    argv = ["score", "--qrels", *files["qrels"], "--run", files["runs"][0], "--metrics", "nDCG@10,RR@10",
            "--group", "pair=sw,te", "--format", "json"]
    _, out, _ = run_cli(capsys, *argv)
    assert json.loads(out)["groups"] == {"pair": {"nDCG@10": 0.25, "RR@10": 0.25}}
    _, out, _ = run_cli(capsys, *argv, "--missing", "incomplete")
    assert json.loads(out)["groups"] == {"pair": {"nDCG@10": None, "RR@10": None}}


def test_it_reads_directories_and_lang_assignments_and_adds_per_query_values(files, tmp_path, capsys):
    renamed = tmp_path / "mine.txt"
    renamed.write_text(open(files["runs"][1]).read())
    code, out, _ = run_cli(capsys, "score", "--qrels", files["qrels"][0], f"te={files['qrels'][1]}",
                           "--run", f"te={renamed}", "--per-query", "--format", "json")
    assert code == 0
    document = json.loads(out)
    assert document["per_query"] == {"te": {"nDCG@10": {"q1": pytest.approx(TE_NDCG)}, "R@100": {"q1": 1.0}}}
    assert list(document["subsets"]) == ["te"]


def test_it_prints_a_table_and_csv(files, capsys):
    _, out, _ = run_cli(capsys, "score", "--qrels", *files["qrels"], "--run", *files["runs"])
    header, ndcg, recall = out.splitlines()
    assert header.split() == ["metric", "sw", "te", "K.Avg", "Avg"]
    assert ndcg.split() == ["nDCG@10", "0.5000", f"{TE_NDCG:.4f}", f"{(0.5 + TE_NDCG) / 2:.4f}",
                            f"{(0.5 + TE_NDCG) / 2:.4f}"]
    _, out, _ = run_cli(capsys, "score", "--qrels", *files["qrels"], "--run", *files["runs"], "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["metric", "sw", "te", "K.Avg", "Avg"] and float(rows[2][2]) == 1.0


def test_it_rejects_a_bad_run_with_file_line_and_code(files, capsys):
    code, out, _ = run_cli(capsys, "score", "--qrels", *files["qrels"], "--run", f"sw={files['bad']}",
                           "--format", "json")
    assert code == 1
    errors = json.loads(out)["errors"]
    assert errors and errors[0]["file"].endswith("run.miracl.bm25.sw.bad.txt") and errors[0]["line"] == 1
    assert "subsets" not in json.loads(out)


def test_it_reports_files_it_cannot_place(files, tmp_path, capsys):
    stray = tmp_path / "run.txt"
    stray.write_text("q1 Q0 1#0 1 2.0 x\n")
    code, out, _ = run_cli(capsys, "score", "--qrels", files["qrels"][0], "--run", str(stray),
                           f"yo={files['runs'][0]}", "--format", "json")
    assert code == 1
    assert [e["code"] for e in json.loads(out)["errors"]] == ["unknown-subset", "no-qrels"]


def test_it_refuses_an_unknown_metric_before_reading(files, capsys):
    code, _, err = run_cli(capsys, "score", "--qrels", *files["qrels"], "--run", *files["runs"],
                           "--metrics", "nDCG@10,BLEU")
    assert code == 2 and "unknown metric 'BLEU'" in err


def test_it_draws_a_progress_bar_when_asked(files, capsys):
    _, _, err = run_cli(capsys, "score", "--qrels", *files["qrels"], "--run", *files["runs"], "--progress")
    assert "reading sw [" in err and "100%" in err


def test_it_runs_as_a_module(files):
    done = subprocess.run([sys.executable, "-m", "evaluator", "score", "--qrels", *files["qrels"],
                           "--run", *files["runs"], "--format", "json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["subsets"]["sw"]["R@100"] == 0.5


def test_it_reads_a_run_from_a_pipe_whole(files, tmp_path):
    """`--run sw=<(zcat run.gz)`: the shell gives a pipe's path; peeking at it for gzip's magic
    consumed its bytes, and the run was read as empty."""
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    text = Path(files["runs"][0]).read_text()
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    done = subprocess.run([sys.executable, "-m", "evaluator", "score",
                           "--qrels", files["qrels"][0], "--run", f"sw={fifo}", "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    writer.join(10)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["subsets"]["sw"] == {"nDCG@10": 0.5, "R@100": 0.5}


def test_it_warns_when_no_run_query_is_judged_and_counts_missing_ones(tmp_path, capsys):
    (tmp_path / "q.txt").write_bytes(b"\xef\xbb\xbf1 0 d1 1\n2 0 d2 1\n3 0 d3 1\n")
    (tmp_path / "none.txt").write_text("01 Q0 d1 1 3 r\n02 Q0 d2 1 3 r\n")
    (tmp_path / "some.txt").write_text("1 Q0 d1 1 3 r\n7 Q0 d2 1 3 r\n")
    code, out, err = run_cli(capsys, "score", "--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "none.txt"))
    assert code == 0 and "none of the run's 2 query ids is a judged query" in err and "[bom]" in err
    code, out, _ = run_cli(capsys, "score", "--qrels", str(tmp_path / "q.txt"), "--run", str(tmp_path / "some.txt"),
                           "--format", "json")
    warnings = {w["code"]: w["message"] for w in json.loads(out)["warnings"]}
    assert warnings["unjudged-queries"].startswith("1 of the run's 2 queries")
    assert warnings["queries-not-in-run"].startswith("2 of 3 judged queries")


def test_it_scores_any_trec_collection_without_a_flag_at_trec_eval_depth(tmp_path, capsys):
    (tmp_path / "qrels").write_text("301 0 FBIS3-10082 1\n301 0 FBIS3-10169 0\n")
    lines = [f"301 Q0 FT{i}-1 {i} {1000 - i} Anserini+RM3 # trailing\n" for i in range(1, 150)]
    (tmp_path / "run").write_text("".join(lines) + "301 Q0 FBIS3-10082 150 1 Anserini+RM3 # trailing\n")
    code, out, err = run_cli(capsys, "score", "--qrels", str(tmp_path / "qrels"), "--run", str(tmp_path / "run"),
                             "--metrics", "map,recip_rank", "--format", "trec")
    assert code == 0 and out.splitlines() == ["map                   \t301\t0.0067", "recip_rank            \t301\t0.0067",
                                              "map                   \tall\t0.0067", "recip_rank            \tall\t0.0067"]
    assert err.count("extra-columns") == 1
