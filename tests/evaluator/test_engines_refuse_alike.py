"""One input, one answer from every reader (issue 33, item 11): a run that one run reader
refuses is refused by the other with the same error (the C reader and the numpy/pyarrow one,
in this process and as `CUPBOARD_PURE_PYTHON=1`), and the generic profile, trec_eval's
drop-in, fails where trec_eval fails or says where it differs."""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys

import pytest

from evaluator.cli import main
from evaluator.io import compiled

from .test_trec_eval_differential import _compare

pytestmark = pytest.mark.usefixtures("run_reader")  # the C run reader and the numpy/pyarrow one

QRELS = b"1 0 d1 1\n1 0 d2 0\n"
NUL_RUN = b"1 Q0 d1 1 2.0 t\n1 Q0 d\x002 2 1.0 t\n"  # a NUL byte inside the second line's docid
NUL_ERROR = "run.txt:2:3: error: line contains a NUL byte [nul-byte]"


def _files(tmp_path, qrels: bytes, run: bytes):
    (tmp_path / "qrels.txt").write_bytes(qrels)
    (tmp_path / "run.txt").write_bytes(run)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def _score(qrels, run, *options: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["score", "--qrels", str(qrels), "--run", str(run), "--workers", "1", *options])
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("profile", [(), ("--strict",)], ids=["generic", "strict"])
def test_a_nul_byte_in_a_docid_is_refused_by_every_reader(tmp_path, profile):
    code, out, err = _score(*_files(tmp_path, QRELS, NUL_RUN), *profile)
    assert (code, out) == (1, "") and err.endswith(NUL_ERROR + "\n"), err


def test_the_compiled_reader_declines_it(run_reader):
    if run_reader != "compiled":
        pytest.skip("the compiled reader's own answer")
    assert compiled.COMPILED.parse_run(NUL_RUN, False) is None
    assert compiled.COMPILED.parse_run(NUL_RUN.replace(b"\x00", b""), False) is not None


def test_without_the_compiled_reader_too(tmp_path):
    """CUPBOARD_PURE_PYTHON=1, a whole process: the numpy/pyarrow reader declines it, the exact one says where."""
    qrels, run = _files(tmp_path, QRELS, NUL_RUN)
    done = subprocess.run([sys.executable, "-m", "evaluator", "score", "--qrels", str(qrels), "--run", str(run)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=os.environ | {"CUPBOARD_PURE_PYTHON": "1"})
    assert done.returncode == 1 and done.stdout == "" and done.stderr.endswith(NUL_ERROR + "\n"), done.stderr


RUN = b"1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n"


@pytest.mark.parametrize("label", [str(2**63 - 1), str(10**20), "99999999999999999999.5"])
def test_a_label_trec_eval_cannot_count_is_refused_as_trec_eval_refuses_it(trec_eval, tmp_path, label):
    """trec_eval counts judgments per level up to the largest label: at 2^63 - 1 (what atol
    makes of any larger one) that overflows and it stops, "Can't calculate measure"."""
    qrels_text = f"1 0 d1 {label}\n1 0 d2 0\n"
    _compare(trec_eval, tmp_path, label, qrels_text, RUN.decode())  # both refuse
    code, out, err = _score(*_files(tmp_path, qrels_text.encode(), RUN))
    assert (code, out) == (1, "") and "qrels.txt:1:4: error: " in err and "[label-overflow]" in err, err


def test_a_label_trec_eval_may_fail_to_count_is_scored_saying_so(tmp_path):
    """2^32 levels: 32 GiB trec_eval may or may not get (this machine's memory decides, so
    trec_eval is not run here); the generic profile scores it and says trec_eval may stop."""
    code, out, err = _score(*_files(tmp_path, f"1 0 d1 {2**32}\n1 0 d2 0\n".encode(), RUN), "--metrics", "P@5")
    assert code == 0 and "0.2000" in out
    assert "qrels.txt:1:4: warning: " in err and "32 GiB" in err and "[large-label]" in err, err
