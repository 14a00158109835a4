"""MIRACL v1.0 as run in the WSDM 2023 Cup: 16 known and 2 surprise languages.

Labels are binary with judged negatives; K.Avg, S.Avg and Avg are unweighted means
over languages (Zhang et al., "MIRACL", TACL 2023; WSDM Cup 2023 rules).
"""
from . import ALL, Benchmark, GroupSpec, SubsetSpec

LANGUAGES = {
    "ar": "Arabic", "bn": "Bengali", "en": "English", "es": "Spanish", "fa": "Persian",
    "fi": "Finnish", "fr": "French", "hi": "Hindi", "id": "Indonesian", "ja": "Japanese",
    "ko": "Korean", "ru": "Russian", "sw": "Swahili", "te": "Telugu", "th": "Thai",
    "zh": "Chinese", "de": "German", "yo": "Yoruba",
}
SURPRISE = ("de", "yo")
TEST_A = ("ar", "bn", "en", "fi", "id", "ja", "ko", "ru", "sw", "te", "th")
# Queries per language in the hidden test-B set (the shape the benchmark generator copies).
TEST_B_QUERY_COUNTS = {
    "ar": 1405, "bn": 1130, "en": 1790, "es": 1515, "fa": 1476, "fi": 711, "fr": 801, "hi": 819,
    "id": 611, "ja": 1141, "ko": 1417, "ru": 718, "sw": 465, "te": 793, "th": 650, "zh": 920,
    "de": 712, "yo": 288,
}

BENCHMARK = Benchmark(
    key="miracl",
    title="MIRACL (WSDM Cup 2023)",
    docid_pattern=r"[0-9]+#[0-9]+",
    metrics=("nDCG@10", "R@100"),
    primary_metric="nDCG@10",
    subsets=tuple(SubsetSpec(code, name, "language", "surprise" if code in SURPRISE else "known")
                  for code, name in LANGUAGES.items()),
    groups=(GroupSpec("known", "K.Avg"), GroupSpec("surprise", "S.Avg"), GroupSpec(ALL, "Avg")),
    topics_filename=r"topics\.miracl-v1\.0-(?P<subset>[a-z]{2})-(?P<split>dev|train|test-a|test-b)\.tsv",
    qrels_filename=r"qrels\.miracl-v1\.0-(?P<subset>[a-z]{2})-(?P<split>dev|train|test-a|test-b)\.tsv",
    splits={"dev": tuple(LANGUAGES), "test-a": TEST_A, "test-b": tuple(LANGUAGES)},
)
