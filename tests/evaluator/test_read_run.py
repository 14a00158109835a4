"""read_run on good input: sources (path, upload-like file object, gzip), depth cuts, order; write_run."""
import gzip
import io

import numpy as np
import pytest

from evaluator.io.runs import read_run, write_run
from evaluator.io.topics import read_topics
from evaluator.synthetic import make_run, make_topics

# Every case read by the C run reader and by the numpy/pyarrow one (tests/evaluator/conftest.py).
pytestmark = pytest.mark.usefixtures("run_reader")

LINES = b"".join(b"7 Q0 %d#0 %d %.1f bm25\n" % (i, i + 1, 10 - i * 0.5) for i in range(8))


class TestSources:
    def test_it_reads_a_path(self, tmp_path):
        (tmp_path / "a.txt").write_bytes(LINES)
        run, report = read_run(tmp_path / "a.txt")
        assert report.ok and report.lines == 8 and report.queries == 1
        assert run.tag == "bm25" and len(run) == 8

    def test_it_reads_a_binary_file_object_from_its_start(self):
        upload = io.BytesIO(LINES)
        upload.name = "uploads/run.sw.txt"
        upload.read(5)  # e.g. a checksum was taken first
        run, report = read_run(upload)
        assert report.ok and len(run) == 8
        assert report.file == "run.sw.txt"

    def test_it_detects_gzip_by_magic_bytes_not_by_name(self, tmp_path):
        (tmp_path / "run.txt").write_bytes(gzip.compress(LINES))
        run, report = read_run(tmp_path / "run.txt")
        assert report.ok and list(run.docids[:2]) == ["0#0", "1#0"]

    def test_it_reads_concatenated_gzip_members(self, tmp_path):
        (tmp_path / "run.gz").write_bytes(gzip.compress(LINES[:63]) + gzip.compress(LINES[63:]))
        run, report = read_run(tmp_path / "run.gz")
        assert report.ok and len(run) == 8

    def test_it_reports_progress(self, tmp_path):
        (tmp_path / "a.txt").write_bytes(LINES)
        calls = []
        read_run(tmp_path / "a.txt", progress=lambda done, total: calls.append((done, total)))
        assert calls == [(len(LINES), len(LINES))]


class TestDepth:
    def test_it_keeps_the_top_keep_depth_by_score_then_docid_descending(self, tmp_path):
        content = b"1 Q0 1#0 1 5 t\n1 Q0 2#0 2 9 t\n1 Q0 3#0 3 9 t\n1 Q0 4#0 4 1 t\n2 Q0 5#0 1 3 t\n"
        (tmp_path / "a.txt").write_bytes(content)
        run, report = read_run(tmp_path / "a.txt", keep_depth=2)
        assert list(zip(run.qids, run.docids, strict=True)) == [("1", "3#0"), ("1", "2#0"), ("2", "5#0")]
        assert run.scores.tolist() == [9.0, 9.0, 3.0]

    def test_it_groups_interleaved_queries(self, tmp_path):
        (tmp_path / "a.txt").write_bytes(b"1 Q0 1#0 1 5 t\n2 Q0 2#0 1 9 t\n1 Q0 3#0 2 7 t\n")
        run, _ = read_run(tmp_path / "a.txt")
        assert list(run.qids) == ["1", "1", "2"] and list(run.docids) == ["3#0", "1#0", "2#0"]


def test_it_writes_what_it_reads(tmp_path):
    path = make_run(tmp_path / "run.sw.txt", language="sw", count=30, depth=20, seed=3)
    topics = read_topics(make_topics(tmp_path / "topics.sw.tsv", language="sw", count=30, seed=3))
    run, report = read_run(path, topics=topics, docid_pattern=r"[0-9]+#[0-9]+")
    assert report.ok
    out = io.StringIO()
    write_run(run, out, tag="copy")
    again, report = read_run(io.BytesIO(out.getvalue().encode()), topics=topics)
    assert report.ok and again.tag == "copy"
    assert {w.code for w in report.warnings} <= {"score-ties", "missing-queries"}  # ranks now follow scores
    assert list(again.docids) == list(run.docids) and np.array_equal(again.scores, run.scores)


def test_it_keeps_the_same_top_k_as_a_plain_sort_when_queries_span_blocks(tmp_path, monkeypatch):
    import functools

    from evaluator.io import runs, sources

    monkeypatch.setattr(runs, "iter_blocks", functools.partial(sources.iter_blocks, block_size=1024))
    rng = np.random.default_rng(5)
    rows = [(str(rng.integers(1, 6)), f"{i}#{rng.integers(0, 3)}", float(rng.integers(0, 40))) for i in range(900)]
    (tmp_path / "a.txt").write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, d, s in rows))
    run, report = read_run(tmp_path / "a.txt", keep_depth=25)
    assert report.ok
    expected = []
    for qid in sorted({q for q, _, _ in rows}, key=[q for q, _, _ in rows].index):
        ranked = sorted((r for r in rows if r[0] == qid), key=lambda r: (r[2], r[1]), reverse=True)
        expected += [(q, d) for q, d, _ in ranked[:25]]
    assert list(zip(run.qids, run.docids, strict=True)) == expected
