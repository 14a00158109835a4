"""The benchmark registry: every module's subsets, groups, metrics and file-name patterns."""
import re

import pytest

from evaluator.benchmarks import ALL, BENCHMARKS, get_benchmark
from evaluator.measures import parse_metric


@pytest.mark.parametrize("key", sorted(BENCHMARKS))
def test_it_declares_a_consistent_benchmark(key):
    b = BENCHMARKS[key]
    assert b.key == key and b.primary_metric in b.metrics
    for name in b.metrics:
        parse_metric(name)  # the scoring engine knows every official metric
    assert len(set(b.codes)) == len(b.codes)
    groups = {g.name for g in b.groups}
    assert {s.group for s in b.subsets} <= groups | {ALL}
    assert b.open_subsets or all(b.members(g) for g in groups)  # generic: subsets come with the files
    for codes in b.splits.values():
        assert set(codes) <= set(b.codes)


def test_it_splits_miracl_into_16_known_and_2_surprise_languages():
    b = get_benchmark("miracl")
    assert len(b.members("known")) == 16 and b.members("surprise") == ("de", "yo")
    assert len(b.members(ALL)) == 18 and len(b.splits["test-a"]) == 11
    assert b.gain == "label" and b.metrics == ("nDCG@10", "R@100")


def test_it_matches_published_file_names_to_subsets():
    miracl, mrtydi = get_benchmark("miracl"), get_benchmark("mrtydi")
    assert re.fullmatch(miracl.qrels_filename, "qrels.miracl-v1.0-sw-dev.tsv")["subset"] == "sw"
    assert re.fullmatch(miracl.topics_filename, "topics.miracl-v1.0-yo-test-b.tsv")["split"] == "test-b"
    assert re.fullmatch(mrtydi.topics_filename, "topics.mrtydi-v1.1-ar.test.txt.gz")["subset"] == "ar"
    assert re.fullmatch(miracl.docid_pattern, "32589#0") and not re.fullmatch(miracl.docid_pattern, "32589")


def test_it_describes_the_other_benchmarks():
    assert get_benchmark("mrtydi").metrics == ("MRR@100", "R@100") and len(get_benchmark("mrtydi").codes) == 11
    dureader = get_benchmark("dureader")
    assert dureader.codes == ("dev", "cmedqa", "ccovid", "en-zh") and dureader.docid_pattern is None
    assert dureader.subset("en-zh").kind == "pair"
    clir = get_benchmark("clirmatrix")
    assert clir.gain == "exp2" and "de-en" in clir.codes and "de-de" not in clir.codes
    assert get_benchmark("lareqa").members("mlqa-r") == tuple(f"mlqa-{c}" for c in ("ar", "de", "en", "es", "hi", "vi", "zh"))


def test_it_names_the_known_keys_for_an_unknown_one():
    with pytest.raises(KeyError, match="miracl"):
        get_benchmark("msmarco")


def test_the_registry_lists_every_benchmark_module_and_imports_none_to_list_them():
    """BENCHMARKS imports a benchmark's module when it is first asked for (score --benchmark
    generic never builds CLIRMatrix's pairs): its list of keys must name every module."""
    import pkgutil
    import subprocess
    import sys

    import evaluator.benchmarks as package

    assert set(BENCHMARKS) == {m.name for m in pkgutil.iter_modules(package.__path__)}
    script = ("import sys; from evaluator.benchmarks import BENCHMARKS; keys = sorted(BENCHMARKS); "
              "BENCHMARKS['generic']; print(sorted(m for m in sys.modules if m.startswith('evaluator.benchmarks.')))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['evaluator.benchmarks.generic']"
