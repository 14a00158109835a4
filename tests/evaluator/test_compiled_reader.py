"""The optional C run reader (evaluator/io/_lines.c, built by setup.py): built in the
development install, reading numbers exactly as the exact reader does, and never needed.
The cases that compare it with the numpy/pyarrow reader and with trec_eval are the
existing reader and differential tests, run both ways (the `run_reader` fixture)."""
import os
import random
import struct
import subprocess
import sys

import pytest

from evaluator.io import compiled, validation_fast
from evaluator.io import qrels as qrels_reader
from evaluator.io.validation import LineRules, ProblemLog, is_finite_decimal, is_integer
from evaluator.io.validation_fast import rows_exact
from evaluator.synthetic import make_qrels
from tests.waiting import PATIENCE

from ..conftest import SHARED_DATA


def test_it_is_built_in_the_development_install():
    """A silent build failure (the build is optional) must not pass unnoticed: `make install`
    compiles it here, and without it every `compiled` case of the reader tests is skipped."""
    assert compiled.BUILT is not None, "evaluator/io/_lines.c was not built: run make install"
    assert compiled.COMPILED is compiled.BUILT


def parse_one(score: bytes, rank: bytes = b"1"):
    return compiled.BUILT.parse_run(b"q1 Q0 d1 " + rank + b" " + score + b" tag\n", False)


def _score_texts(rng: random.Random) -> list[bytes]:
    """Scores as toolkits write them and as they rarely do: short and long mantissas, every
    exponent the fast path takes and some it does not, signs, leading zeros, no integer part."""
    texts = []
    for _ in range(3000):
        value = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        if value == value and abs(value) != float("inf"):
            texts.append(repr(value).encode())
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        point = rng.randint(0, len(digits))
        mantissa = rng.choice(["", "+", "-"]) + digits[:point] + rng.choice([".", ""]) + digits[point:]
        if rng.random() < 0.5:
            mantissa += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 330))
        texts.append(mantissa.encode())
    return texts + [b"0", b"-0", b"-0.0", b".5", b"+.5", b"5.", b"1e22", b"1e23", b"9007199254740993", b"1e-400",
                    b"1e309", b"0e999999999999", b"123456789012345.6", b"0.000000000000000000001"]


@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
def test_it_reads_scores_as_the_exact_reader_does():
    """Every score it takes is one the exact reader takes, with the same float, bit for bit."""
    taken = 0
    for text in _score_texts(random.Random(27)):
        parsed = parse_one(text)
        if parsed is None:
            assert not is_finite_decimal(text), text
            continue
        taken += 1
        [score] = struct.unpack("d", parsed[5])
        assert struct.pack("d", score) == struct.pack("d", float(text)), text
    assert taken > 3000


@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
@pytest.mark.parametrize("rank", [b"0", b"7", b"-3", b"+12", b"000123", b"999999999999999999",
                                  b"1234567890123456789", b"3.0", b"-", b"1e3", b"0x1"])
def test_it_reads_ranks_as_the_exact_reader_does_or_leaves_them_to_it(rank):
    parsed = parse_one(b"1.5", rank)
    if parsed is not None:
        assert is_integer(rank)
        assert struct.unpack("q", parsed[4])[0] == int(rank)
    else:
        assert len(rank.lstrip(b"+-")) > 18 or not is_integer(rank)


@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
def test_it_gives_the_exact_readers_rows_and_the_same_docid_hashes():
    lines = [b"%d Q0 %d#%d %d %s t.1\n" % (q, d, d % 7, r, repr(1 / (r + 1)).encode())
             for q in (3, 1, 2) for r, d in enumerate(range(q * 1000, q * 1000 + 50))]
    block = b"".join(lines)
    parsed = validation_fast.parse_fast(block, topics=None, docid_pattern=r"[0-9]+#[0-9]+")
    assert parsed is not None and parsed.qid_values == ["3", "1", "2"] and parsed.tag == "t.1"
    exact, _ = rows_exact(block, 1, LineRules(), {}, ProblemLog("x"))
    assert parsed.docids.to_pylist() == exact.docids.to_pylist()
    assert parsed.hashes.tolist() == exact.hashes.tolist()
    assert parsed.scores.tolist() == exact.scores.tolist() and parsed.ranks.tolist() == exact.ranks.tolist()
    assert [parsed.qid_values[i] for i in parsed.qid_indices] == [line.split()[0].decode() for line in lines]


