"""evaluator.evaluate / compare / fuse (issue 27): DataFrames equal to trec_eval -q -c per
query and `all`, the same frames from every input kind, a clear error for a bad frame, and
compare / fuse equal to the CLI's commands on the same files."""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys

import pandas as pd
import pytest

import evaluator
from evaluator.cli import main
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run
from evaluator.measures import UNLIMITED
from evaluator.records import InputError
from tests.waiting import PATIENCE

from .test_trec_eval_differential import _parse

SAMPLES = "evaluator/samples"
MEASURES = {"nDCG@10": "ndcg_cut_10", "AP": "map", "R@100": "recall_100"}
TOLERANCE = 1e-12
CASES = [(f"{SAMPLES}/qrels.miracl-v1.0-{lang}-dev.tsv", f"{SAMPLES}/run.miracl.{system}.{lang}.dev.txt")
         for lang in ("sw", "yo") for system in ("bm25", "mdpr")]


def _trec_eval(binary, qrels, run) -> dict[tuple[str, str], float]:
    done = subprocess.run([str(binary), "-q", "-c", "-m", "ndcg_cut.10", "-m", "map", "-m", "recall.100",
                           str(qrels), str(run)], capture_output=True, check=True, timeout=PATIENCE)
    return _parse(done.stdout.decode())


def _assert_equals_trec_eval(results, expected) -> None:
    got = {(MEASURES[m], q): v for q, m, v in results.per_query.itertuples(index=False)}
    got |= {(MEASURES[m], "all"): v for m, v in results.aggregates.items()}
    assert got.keys() == expected.keys()
    wrong = {key: (got[key], expected[key]) for key in got if abs(got[key] - expected[key]) > TOLERANCE}
    assert not wrong, list(wrong.items())[:3]


@pytest.mark.parametrize("qrels, run", CASES, ids=[run.split("/")[-1] for _, run in CASES])
def test_it_equals_trec_eval_per_query_and_all_on_the_samples(trec_eval, qrels, run):
    _assert_equals_trec_eval(evaluator.evaluate(qrels, run, list(MEASURES)), _trec_eval(trec_eval, qrels, run))


@pytest.mark.shared_data
def test_it_equals_trec_eval_on_a_miracl_dev_language(trec_eval, shared_data):
    """The real Swahili dev qrels (482 queries); the sample run covers a few, the rest count 0 (-c)."""
    qrels, run = shared_data / "miracl-v1.0-dev" / "qrels.miracl-v1.0-sw-dev.tsv", CASES[0][1]
    results = evaluator.evaluate(qrels, run, list(MEASURES))
    assert results.per_query.query_id.nunique() == len(read_qrels(qrels).qids) > 400
    _assert_equals_trec_eval(results, _trec_eval(trec_eval, qrels, run))


def _inputs(qrels_path: str, run_path: str) -> dict[str, tuple]:
    """The same qrels and run as a path, dicts, ir_measures' and PyTerrier's DataFrames."""
    judgments = read_qrels(qrels_path).judgments
    parsed, _ = read_run(run_path, keep_depth=UNLIMITED, max_depth=UNLIMITED)
    assert parsed is not None
    scored: dict[str, dict[str, float]] = {}
    for q, d, s in zip(parsed.qids, parsed.docids, parsed.scores.tolist(), strict=True):
        scored.setdefault(q, {})[d] = s
    qrels_rows = [(q, d, label) for q, docs in judgments.items() for d, label in docs.items()]
    run_rows = [(q, d, s) for q, docs in scored.items() for d, s in docs.items()]
    return {
        "path": (qrels_path, run_path),
        "dict": (judgments, scored),
        "ir_measures": (pd.DataFrame(qrels_rows, columns=["query_id", "doc_id", "relevance"]),
                        pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])),
        "pyterrier": (pd.DataFrame(qrels_rows, columns=["qid", "docno", "label"]),
                      pd.DataFrame(run_rows[::-1], columns=["qid", "docno", "score"]).assign(rank=0)),
    }


