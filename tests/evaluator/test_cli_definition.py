"""`python -m evaluator score` and `validate` with a local competition definition
(`--definition my-task.yaml --phase dev`): the subsets, measures, averages, relevance level
and scoring depth come from the YAML as the platform derives them, and every value equals
`trec_eval -c` (trec_eval 10 built from its source) on depth-1000 runs.

The collection: the shipped MIRACL samples (sw, yo) named ha and so, codes no built-in
benchmark knows, so only the definition can tell a file's subset."""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
from pathlib import Path

import pytest

from evaluator.cli import main
from evaluator.io.qrels import read_qrels
from evaluator.synthetic import run_over_qrels
from tests.waiting import PATIENCE

SAMPLES = Path(__file__).resolve().parents[2] / "evaluator" / "samples"
SOURCES = {"ha": "sw", "so": "yo"}
TREC = {"nDCG@20": "ndcg_cut.20", "R@1000": "recall.1000", "R@100": "recall.100", "AP": "map"}
DEEP = ("nDCG@20", "R@1000", "AP")

DEFINITION = """\
schema: 1
version: 1
slug: my-task
title: My task
benchmark: generic
metrics: [nDCG@20, R@1000, AP]
max_run_depth: 1000
{extra}subsets:
  - {{code: ha, name: Hausa}}
  - {{code: so, name: Somali}}
phases:
  - slug: dev
    name: Development
    opens_at: 2026-11-01T00:00:00Z
    closes_at: 2030-12-31T23:59:59Z
"""


@pytest.fixture
def task(tmp_path):
    """The definition, qrels and depth-1000 runs (seeded) of ha and so; `graded` relabels
    every third judged document 2, for a definition with `relevance_level: 2`."""
    def make(extra: str = "", graded: bool = False) -> dict:
        (tmp_path / "my-task.yaml").write_text(DEFINITION.format(extra=extra))
        files: dict = {"definition": str(tmp_path / "my-task.yaml"), "qrels": [], "runs": []}
        for code, source in SOURCES.items():
            lines = (SAMPLES / f"qrels.miracl-v1.0-{source}-dev.tsv").read_text().splitlines()
            if graded:
                lines = [_graded(line, index) for index, line in enumerate(lines)]
            qrels = tmp_path / f"qrels.{code}.dev.tsv"
            qrels.write_text("\n".join(lines) + "\n")
            run = tmp_path / f"run.deep.{code}.dev.txt"
            run.write_text(run_over_qrels(read_qrels(str(qrels)).judgments, depth=1000, seed=len(code) + ord(code[0])))
            files["qrels"].append(str(qrels))
            files["runs"].append(str(run))
        return files
    return make


def _graded(line: str, index: int) -> str:
    qid, q0, docid, label = line.split()
    return f"{qid} {q0} {docid} {2 if label != '0' and index % 3 == 0 else label}"


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _trec_eval_c(binary: Path, qrels: str, run: str, *extra: str, metrics=DEEP) -> dict[str, float]:
    """{metric: value} of `trec_eval -c` over every judged query."""
    values = {}
    for metric in metrics:
        done = subprocess.run([str(binary), "-c", *extra, "-m", TREC[metric], qrels, run], capture_output=True,
                              check=True, timeout=PATIENCE)
        values[metric] = float(done.stdout.decode().split()[2])
    return values


