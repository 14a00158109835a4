"""Synthetic MIRACL-shaped data: deterministic, valid, and shaped like the real thing."""
import numpy as np

from evaluator.benchmarks import get_benchmark
from evaluator.io.qrels import read_qrels
from evaluator.io.runs import read_run
from evaluator.io.topics import read_topics
from evaluator.synthetic import MIRACL_TEST_B_QUERY_COUNTS, make_miracl_set, make_qrels, make_run


def test_it_carries_the_test_b_shape():
    assert sum(MIRACL_TEST_B_QUERY_COUNTS.values()) == 17_362  # x 100 = the 1.74 M lines of the issue
    assert set(MIRACL_TEST_B_QUERY_COUNTS) == set(get_benchmark("miracl").codes)


def test_it_writes_valid_miracl_shaped_files(tmp_path):
    files = make_miracl_set(tmp_path, counts={"sw": 200, "yo": 50}, depth=30)
    topics = read_topics(files["sw"]["topics"])
    qrels = read_qrels(files["sw"]["qrels"])
    run, report = read_run(files["sw"]["run"], topics=topics, docid_pattern=r"[0-9]+#[0-9]+")
    assert report.ok and len(topics) == 200 and set(qrels.qids) == set(topics)
    sizes = [len(docs) for docs in qrels.judgments.values()]
    assert 8 <= np.mean(sizes) <= 12 and min(sizes) >= 2
    assert any(0 in docs.values() for docs in qrels.judgments.values())  # judged negatives
    assert any(not any(docs.values()) for docs in qrels.judgments.values())  # nothing relevant
    codes = {w.code for w in report.warnings}
    assert {"score-ties", "missing-queries"} <= codes
    assert 180 <= report.queries < 200 and report.lines == report.queries * 30
    relevant = {(q, d) for q, docs in qrels.judgments.items() for d, label in docs.items() if label}
    found = sum((q, d) in relevant for q, d in zip(run.qids, run.docids, strict=True))
    assert found > len(relevant) / 3  # runs retrieve judged documents, so scores are not all 0
    assert "sw" in files["sw"]["run"].name and files["yo"]["qrels"].exists()


def test_it_is_deterministic_and_seeded(tmp_path):
    a = make_run(tmp_path / "a.txt", language="fi", count=40, depth=10, seed=1).read_bytes()
    b = make_run(tmp_path / "b.txt", language="fi", count=40, depth=10, seed=1).read_bytes()
    c = make_run(tmp_path / "c.txt", language="fi", count=40, depth=10, seed=2).read_bytes()
    assert a == b and a != c


def test_it_writes_gzip_when_the_name_says_so(tmp_path):
    path = make_qrels(tmp_path / "qrels.gz", language="sw", count=5)
    assert path.read_bytes()[:2] == b"\x1f\x8b" and len(read_qrels(path).qids) == 5