def test_every_input_kind_gives_identical_frames():
    qrels, run = CASES[1]
    frames = {kind: evaluator.evaluate(q, r, "nDCG@10,AP,R@100") for kind, (q, r) in _inputs(qrels, run).items()}
    first = frames.pop("path")
    assert list(first.wide.columns) == ["query_id", "nDCG@10", "AP", "R@100"]
    assert len(first.per_query) == 3 * len(first.wide) and first.per_query.value.gt(0).any()
    for kind, results in frames.items():
        pd.testing.assert_frame_equal(results.per_query, first.per_query, obj=kind)
        pd.testing.assert_frame_equal(results.wide, first.wide, obj=kind)
        assert results.aggregates == first.aggregates, kind


def test_it_reads_ids_as_strings_and_keeps_judged_queries_a_run_lacks():
    """Integer qids in a frame are the strings a TREC file holds; query 2 is judged, not run: 0."""
    qrels = pd.DataFrame({"qid": [1, 1, 2], "docno": ["a", "b", "c"], "label": [1, 0, 1]})
    run = pd.DataFrame({"qid": [1, 1, 3], "docno": ["b", "a", "c"], "score": [2.0, 1.0, 5.0]})
    results = evaluator.evaluate(qrels, run, ["P@1", "RR"])
    assert results.wide.to_dict("records") == [{"query_id": "1", "P@1": 0.0, "RR": 0.5},
                                               {"query_id": "2", "P@1": 0.0, "RR": 0.0}]
    assert results.aggregates == {"P@1": 0.0, "RR": 0.25}
    assert any(w.code == "queries-not-in-run" for w in results.warnings)
    empty = evaluator.evaluate({}, run, ["P@1"])  # no judged query: empty frames, trec_eval -c's 0
    assert empty.per_query.empty and list(empty.wide.columns) == ["query_id", "P@1"] and empty.aggregates == {"P@1": 0}


@pytest.mark.parametrize("columns, what", [(["query_id", "doc_id"], "run"), (["qid", "docid", "score"], "run")])
def test_a_frame_without_its_columns_is_a_clear_error(columns, what):
    qrels = {"1": {"a": 1}}
    frame = pd.DataFrame([["1", "a", 1.0][:len(columns)]], columns=columns)
    with pytest.raises(InputError) as raised:
        evaluator.evaluate(qrels, frame, ["AP"])
    (problem,) = raised.value.problems
    assert problem.code == "missing-column" and problem.file == "<DataFrame>"
    assert "query_id, doc_id, score or qid, docno, score" in problem.message and ", ".join(columns) in problem.message


def test_bad_qrels_frames_are_clear_errors():
    run = {"1": {"a": 1.0}}
    with pytest.raises(InputError, match="relevance"):
        evaluator.evaluate(pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]}), run, ["AP"])
    with pytest.raises(InputError, match="integer labels"):
        evaluator.evaluate(pd.DataFrame({"qid": ["1"], "docno": ["a"], "label": [0.5]}), run, ["AP"])
    with pytest.raises(InputError, match="'a' twice"):
        evaluator.evaluate(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "label": [1, 0]}), run, ["AP"])
    with pytest.raises(InputError) as raised:
        evaluator.evaluate(CASES[0][0], f"{SAMPLES}/topics.miracl-v1.0-sw-dev.tsv", ["AP"])
    assert raised.value.problems[0].line == 1  # a file's problem names its line


