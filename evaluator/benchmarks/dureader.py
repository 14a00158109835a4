"""DuReader-retrieval (Qiu et al., EMNLP 2022): several test sets in one competition.

In-domain Chinese dev/test, two out-of-domain sets (cMedQA, cCOVID-News) and a
cross-lingual set (English queries against the Chinese corpus). Qrels and topics are
TREC-like; docids are the corpus's passage ids, which have no fixed shape.
"""
from . import ALL, Benchmark, GroupSpec, SubsetSpec

BENCHMARK = Benchmark(
    key="dureader",
    title="DuReader-retrieval",
    docid_pattern=None,
    metrics=("MRR@10", "R@1", "R@50"),
    primary_metric="MRR@10",
    subsets=(
        SubsetSpec("dev", "In-domain (zh)", "test_set", "in-domain"),
        SubsetSpec("cmedqa", "cMedQA (out of domain)", "test_set", "out-of-domain"),
        SubsetSpec("ccovid", "cCOVID-News (out of domain)", "test_set", "out-of-domain"),
        SubsetSpec("en-zh", "Cross-lingual en -> zh", "pair", "cross-lingual"),
    ),
    groups=(GroupSpec("in-domain", "In-domain"), GroupSpec("out-of-domain", "OOD.Avg"),
            GroupSpec("cross-lingual", "Cross-lingual"), GroupSpec(ALL, "Avg")),
    topics_filename=r"topics\.dureader[-_.](?P<subset>dev|cmedqa|ccovid|en-zh)\.tsv",
    qrels_filename=r"qrels\.dureader[-_.](?P<subset>dev|cmedqa|ccovid|en-zh)\.tsv",
)
