"""Which subset a file belongs to, from its published name or LANG=PATH."""
import pytest

from evaluator.benchmarks import get_benchmark
from evaluator.io.naming import expand_inputs, split_assignment, subset_from_filename

MIRACL = get_benchmark("miracl").codes
MRTYDI = get_benchmark("mrtydi").codes


@pytest.mark.parametrize("filename, known, expected", [
    ("run.miracl.bm25.sw.dev.txt", MIRACL, "sw"),
    ("qrels.miracl-v1.0-sw-dev.tsv", MIRACL, "sw"),
    ("/data/te/topics.miracl-v1.0-te-dev.tsv", MIRACL, "te"),  # the folder does not count
    ("topics.mrtydi-v1.1-ar.test.txt.gz", MRTYDI, "ar"),
    ("qrels.mrtydi-v1.1-id.test.txt", MRTYDI, "id"),
    ("en-zh.trec", ("en", "zh", "en-zh", "dev"), "en-zh"),
    ("run.DE.txt", MIRACL, "de"),
    ("run.test.txt", MIRACL, None),  # "te" inside "test" is not a code
    ("run.sw-yo.txt", MIRACL, None),  # two codes: ambiguous
    ("run.txt", MIRACL, None),
])
def test_it_finds_the_subset_code_in_a_file_name(filename, known, expected):
    assert subset_from_filename(filename, known) == expected


@pytest.mark.parametrize("arg, expected", [
    ("sw=path/run.txt", ("sw", "path/run.txt")),
    ("en-zh=a=b.txt", ("en-zh", "a=b.txt")),
    ("path/run.txt", (None, "path/run.txt")),
    ("dir/x=y.txt", (None, "dir/x=y.txt")),
])
def test_it_splits_an_assignment(arg, expected):
    assert split_assignment(arg) == expected


def test_it_expands_directories_and_assignments(tmp_path):
    for name in ("run.miracl.bm25.sw.dev.txt", "run.miracl.bm25.yo.dev.txt", ".hidden"):
        (tmp_path / name).write_text("")
    found = expand_inputs([str(tmp_path), f"de={tmp_path / 'x.txt'}"], MIRACL)
    assert [(code, path.rsplit("/", 1)[1]) for code, path in found] == [
        ("sw", "run.miracl.bm25.sw.dev.txt"), ("yo", "run.miracl.bm25.yo.dev.txt"), ("de", "x.txt")]


def test_it_picks_files_of_one_kind_out_of_a_mixed_folder(tmp_path):
    for name in ("topics.miracl-v1.0-sw-dev.tsv", "qrels.miracl-v1.0-sw-dev.tsv", "run.miracl.bm25.sw.dev.txt"):
        (tmp_path / name).write_text("")
    assert [p.rsplit("/", 1)[1] for _, p in expand_inputs([str(tmp_path)], MIRACL, kind="qrels")] == [
        "qrels.miracl-v1.0-sw-dev.tsv"]
    assert len(expand_inputs([str(tmp_path)], MIRACL, kind="judgments")) == 3  # none named so: all