@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
@pytest.mark.parametrize("data", [
    b"1\tQ0\td1\t1\n1\tQ0\td2\t0\n2\tQ0\td1\t3\n",
    b"1 0 d1 1\n2 0 d9 -1\n1 0 d2 +0",  # no final newline, signed labels
    b"1 \t0  d1 1 \t\n2\t0\td1\t007\n",  # runs of blanks, trailing ones, leading zeros
])
def test_it_reads_plain_qrels_as_the_exact_reader_does(data):
    compiled = qrels_reader._read_compiled(data)
    assert compiled is not None
    exact = qrels_reader._read_exact(data, "x")
    assert in_order(compiled.judgments) == in_order(exact.judgments) and compiled.qids == list(exact.judgments)


def in_order(judgments: dict[str, dict[str, int]]) -> list:
    return [(qid, list(judged.items())) for qid, judged in judgments.items()]


@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
def test_it_reads_synthetic_and_real_qrels_as_the_exact_reader_does(tmp_path):
    paths = [make_qrels(tmp_path / "q.tsv", language="ja", count=300), *sorted(SHARED_DATA.glob("*/qrels.*"))]
    for path in paths:
        data = path.read_bytes()
        compiled = qrels_reader._read_compiled(data)
        assert compiled is not None, path
        exact = qrels_reader._read_exact(data, "x").judgments
        assert in_order(compiled.judgments) == in_order(exact), path


@pytest.mark.parametrize("data", [
    b"1\tQ0 d1\t1\n1 Q0 d1 1\r\n", b"1 Q0 d1 0x1\n", b"1 Q0 d1 1\n1 Q0 d1 0\n", b" 1 Q0 d1 1\n", b"# c\n1 Q0 d1 1\n",
    b"1 Q0 d1 1\n\n2 Q0 d1 1\n", b"1 Q0 d1\n", b"1 Q0 d1 1 x\n", b"1 Q0 d1 1.5\n", "1 Q0 dé 1\n".encode(),
    b"1 Q0 " + b"d" * 101 + b" 1\n", b"1 Q0 d1 1234567890123456789\n", b"",
])
@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
def test_it_leaves_unusual_qrels_to_the_per_line_reader(data):
    assert qrels_reader._read_compiled(data) is None


@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
@pytest.mark.parametrize("size", [0, 1, 2, 17, 1000, 100_000])
def test_it_finds_a_repeated_key_wherever_it_is(size):
    """The duplicate-docid check's linear pass: no repeat among distinct keys (0 and the
    largest included), and any one repeat found, whatever its place."""
    import numpy as np

    rng = np.random.default_rng(size)
    keys = np.unique(rng.integers(0, 2**64 - 1, size, dtype=np.uint64, endpoint=True))
    if size > 2:
        keys[:2] = (0, 2**64 - 1)
    assert compiled.BUILT.any_repeated(keys) is False
    for _ in range(5 if size > 1 else 0):
        twice = keys.copy()
        i, j = rng.choice(size, 2, replace=False)
        twice[j] = twice[i]
        assert compiled.BUILT.any_repeated(twice) is True


@pytest.mark.skipif(compiled.BUILT is None, reason="the C run reader is not built")
def test_it_codes_a_qid_that_comes_back_as_its_first_appearance():
    """Qids are noted by stretch while the GIL is released and coded after: one that
    returns after another gets its first code again."""
    block = b"".join(b"%s Q0 %d#1 %d 1.5 t\n" % (q, i, i) for i, q in enumerate([b"b", b"b", b"a", b"b", b"c", b"a"]))
    parsed = validation_fast.parse_fast(block, topics=None, docid_pattern=None)
    assert parsed.qid_values == ["b", "a", "c"] and parsed.qid_indices.tolist() == [0, 0, 1, 0, 2, 1]


@pytest.mark.parametrize("value, used", [("1", False), ("0", True), ("", True)])
def test_cupboard_pure_python_switches_it_off(value, used):
    """CUPBOARD_PURE_PYTHON=1 runs the numpy/pyarrow path where the extension is built (to
    compare the two, or to rule the extension out)."""
    probe = "import evaluator.io.compiled as c; print(c.COMPILED is not None)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=PATIENCE,
                          env={**os.environ, "CUPBOARD_PURE_PYTHON": value})
    assert done.stdout.strip() == str(used and compiled.BUILT is not None)
