"""Any TREC collection, as trec_eval reads it: the profile when no benchmark is named.

No subsets are declared: a file's subset is the NAME of `NAME=PATH`, else `default` for a
single unnamed qrels and run. Any docid, any run tag; trec_eval's common measures.
"""
from . import ALL, Benchmark, GroupSpec

DEFAULT_SUBSET = "default"

BENCHMARK = Benchmark(
    key="generic",
    title="Any TREC collection (trec_eval's reading)",
    docid_pattern=None,
    metrics=("AP", "nDCG@10", "R@100", "RR"),
    primary_metric="AP",
    subsets=(),
    groups=(GroupSpec(ALL, "Avg"),),
    open_subsets=True,
)