def _score(files: dict, *extra: str) -> dict:
    code, out, err = _cli("score", "--definition", files["definition"], "--phase", "dev", "--qrels", *files["qrels"],
                          "--run", *files["runs"], "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_its_values_equal_trec_eval_c_on_depth_1000_runs(task, trec_eval):
    files = task()
    document = _score(files)
    assert list(document["subsets"]) == ["ha", "so"]
    for code, qrels, run in zip(SOURCES, files["qrels"], files["runs"], strict=True):
        expected = _trec_eval_c(trec_eval, qrels, run)
        assert document["subsets"][code] == pytest.approx(expected, abs=1e-12, rel=0)
    # no groups in the file: one average over every subset, Avg, as the board shows it
    assert list(document["groups"]) == ["all"]
    for metric in DEEP:
        mean = (document["subsets"]["ha"][metric] + document["subsets"]["so"][metric]) / 2
        assert document["groups"]["all"][metric] == pytest.approx(mean, abs=1e-15)


def test_it_scores_with_the_files_relevance_level_and_scoring_depth(task, trec_eval):
    files = task(extra="relevance_level: 2\nscoring_depth: 100\n", graded=True)
    path = Path(files["definition"])
    path.write_text(path.read_text().replace("R@1000", "R@100"))
    document = _score(files)
    shallow = ("nDCG@20", "R@100", "AP")
    for code, qrels, run in zip(SOURCES, files["qrels"], files["runs"], strict=True):
        expected = _trec_eval_c(trec_eval, qrels, run, "-l", "2", "-M", "100", metrics=shallow)
        assert document["subsets"][code] == pytest.approx(expected, abs=1e-12, rel=0)
        whole = _trec_eval_c(trec_eval, qrels, run, metrics=shallow)
        assert document["subsets"][code]["AP"] != pytest.approx(whole["AP"], abs=1e-6)  # the file's keys count


def test_it_prints_the_files_groups_by_their_labels(task):
    groups = "groups:\n  - {name: west, label: W.Avg}\n  - {name: east, label: E.Avg}\n"
    files = task()
    text = Path(files["definition"]).read_text().replace(
        "subsets:\n  - {code: ha, name: Hausa}\n  - {code: so, name: Somali}\n",
        groups + "subsets:\n  - {code: ha, name: Hausa, group: west}\n  - {code: so, name: Somali, group: east}\n")
    Path(files["definition"]).write_text(text)
    code, out, err = _cli("score", "--definition", files["definition"], "--qrels", *files["qrels"],
                          "--run", *files["runs"])
    assert code == 0, err
    assert out.splitlines()[0].split() == ["metric", "ha", "so", "W.Avg", "E.Avg", "Avg"]


def test_an_average_missing_a_subset_follows_the_files_rule(task):
    files = task()
    argv = ["score", "--definition", files["definition"], "--qrels", *files["qrels"], "--run", files["runs"][0],
            "--format", "json"]
    code, out, _ = _cli(*argv)
    assert code == 0 and json.loads(out)["groups"]["all"]["AP"] == json.loads(out)["subsets"]["ha"]["AP"] / 2
    path = Path(files["definition"])
    path.write_text(path.read_text().replace("max_run_depth: 1000\n", "max_run_depth: 1000\nmissing_subset: incomplete\n"))
    code, out, _ = _cli(*argv)
    assert code == 0 and json.loads(out)["groups"]["all"]["AP"] is None  # so has no run: no average


def test_validate_tells_subsets_and_depth_from_the_file(task, tmp_path):
    files = task()
    code, out, _ = _cli("validate", "--definition", files["definition"], "--phase", "dev", "--run", *files["runs"])
    assert code == 0
    assert [line.split()[2] for line in out.splitlines()] == ["(ha,", "(so,"]
    stranger = tmp_path / "run.deep.sw.dev.txt"
    stranger.write_text(Path(files["runs"][0]).read_text())
    code, out, _ = _cli("validate", "--definition", files["definition"], "--run", str(stranger))
    assert code == 1
    assert "the phase's subsets: ha, so" in out


def test_a_problem_in_the_file_is_named_with_its_line_and_nothing_is_scored(task):
    files = task()
    path = Path(files["definition"])
    path.write_text(path.read_text().replace("metrics: [nDCG@20, R@1000, AP]", "metrics: [nDCG@20, R@1000, APP]"))
    code, out, err = _cli("score", "--definition", str(path), "--phase", "test", "--qrels", *files["qrels"],
                          "--run", *files["runs"])
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"{path}:6: error: metrics[2]: unknown metric 'APP'")
    assert lines[1] == f"{path}:11: error: phases: has no phase 'test' (it has dev) [bad-definition]"


def test_a_file_nested_too_deep_is_refused_at_its_line_at_once(task):
    """Read with the platform's bounds: 20,000 brackets were minutes of CPU, then RecursionError."""
    files = task()
    path = Path(files["definition"])
    path.write_text(path.read_text().replace("benchmark: generic", "benchmark: generic\nx: " + "[" * 20_000 + "]" * 20_000))
    code, out, err = _cli("score", "--definition", str(path), "--phase", "dev", "--qrels", *files["qrels"],
                          "--run", *files["runs"])
    assert code == 2 and out == ""
    assert err.splitlines()[0].startswith(f"{path}:6: error: cannot read the definition: nested more than 32 deep")


def test_a_definition_and_a_server_together_are_refused(task):
    files = task()
    with pytest.raises(SystemExit, match="not both"):
        _cli("score", "--definition", files["definition"], "--server", "http://127.0.0.1:9", "--competition", "x",
             "--phase", "dev", "--qrels", *files["qrels"], "--run", *files["runs"])
