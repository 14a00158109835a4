"""read_qrels and read_topics: tiny committed samples, damaged files, the real shared releases.
Each read with the compiled qrels reader and without it (`run_reader`: pyarrow's), so each
refusal is the per-line reader's, naming file, line and problem, whichever declined the file."""
import gzip
import subprocess
from pathlib import Path

import pytest

from evaluator.io.qrels import read_qrels
from evaluator.io.topics import read_topics
from evaluator.records import InputError

pytestmark = pytest.mark.usefixtures("run_reader")

DATA = Path(__file__).resolve().parents[1] / "data"


def test_it_reads_miracl_qrels_keeping_judged_negatives():
    qrels = read_qrels(DATA / "qrels.miracl-v1.0-sw-dev.tsv")
    assert qrels.qids == ["6", "8", "12"]
    assert qrels.judgments["6"]["32589#0"] == 1 and qrels.judgments["6"]["33690#3"] == 0


def test_it_reads_space_separated_qrels_with_a_0_column(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 d1 2\n1 0 d2 0\n")
    assert read_qrels(tmp_path / "q.txt").judgments == {"1": {"d1": 2, "d2": 0}}


def test_it_reads_gzip_topics():
    topics = read_topics(DATA / "topics.mrtydi-v1.1-ar.test.txt.gz")
    assert list(topics)[:2] == ["15513", "15514"] and all(topics.values())


@pytest.mark.parametrize("content, code, line", [
    ("1 Q0 d1\n", "columns", 1),
    ("1 Q0 d1 1\n1 Q0 d2 yes\n", "bad-label", 2),
    ("1 Q0 d1 1\n1 Q0 d1 0\n", "duplicate-judgment", 2),
    ("", "empty-file", None),
    # issue 16: empty fields made judgments and queries; a label past 64 bits crashed
    ("1 0 d1 1\n1 0  1\n1 0 d2 1\n", "columns", 2),
    ("1\t0\td1\t1\n\t0\td2\t1\n", "columns", 2),
    ("1 0 d1 1\n1  d2 1\n", "columns", 2),
    ("1 0 d1 99999999999999999999\n", "bad-label", 1),
    ("1 0 d1 1 extra\n", "columns", 1),
])
def test_it_rejects_bad_qrels_with_file_and_line(tmp_path, content, code, line):
    (tmp_path / "q.txt").write_text(content)
    with pytest.raises(InputError) as caught:
        read_qrels(tmp_path / "q.txt")
    assert [(p.code, p.line, p.file) for p in caught.value.problems] == [(code, line, str(tmp_path / "q.txt"))]


def test_it_names_the_missing_column(tmp_path):
    (tmp_path / "q.txt").write_text("1 0 d1 1\n1 0  1\n")
    with pytest.raises(InputError) as caught:
        read_qrels(tmp_path / "q.txt")
    assert caught.value.problems[0].column == 4 and "label column is missing" in caught.value.problems[0].message


def test_it_skips_comment_and_blank_lines_counting_comments_in_one_warning(tmp_path):
    (tmp_path / "q.txt").write_text("# judged by 3\n1 0 d1 1\n   \n# and by 4\n2 0 d2 0\n\n")
    qrels = read_qrels(tmp_path / "q.txt")
    assert qrels.judgments == {"1": {"d1": 1}, "2": {"d2": 0}}
    assert [(w.code, w.message[:1]) for w in qrels.warnings] == [("comment-lines", "2")]


def test_it_splits_on_runs_of_whitespace_and_warns_of_a_bom(tmp_path):
    (tmp_path / "q.txt").write_bytes(b"\xef\xbb\xbf1 \t0  d1\t 1 \r\n 2 0 d2 0\n")
    qrels = read_qrels(tmp_path / "q.txt")
    assert qrels.judgments == {"1": {"d1": 1}, "2": {"d2": 0}} and [w.code for w in qrels.warnings] == ["bom"]


@pytest.mark.parametrize("content, code, line", [
    (b"1 no tab here\n", "columns", 1),
    (b"1\tone\n1\tagain\n", "duplicate-qid", 2),
    (b"1\t\n", "empty-field", 1),
    (b"1\tone\n2\t\xff\n", "bad-utf8", 2),
])
def test_it_rejects_bad_topics_with_file_and_line(tmp_path, content, code, line):
    (tmp_path / "t.tsv").write_bytes(gzip.compress(content))
    with pytest.raises(InputError) as caught:
        read_topics(tmp_path / "t.tsv")
    assert [(p.code, p.line) for p in caught.value.problems] == [(code, line)]


def _wc(path: Path) -> int:
    cat = "zcat" if path.suffix == ".gz" else "cat"
    return int(subprocess.run(f"{cat} '{path}' | wc -l", shell=True, capture_output=True, text=True).stdout)


@pytest.mark.shared_data
def test_it_reads_every_shared_file_with_one_entry_per_line(shared_data):
    files = sorted(shared_data.glob("*/*"))
    assert len([f for f in files if "miracl" in f.name and f.name.startswith("qrels")]) == 18
    for path in files:
        if path.name.startswith("qrels"):
            assert len(read_qrels(path)) == _wc(path), path
        elif path.name.startswith("topics"):
            assert len(read_topics(path)) == _wc(path), path
