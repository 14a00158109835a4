"""Lines the vectorised run reader must hand to the exact reader, so both report the same
problems: empty fields between two spaces, over-long rank or score fields, tags that
differ only in some lines."""
import pytest

from evaluator.io import runs

# Every case read by the C run reader and by the numpy/pyarrow one (tests/evaluator/conftest.py).
pytestmark = pytest.mark.usefixtures("run_reader")

GOOD = b"1 Q0 10#1 1 2.5 tag\n1 Q0 10#2 2 2.0 tag\n"
CASES = {
    "empty Q0": GOOD + b"1  10#3 3 1.0 tag\n",
    "empty docid": GOOD + b"1 Q0  3 1.0 tag\n",
    "long score": GOOD + b"1 Q0 10#3 3 1." + b"0" * 150 + b" tag\n",
    "long Q0": GOOD + b"1 " + b"Q" * 101 + b" 10#3 3 1.0 tag\n",
    "other tag": GOOD + b"1 Q0 10#3 3 1.0 tag2\n",
    "tag suffix": GOOD + b"1 Q0 10#3 3 1.0 xtag\n",
    "no newline at the end": GOOD + b"1 Q0 10#3 3 1.0 tag",
    "short last line": GOOD + b"1 Q0 1#3 3 1 tag\n",
    "long tags": b"".join(b"1 Q0 10#%d %d 1.0 abcdefghij.-_0123456\n" % (i, i) for i in range(5)),
    "long tags, one differs": b"".join(b"1 Q0 10#%d %d 1.0 %sbcdefghij.-_0123456\n" % (i, i, b"a" if i != 3 else b"X")
                                      for i in range(5)),
    "short lines, long tag": b"1 Q0 1#1 1 1 abcdefghij.-_0123456\n1 Q 1#2 2 1 abcdefghij.-_0123456\n",
}


@pytest.mark.parametrize("content", CASES.values(), ids=CASES.keys())
def test_it_reports_the_same_on_both_paths(tmp_path, monkeypatch, content):
    path = tmp_path / "run.txt"
    path.write_bytes(content)
    fast_run, fast = runs.read_run(path, topics=["1"])
    monkeypatch.setattr(runs, "parse_fast", lambda *args, **kwargs: None)
    exact_run, exact = runs.read_run(path, topics=["1"])
    assert fast == exact
    assert (fast_run is None) == (exact_run is None)
    if fast_run is not None:
        assert fast_run.docids.tolist() == exact_run.docids.tolist()