def _cli(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


def test_compare_equals_the_cli(tmp_path):
    qrels, bm25 = CASES[0]
    mdpr = CASES[1][1]
    frame = evaluator.compare(qrels, {"mdpr": mdpr, "bm25": bm25}, ["nDCG@10", "AP"], baseline="bm25", trials=2000)
    rows = json.loads(_cli("compare", "--qrels", qrels, "--run-a", mdpr, "--run-b", bm25, "--metrics", "nDCG@10,AP",
                           "--trials", "2000", "--format", "json"))["comparisons"]
    assert len(frame) == len(rows) == 2
    for row, cli in zip(frame.to_dict("records"), rows, strict=True):
        assert (row["measure"], row["mean"], row["baseline_mean"]) == (cli["metric"], cli["a"], cli["b"])
        assert row["p_value"] == cli["p_randomization"] and 0 < row["p_value"] <= 1
    t = evaluator.compare(qrels, {"mdpr": mdpr, "bm25": bm25}, "AP", baseline="bm25", test="t")
    assert t.p_value.tolist() == [rows[1]["p_t"]]


@pytest.mark.parametrize("method", ["hybrid", "rrf"])
def test_fuse_equals_the_cli_and_evaluates(tmp_path, method):
    runs = [CASES[0][1], CASES[1][1]]
    fused = evaluator.fuse(runs, method=method, depth=100)
    _cli("fuse", "--run", f"sw={runs[0]}", "--run", f"sw={runs[1]}", "--method", method, "--depth", "100",
         "--output", str(tmp_path))
    written, _ = read_run(tmp_path / f"run.{method}.sw.txt", keep_depth=100, strict=False)
    assert written is not None and list(fused.columns) == ["query_id", "doc_id", "score"]
    assert fused.query_id.tolist() == written.qids.tolist() and fused.doc_id.tolist() == written.docids.tolist()
    assert fused.groupby("query_id").size().max() <= 100
    scored = evaluator.evaluate(CASES[0][0], fused, ["nDCG@10"]).aggregates
    assert scored == evaluator.evaluate(CASES[0][0], tmp_path / f"run.{method}.sw.txt", ["nDCG@10"]).aggregates


def test_the_command_line_does_not_import_pandas():
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "evaluator", "--help"],
                          capture_output=True, text=True, check=True)
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "evaluator" in imported and "pandas" not in imported


def test_the_docs_example_runs_and_says_what_it_gives():
    """docs/evaluator.md's "From Python" example, run as written from the checkout's root;
    the aggregates its comment shows are the ones it computes."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "evaluator.md").read_text()
    block = text.split("## From Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    with contextlib.chdir(root):
        exec(compile(block, "docs/evaluator.md", "exec"), namespace)
    shown = {"nDCG@10": "0.1125", "AP": "0.1002", "R@100": "0.5069"}
    assert {m: f"{v:.6f}"[:6] for m, v in namespace["results"].aggregates.items()} == shown
    assert all(f"'{m}': {v}" in block for m, v in shown.items())
    assert list(namespace["table"].run) == ["mdpr", "hybrid", "mdpr", "hybrid"]
    assert namespace["table"].p_adjusted.between(0, 1).all()


def test_it_equals_trec_eval_on_seeded_collections_from_frames(trec_eval, tmp_path):
    """The differential suite's seeded collections (every measure it checks), each given as
    files and as ir_measures' DataFrames: trec_eval -q prints the queries the run has, and
    each equals ours (or both refuse); a judged query the run lacks is 0 here, and `all` counts it (-c)."""
    from .test_trec_eval_differential import reference
    from .trec_cases import MEASURES as ALL_MEASURES
    from .trec_cases import generated_case

    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    for seed in range(40):
        _, qrels_text, run_text = generated_case(seed)
        qrels.write_text(qrels_text)
        run.write_text(run_text)
        expected = reference(trec_eval, qrels, run)
        if expected is None:  # trec_eval refuses it: so does the API, with a clear error
            with pytest.raises(InputError):
                evaluator.evaluate(qrels, run, ALL_MEASURES)
            continue
        results = evaluator.evaluate(qrels, run, ALL_MEASURES)
        got = {(m, q): v for q, m, v in results.per_query.itertuples(index=False)}
        got |= {(m, "all"): v for m, v in results.aggregates.items()}
        wrong = {k: (got.get(k), v) for k, v in expected.items() if abs(got.get(k, float("nan")) - v) > TOLERANCE}
        assert not wrong, (seed, list(wrong.items())[:3])
        assert all(v == 0 for k, v in got.items() if k not in expected), seed
        lines = [fields for line in run_text.splitlines() if (fields := line.split())]
        frame = pd.DataFrame([(f[0], f[2], float(f[4])) for f in lines], columns=["query_id", "doc_id", "score"])
        pd.testing.assert_frame_equal(evaluator.evaluate(qrels, frame, ALL_MEASURES).per_query, results.per_query)
