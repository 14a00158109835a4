"""Every rejection and warning of read_run, each on a small hand-made file: code, line, column.
Each is read with the C run reader and with the numpy/pyarrow one (`run_reader`): a fast path
only ever declines a block, and the one set of line rules (`evaluator.io.validation`) names the
line, whichever fast path declined it."""
import gzip

import pytest

from evaluator.io.runs import read_run

pytestmark = pytest.mark.usefixtures("run_reader")

TOPICS = {"1", "2", "3"}
PATTERN = r"[0-9]+#[0-9]+"
GOOD = b"1 Q0 10#0 1 3.5 bm25\n1 Q0 11#0 2 2.5 bm25\n2 Q0 12#1 1 1.0 bm25\n"


def check(tmp_path, content: bytes, **options):
    path = tmp_path / "run.miracl.test.sw.dev.txt"
    path.write_bytes(content)
    options = {"topics": TOPICS, "docid_pattern": PATTERN, **options}
    return read_run(path, **options)


def only_error(tmp_path, content: bytes, **options):
    run, report = check(tmp_path, content, **options)
    assert run is None
    assert len(report.errors) == 1, report.errors
    error = report.errors[0]
    return error.code, error.line, error.column


class TestRejections:
    def test_it_rejects_a_missing_column_naming_it(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 Q0 13#1 1 1.0\n") == ("columns", 4, 6)
        assert only_error(tmp_path, b"1 Q0  10#0   3.5 bm25\n") == ("columns", 1, 6)

    def test_it_skips_blank_and_comment_lines_with_one_warning_each(self, tmp_path):
        (tmp_path / "run.txt").write_bytes(b"1 Q0 10#0 1 3.5 bm25\n\n  \n# note\n2 Q0 12#1 1 1.0 bm25\n\n")
        run, report = read_run(tmp_path / "run.txt")
        assert report.ok and len(run) == 2
        assert [(w.code, w.line) for w in report.warnings] == [("blank-lines", 2), ("comment-lines", 4)]

    def test_it_ignores_trailing_columns_with_one_warning(self, tmp_path):
        (tmp_path / "run.txt").write_bytes(b"1 Q0 10#0 1 3.5 bm25 extra\n2 Q0 12#1 1 1.0 bm25 x y\n")
        run, report = read_run(tmp_path / "run.txt")
        assert report.ok and run.tag == "bm25" and [(w.code, w.line) for w in report.warnings] == [("extra-columns", 1)]

    def test_it_refuses_a_rank_beyond_64_bits(self, tmp_path):
        assert only_error(tmp_path, b"1 Q0 10#0 99999999999999999999 3.5 bm25\n") == ("bad-rank", 1, 4)

    def test_it_rejects_an_over_long_field(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 " + b"Q" * 101 + b" 13#1 1 1.0 bm25\n") == ("field-too-long", 4, 2)

    def test_it_rejects_a_rank_that_is_not_an_integer(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 Q0 13#1 1.0 1.0 bm25\n") == ("bad-rank", 4, 4)

    def test_it_rejects_a_hexadecimal_rank(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 Q0 13#1 0x1 1.0 bm25\n") == ("bad-rank", 4, 4)

    @pytest.mark.parametrize("score", [b"nan", b"inf", b"-Infinity", b"1_000", "１２".encode(), b"1e999", b"1,5", b"."])
    def test_it_rejects_a_score_that_is_not_a_finite_decimal(self, tmp_path, score):
        assert only_error(tmp_path, GOOD + b"3 Q0 13#1 1 " + score + b" bm25\n") == ("bad-score", 4, 5)

    def test_it_rejects_a_second_run_tag(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 Q0 13#1 1 1.0 bm26\n") == ("several-tags", 4, 6)

    @pytest.mark.parametrize("tag", [b"bm25!", b"t" * 21, "bm25é".encode()])
    def test_it_rejects_a_tag_outside_the_alphabet(self, tmp_path, tag):
        assert only_error(tmp_path, b"1 Q0 10#0 1 3.5 " + tag + b"\n") == ("bad-tag", 1, 6)

    def test_it_rejects_the_same_docid_twice_for_one_query(self, tmp_path):
        code, line, column = only_error(tmp_path, GOOD + b"1 Q0 10#0 3 0.5 bm25\n")
        assert (code, line, column) == ("duplicate-docid", 4, 3)

    def test_it_allows_the_same_docid_for_two_queries(self, tmp_path):
        run, report = check(tmp_path, GOOD + b"3 Q0 10#0 1 0.5 bm25\n")
        assert report.ok and run is not None

    def test_it_rejects_a_qid_outside_the_topics(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"4 Q0 13#1 1 1.0 bm25\n") == ("unknown-qid", 4, 1)

    def test_it_rejects_a_docid_not_matching_the_pattern(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 Q0 doc13 1 1.0 bm25\n") == ("bad-docid", 4, 3)

    def test_it_rejects_invalid_utf8(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 Q0 13#1 1 1.0 b\xffm\n", docid_pattern=None) == ("bad-utf8", 4, 6)

    def test_it_rejects_a_nul_byte(self, tmp_path):
        assert only_error(tmp_path, GOOD + b"3 Q0 13#\x001 1 1.0 bm25\n") == ("nul-byte", 4, 3)

    def test_it_rejects_a_line_over_1_kib(self, tmp_path):
        line = b"3 Q0 13#1 1 1.0 bm25" + b" " * 1010 + b"\n"
        assert only_error(tmp_path, GOOD + line) == ("line-too-long", 4, None)

    def test_it_rejects_more_than_the_allowed_depth(self, tmp_path):
        lines = b"".join(b"1 Q0 %d#0 %d %d bm25\n" % (i, i + 1, 100 - i) for i in range(6))
        assert only_error(tmp_path, lines, max_depth=5) == ("too-deep", 6, 1)

    @pytest.mark.parametrize("content", [b"", b"\xef\xbb\xbf"])
    def test_it_rejects_an_empty_file(self, tmp_path, content):
        assert only_error(tmp_path, content) == ("empty-file", None, None)

    def test_it_rejects_a_gzip_stream_that_expands_past_the_cap(self, tmp_path):
        bomb = gzip.compress(GOOD * 50_000)  # 3.3 MB of lines in a few kB
        assert only_error(tmp_path, bomb, max_bytes=1 << 20) == ("too-large", None, None)

    def test_it_rejects_a_damaged_gzip_stream(self, tmp_path):
        assert only_error(tmp_path, gzip.compress(GOOD)[:-12]) == ("bad-gzip", None, None)

    def test_it_collects_at_most_max_problems(self, tmp_path):
        run, report = check(tmp_path, b"1 Q0 10#0 1 nan bm25\n" * 40, max_problems=25)
        assert [e.line for e in report.errors] == list(range(1, 26))


class TestWarnings:
    def warnings(self, tmp_path, content: bytes):
        run, report = check(tmp_path, content)
        assert report.ok, report.errors
        return run, {(w.code, w.line, w.column) for w in report.warnings}

    def test_it_warns_about_queries_missing_from_the_run(self, tmp_path):
        _, warnings = self.warnings(tmp_path, GOOD)
        assert ("missing-queries", None, None) in warnings

    def test_it_warns_about_score_ties(self, tmp_path):
        run, warnings = self.warnings(tmp_path, b"1 Q0 10#0 1 2.0 t\n1 Q0 11#0 2 2.0 t\n")
        assert ("score-ties", 1, None) in warnings
        assert list(run.docids) == ["11#0", "10#0"]  # ties broken by docid, descending

    def test_it_warns_when_ranks_disagree_with_scores(self, tmp_path):
        run, warnings = self.warnings(tmp_path, b"1 Q0 10#0 1 1.0 t\n1 Q0 11#0 2 2.0 t\n")
        assert ("rank-order", 2, 4) in warnings
        assert list(run.docids) == ["11#0", "10#0"]  # scores win

    def test_it_accepts_a_bom_with_a_warning(self, tmp_path):
        run, warnings = self.warnings(tmp_path, b"\xef\xbb\xbf" + GOOD)
        assert ("bom", 1, None) in warnings
        assert list(run.qids) == ["1", "1", "2"]

    def test_it_accepts_crlf_with_a_warning(self, tmp_path):
        run, warnings = self.warnings(tmp_path, GOOD.replace(b"\n", b"\r\n"))
        assert ("crlf", 1, None) in warnings
        assert list(run.docids) == ["10#0", "11#0", "12#1"]

    def test_it_accepts_tabs_and_repeated_spaces(self, tmp_path):
        run, report = check(tmp_path, b"1\tQ0\t10#0\t1\t3.5\tbm25\n1  Q0 11#0 2 2.5   bm25\n")
        assert report.ok
        assert {w.code for w in report.warnings} == {"missing-queries"}
        assert list(run.scores) == [3.5, 2.5]


def test_it_stops_a_gzip_bomb_while_reading_it(tmp_path):
    import time
    import tracemalloc
    import zlib

    packer = zlib.compressobj(1, zlib.DEFLATED, 31)  # gzip framing
    line = b"1 Q0 10#0 1 3.5 bm25\n" * 50_000  # 1 MB
    bomb = b"".join(packer.compress(line) for _ in range(100)) + packer.flush()  # 100 MB inside
    (tmp_path / "bomb.gz").write_bytes(bomb)
    assert len(bomb) < 2_000_000
    tracemalloc.start()
    started = time.perf_counter()
    run, report = read_run(tmp_path / "bomb.gz", max_bytes=4 << 20)
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert run is None and [e.code for e in report.errors] in (["too-large"], ["gzip-ratio"])
    assert peak < 80 << 20 and elapsed < 3  # parsed a block or two, never inflated the 100 MB


def test_it_reports_a_file_it_cannot_open(tmp_path):
    run, report = read_run(tmp_path / "nowhere.txt")
    assert run is None and [(e.code, e.file) for e in report.errors] == [("unreadable", str(tmp_path / "nowhere.txt"))]
