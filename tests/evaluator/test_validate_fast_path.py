"""The vectorised fast path and the exact per-line path must accept the same files and
yield the same runs and problems: random valid files, then the same with random damage."""
import functools

import numpy as np
import pytest

from evaluator.io import runs, sources
from evaluator.io.validation import LineRules, ProblemLog
from evaluator.io.validation_fast import rows_exact, rows_fast

# Every case read by the C run reader and by the numpy/pyarrow one (tests/evaluator/conftest.py).
pytestmark = pytest.mark.usefixtures("run_reader")

TOPICS = [str(q) for q in range(1, 41)]
PATTERN = r"[0-9]+#[0-9]+"
DAMAGE = [
    lambda f: f[:5],  # too few columns
    lambda f: f + [b"x"],  # too many
    lambda f: [f[0], f[1], f[2], f[3], b"nan", f[5]],
    lambda f: [f[0], f[1], f[2], f[3], b"1_0", f[5]],
    lambda f: [f[0], f[1], f[2], b"3.0", f[4], f[5]],
    lambda f: [f[0], f[1], b"doc" + f[2], f[3], f[4], f[5]],
    lambda f: [b"999", *f[1:]],  # unknown qid
    lambda f: [*f[:5], b"other"],  # second tag
    lambda f: [*f[:5], b"t\xc3"],  # invalid UTF-8
    lambda f: [f[0], f[1], "１#2".encode(), *f[3:]],  # full-width digit
]
SEPARATORS = [b" ", b"\t", b"  "]


def random_run(rng: np.random.Generator, lines: int, *, damage: bool) -> bytes:
    qids = np.sort(rng.choice(TOPICS, size=lines))
    out = []
    previous = b"1#1"
    for i, qid in enumerate(qids):
        fields = [qid.encode(), b"Q0", b"%d#%d" % (rng.integers(0, 10**6), rng.integers(0, 9)),
                  b"%d" % (i + 1), repr(round(float(rng.normal(10, 3)), int(rng.integers(0, 5)))).encode(), b"tag1"]
        sep = b" "
        if damage and rng.random() < 0.01:
            fields = DAMAGE[rng.integers(len(DAMAGE))](fields)
        if damage and rng.random() < 0.005:
            fields[2] = previous  # a duplicate docid when the query is the same
        if damage and rng.random() < 0.005:
            sep = SEPARATORS[rng.integers(len(SEPARATORS))]
        end = b"\r\n" if damage and rng.random() < 0.003 else b"\n"
        previous = fields[2] if len(fields) > 2 else previous
        out.append(sep.join(fields) + end)
    return b"".join(out)


def read(path, *, fast: bool, monkeypatch):
    with monkeypatch.context() as m:
        # Small blocks, so fast, exact and mixed blocks all occur in one file.
        m.setattr(runs, "iter_blocks", functools.partial(sources.iter_blocks, block_size=2048))
        if not fast:
            m.setattr(runs, "parse_fast", lambda *args, **kwargs: None)
        return runs.read_run(path, topics=TOPICS, docid_pattern=PATTERN, max_depth=60, keep_depth=20, max_problems=1000)


@pytest.mark.parametrize("seed", range(12))
def test_it_gives_the_same_result_on_both_paths(tmp_path, monkeypatch, seed):
    rng = np.random.default_rng(seed)
    path = tmp_path / "run.txt"
    path.write_bytes(random_run(rng, int(rng.integers(200, 1500)), damage=seed % 3 != 0))
    fast_run, fast_report = read(path, fast=True, monkeypatch=monkeypatch)
    exact_run, exact_report = read(path, fast=False, monkeypatch=monkeypatch)
    assert fast_report == exact_report
    assert (fast_run is None) == (exact_run is None)
    if fast_run is not None:
        assert list(fast_run.qids) == list(exact_run.qids)
        assert list(fast_run.docids) == list(exact_run.docids)
        assert fast_run.scores.tolist() == exact_run.scores.tolist()
    if seed % 3 == 0:
        assert fast_report.ok


def test_it_takes_the_fast_path_on_a_plain_block_and_yields_the_exact_rows():
    block = random_run(np.random.default_rng(7), 300, damage=False)
    fast = rows_fast(block, 1, LineRules(topics=frozenset(TOPICS)), {}, None)
    exact, crlf = rows_exact(block, 1, LineRules(topics=frozenset(TOPICS)), {}, ProblemLog("x"))
    assert fast is not None and crlf is None
    for name in ("qcodes", "ranks", "scores", "lines"):
        assert getattr(fast, name).tolist() == getattr(exact, name).tolist()
    assert fast.docids.to_pylist() == exact.docids.to_pylist()


@pytest.mark.parametrize("block", [
    b"1 Q0 1#1 1 1.0 t\r\n", b"1\tQ0 1#1 1 1.0 t\n", b"1 Q0 1#1 1 1.0 t\n\n", b"1 Q0 1#1 0x1 1.0 t\n",
    b"1 Q0 1#1 1 nan t\n", "1 Q0 1#1 1 1.0 té\n".encode(), b"1 Q0 1#1 1 1.0 t \n", b"1 Q0 1#1 1 1.0 t!\n",
])
def test_it_leaves_unusual_blocks_to_the_exact_path(block):
    assert rows_fast(block, 1, LineRules(), {}, None) is None
