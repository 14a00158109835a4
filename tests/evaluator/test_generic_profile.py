"""The generic profile reads what trec_eval reads (issue 27): each input a competition refuses
is scored equal to trec_eval 10 (per query and `all`, to 1e-12), with a
warning where trec_eval is silent; `--strict` and a benchmark refuse it. `--format trec`
is byte-identical to `trec_eval -q -c` (its `%6.4f` build) for the same measures.
"""
from __future__ import annotations

import contextlib
import io
import random
import re
import subprocess

import pytest

from evaluator.cli import main
from evaluator.io.qrels import atol
from evaluator.io.runs import read_run
from evaluator.measures import trec_eval_measures
from evaluator.reference import trec_eval_binary
from tests.waiting import PATIENCE

from .test_trec_eval_differential import _compare
from .trec_cases import MEASURES, generated_case
from .trec_odd_cases import ODD

# Every case read by the C run reader and by the numpy/pyarrow one (tests/evaluator/conftest.py).
pytestmark = pytest.mark.usefixtures("run_reader")


def _score(qrels, run, *options: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--run", str(run), "--workers", "1", *options])
    return code, out.getvalue(), err.getvalue()


def _files(tmp_path, qrels_text: str, run_text: str):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    return qrels, run


@pytest.mark.parametrize("name, qrels_text, run_text, warning, refused", ODD, ids=[case[0] for case in ODD])
def test_the_generic_profile_scores_what_trec_eval_scores(trec_eval, tmp_path, name, qrels_text, run_text, warning,
                                                          refused):
    _compare(trec_eval, tmp_path, name, qrels_text, run_text)  # both score it, equal to 1e-12
    code, _, err = _score(*_files(tmp_path, qrels_text, run_text), "--format", "trec")
    assert code == 0, err
    assert "error" not in err
    if warning:
        assert "warning: " in err and f"[{warning}]" in err, err


@pytest.mark.parametrize("name, qrels_text, run_text, warning, refused", [c for c in ODD if c[4]],
                         ids=[case[0] for case in ODD if case[4]])
def test_strict_refuses_them_naming_file_line_and_problem(tmp_path, name, qrels_text, run_text, warning, refused):
    qrels, run = _files(tmp_path, qrels_text, run_text)
    code, out, err = _score(qrels, run, "--strict", "--format", "trec")
    assert code == 1 and not out
    assert "error: " in err and f"[{refused}]" in err, err
    line = next(line for line in err.splitlines() if f"[{refused}]" in line)
    assert line.split(":")[0] in (str(qrels), str(run)) and line.split(":")[1].isdigit(), line


@pytest.mark.parametrize("name, qrels_text, run_text, warning, refused",
                         [c for c in ODD if c[4] and c[4] != "bad-label"], ids=[c[0] for c in ODD if c[4] and c[4] != "bad-label"])
def test_a_benchmark_profile_refuses_the_run(tmp_path, name, qrels_text, run_text, warning, refused):
    """A benchmark keeps its rules (and `read_run` by default, which the platform calls)."""
    _, report = read_run(io.BytesIO(run_text.encode()), name="run.txt")
    assert refused in {problem.code for problem in report.errors}
    qrels, run = _files(tmp_path, qrels_text, run_text)
    code, _, err = _score(f"sw={qrels}", f"sw={run}", "--benchmark", "mrtydi")
    assert code == 1 and f"[{refused}]" in err, err


@pytest.mark.parametrize("text, value", [("1", 1), ("+1", 1), ("1.5", 1), ("-1.9", -1), ("2nd", 2), ("x", 0),
                                         ("", 0), ("-", 0), ("0x10", 0), (str(2**70), 2**63 - 1),
                                         ("-" + str(2**70), -(2**63)), ("٣", 0)])
def test_labels_are_read_as_c_atol_reads_them(text, value):
    assert atol(text) == value


def _trec_eval_text(binary, qrels, run, measures) -> str | None:
    """trec_eval's output; None when it refuses the files (the differential test covers those)."""
    args = [arg for measure in trec_eval_measures(measures) for arg in ("-m", measure)]
    done = subprocess.run([str(binary), "-q", "-c", *args, str(qrels), str(run)], capture_output=True, timeout=PATIENCE)
    return None if done.returncode else done.stdout.decode()


@pytest.fixture(scope="module")
def trec_eval_4(trec_eval):
    """trec_eval as published: `%6.4f` output, what --format trec matches byte for byte."""
    return trec_eval_binary(full_precision=False)


def _named_all(qid: str, *texts: str) -> list[str]:
    """The texts with query `qid` renamed `all` at the start of each line."""
    pattern = re.compile(rf"(?m)^([ \t]*){re.escape(qid)}(?=[ \t])")
    return [pattern.sub(r"\1all", text) for text in texts]


def test_format_trec_is_byte_identical_to_trec_eval(trec_eval_4, tmp_path):
    """Seeded random collections, the odd inputs above, measures asked in a shuffled order
    (trec_eval prints them in its own), counts printed as integers, a qid named `all`."""
    cases = [generated_case(seed) for seed in range(60)] + [case[:3] for case in ODD]
    compared = named_all = 0
    for index, (name, qrels_text, run_text) in enumerate(cases):
        if not run_text:
            continue
        measures = list(MEASURES)
        random.Random(index).shuffle(measures)
        if index % 3 == 0:  # a qid literally named `all` beside the `all` lines
            qrels_text, run_text = _named_all(qrels_text.split()[0], qrels_text, run_text)
        qrels, run = _files(tmp_path, qrels_text, run_text)
        expected = _trec_eval_text(trec_eval_4, qrels, run, measures)
        if expected is None:
            continue
        code, got, err = _score(qrels, run, "--metrics", ",".join(measures), "--format", "trec")
        assert code == 0, f"{name}: {err}"
        for number, (ours, theirs) in enumerate(zip(got.splitlines(), expected.splitlines(), strict=True), start=1):
            assert ours == theirs, f"{name}, line {number}: {ours!r} != {theirs!r}"
        assert got == expected
        compared += 1
        named_all += "\nall " in f"\n{qrels_text}"
    assert compared >= 50 and named_all >= 15, (compared, named_all)


def test_validate_and_compare_take_strict_too(tmp_path):
    """`validate` warns on a concatenated run and, with --strict, refuses it; `compare` reads
    runs as `score` does."""
    qrels, run = _files(tmp_path, ODD[0][1], next(case[2] for case in ODD if case[0] == "concatenated-runs"))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        lenient = main(["validate", "--run", str(run)])
        strict = main(["validate", "--strict", "--run", str(run)])
        compared = [main(["compare", "--qrels", str(qrels), "--run-a", str(run), "--run-b", str(run), *strict_flag])
                    for strict_flag in ([], ["--strict"])]
    assert (lenient, strict, compared) == (0, 1, [0, 1]), out.getvalue() + err.getvalue()
    assert "warning" in out.getvalue() and "[several-tags]" in out.getvalue()
    assert "error: run tag 'other' differs from 'r': a run has one tag [several-tags]" in out.getvalue() + err.getvalue()
