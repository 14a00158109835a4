"""The vectorised qrels and topics readers give the same results as the per-line ones."""
import pytest

from evaluator.io import qrels as reader
from evaluator.synthetic import make_qrels


def both(data: bytes):
    fast = reader._read_fast(data)
    assert fast is not None, "expected the fast path to take this file"
    return fast.judgments, reader._read_exact(data, "x").judgments


@pytest.mark.parametrize("data", [
    b"1\tQ0\td1\t1\n1\tQ0\td2\t0\n2\tQ0\td1\t3\n",
    b"1 0 d1 1\n2 0 d9 -1\n1 0 d2 0",  # no final newline, negative label
    "7 Q0 文書#1 1\n".encode(),
])
def test_it_reads_small_files_the_same_on_both_paths(data):
    fast, exact = both(data)
    assert fast == exact and list(fast) == list(exact)


def test_it_reads_synthetic_qrels_the_same_on_both_paths(tmp_path):
    data = make_qrels(tmp_path / "q.tsv", language="ja", count=300).read_bytes()
    fast, exact = both(data)
    assert fast == exact and sum(map(len, fast.values())) == data.count(b"\n")


@pytest.mark.shared_data
def test_it_reads_the_real_qrels_the_same_on_both_paths(shared_data):
    for path in sorted(shared_data.glob("*/qrels.*")):
        fast, exact = both(path.read_bytes())
        assert fast == exact, path


@pytest.mark.parametrize("data", [b"1\tQ0 d1\t1\n", b"1 Q0 d1 1\r\n", b"1 Q0 d1 0x1\n", b"1 Q0 d1 1\n1 Q0 d1 0\n"])
def test_it_leaves_unusual_files_to_the_per_line_reader(data):
    assert reader._read_fast(data) is None


@pytest.mark.parametrize("data", [b"1\tone\n2\ttwo words \n\n", "3\tswali la\u3000Kiswahili?\n".encode()])
def test_it_reads_topics_the_same_on_both_paths(data):
    from evaluator.io import topics

    fast = topics._read_fast(data)
    assert fast is not None and fast == topics._read_exact(data, "x")
    assert list(fast) == list(topics._read_exact(data, "x"))


@pytest.mark.shared_data
def test_it_reads_the_real_topics_the_same_on_both_paths(shared_data):
    import gzip

    from evaluator.io import topics

    for path in sorted(shared_data.glob("*/topics.*")):
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        fast = topics._read_fast(data)
        assert fast is not None and fast == topics._read_exact(data, str(path)), path
