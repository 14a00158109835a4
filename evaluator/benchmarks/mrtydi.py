"""Mr. TyDi v1.1 (Zhang et al., MRL 2021): 11 languages, only relevant passages judged.

Unjudged documents count as non-relevant, and a query with nothing relevant in the top
100 scores 0 on MRR@100, so a run that omits a query loses it entirely.
"""
from . import ALL, Benchmark, GroupSpec, SubsetSpec

LANGUAGES = {
    "ar": "Arabic", "bn": "Bengali", "en": "English", "fi": "Finnish", "id": "Indonesian",
    "ja": "Japanese", "ko": "Korean", "ru": "Russian", "sw": "Swahili", "te": "Telugu", "th": "Thai",
}

BENCHMARK = Benchmark(
    key="mrtydi",
    title="Mr. TyDi v1.1",
    docid_pattern=r"[0-9]+#[0-9]+",
    metrics=("MRR@100", "R@100"),
    primary_metric="MRR@100",
    subsets=tuple(SubsetSpec(code, name) for code, name in LANGUAGES.items()),
    groups=(GroupSpec(ALL, "Avg"),),
    topics_filename=r"topics\.mrtydi-v1\.1-(?P<subset>[a-z]{2})\.(?P<split>train|dev|test)\.txt(?:\.gz)?",
    qrels_filename=r"qrels\.mrtydi-v1\.1-(?P<subset>[a-z]{2})\.(?P<split>train|dev|test)\.txt(?:\.gz)?",
    splits={"test": tuple(LANGUAGES), "dev": tuple(LANGUAGES)},
)
