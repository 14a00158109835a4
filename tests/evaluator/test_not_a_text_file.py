"""A binary file is refused once as "not a text file", not with a problem per line; a text run
with one stray NUL or Latin-1 byte still gets its line-level problem."""
import gzip
import io
import random

from evaluator.io.runs import read_run

GOOD = b"".join(b"%d Q0 d%d 1 1.0 bm25\n" % (q, q) for q in range(1, 40))


def noise(size: int) -> bytes:
    return random.Random(7).randbytes(size)


def codes(content: bytes) -> list[tuple[str, int | None]]:
    _, report = read_run(io.BytesIO(content), name="run.txt")
    return [(p.code, p.line) for p in report.errors]


def test_random_bytes_are_not_a_text_file():
    assert codes(noise(20000)) == [("not-text", None)]


def test_a_gzipped_binary_is_not_a_text_file_either():
    assert codes(gzip.compress(noise(20000))) == [("not-text", None)]


def test_the_report_counts_one_problem_not_25_plus():
    _, report = read_run(io.BytesIO(noise(5000)), name="run.txt")
    assert report.problem_count == "1" and not report.truncated


def test_a_stray_nul_in_a_text_run_is_a_line_problem():
    assert codes(GOOD + b"40 Q0 d\x0040 1 1.0 bm25\n") == [("nul-byte", 40)]


def test_a_stray_latin1_byte_in_a_text_run_is_a_line_problem():
    assert codes(GOOD + b"40 Q0 d\xe940 1 1.0 bm25\n") == [("bad-utf8", 40)]
