"""The evaluator against trec_eval 10 built from its source (issue 16): the same qrels and
run give the same value for every measure and query (`trec_eval -q -c` at %.17g against
`python -m evaluator score --format trec --digits 17`), or both refuse the input.

The corpus is `trec_cases.py`: the minimal cases of issue 16 and seeded random ones.
"""
from __future__ import annotations

import contextlib
import io
import random
import subprocess

import pytest

from evaluator.cli import main
from evaluator.measures import trec_eval_measures
from tests.waiting import PATIENCE

from .trec_cases import MEASURES, MINIMAL, generated_case

# Every case read by the C run reader and by the numpy/pyarrow one (tests/evaluator/conftest.py).
pytestmark = pytest.mark.usefixtures("run_reader")

SEEDS = range(240)
TOLERANCE = 1e-12  # the same sums in another order differ in the last bits only


def _trec_eval_args() -> list[str]:
    return [arg for measure in trec_eval_measures(MEASURES) for arg in ("-m", measure)]


def reference(binary, qrels, run) -> dict | None:
    done = subprocess.run([str(binary), "-q", "-c", *_trec_eval_args(), str(qrels), str(run)],
                          capture_output=True, timeout=PATIENCE)
    if done.returncode:
        return None
    return _parse(done.stdout.decode())


def ours(qrels, run) -> tuple[dict | None, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["score", "--benchmark", "generic", "--qrels", str(qrels), "--run", str(run),
                     "--metrics", ",".join(MEASURES), "--format", "trec", "--digits", "17", "--workers", "1"])
    return (_parse(out.getvalue()) if code == 0 else None), err.getvalue()


def _parse(text: str) -> dict:
    values = {}
    for line in text.splitlines():
        measure, qid, value = line.split("\t")
        values[measure.strip(), qid] = float(value)
    return values


def _compare(trec_eval, tmp_path, name, qrels_text, run_text):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_bytes(qrels_text.encode())
    run.write_bytes(run_text.encode())
    expected = reference(trec_eval, qrels, run)
    got, stderr = ours(qrels, run)
    if expected is None or got is None:
        assert expected is None and got is None, f"{name}: only one refuses\n{stderr}"
        assert "Traceback" not in stderr and "error" in stderr, f"{name}: no clear error\n{stderr}"
        return
    assert got.keys() == expected.keys(), f"{name}: {sorted(got.keys() ^ expected.keys())[:5]}"
    wrong = {key: (got[key], expected[key]) for key in got if abs(got[key] - expected[key]) > TOLERANCE}
    assert not wrong, f"{name}: {len(wrong)} values differ, e.g. {list(wrong.items())[:3]}"


@pytest.mark.parametrize("name, qrels_text, run_text", MINIMAL, ids=[case[0] for case in MINIMAL])
def test_it_agrees_with_trec_eval_on_the_minimal_cases(trec_eval, tmp_path, name, qrels_text, run_text):
    _compare(trec_eval, tmp_path, name, qrels_text, run_text)


def test_it_agrees_with_trec_eval_on_generated_cases(trec_eval, tmp_path):
    for seed in SEEDS:
        _compare(trec_eval, tmp_path, *generated_case(seed))


def test_it_reports_the_cases_the_issue_names(trec_eval, tmp_path):
    """The numbers the issue quotes, so a reader sees them pinned."""
    _, deep_qrels, deep_run = next(case for case in MINIMAL if case[0] == "deep")
    (tmp_path / "q").write_text(deep_qrels)
    (tmp_path / "r").write_text(deep_run)
    got, _ = ours(tmp_path / "q", tmp_path / "r")
    assert round(got["map", "all"], 4) == 0.5067
    _, qrels, run = next(case for case in MINIMAL if case[0] == "ndcg-ideal")
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    got, _ = ours(tmp_path / "q", tmp_path / "r")
    assert round(got["ndcg", "all"], 4) == 0.7448 and got["ndcg_cut_10", "all"] == 1.0


@pytest.mark.shared_data
@pytest.mark.parametrize("qrels_name", ["miracl-v1.0-dev/qrels.miracl-v1.0-sw-dev.tsv",
                                        "miracl-v1.0-dev/qrels.miracl-v1.0-yo-dev.tsv",
                                        "mrtydi-v1.1-test/qrels.mrtydi-v1.1-sw.test.txt"])
def test_it_agrees_with_trec_eval_on_the_real_qrels(trec_eval, tmp_path, shared_data, qrels_name):
    """The published qrels as they are, a seeded run of judged, unjudged and tied documents."""
    qrels_text = (shared_data / qrels_name).read_text()
    rng = random.Random(qrels_name)
    judged: dict[str, list[str]] = {}
    for line in qrels_text.splitlines():
        qid, _, docid, _ = line.split()
        judged.setdefault(qid, []).append(docid)
    lines = []
    for qid, docs in judged.items():
        if rng.random() < 0.1:
            continue  # a query the run misses
        pool = [d for d in docs if rng.random() < 0.6] + [f"{rng.randint(1, 10**6)}#{rng.randint(0, 9)}" for _ in range(40)]
        for rank, docid in enumerate(dict.fromkeys(pool), start=1):
            lines.append(f"{qid} Q0 {docid} {rank} {rng.randint(0, 30) / 4} run\n")
    _compare(trec_eval, tmp_path, qrels_name, qrels_text, "".join(lines))
