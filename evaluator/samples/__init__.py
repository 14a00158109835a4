"""Tiny MIRACL v1.0 dev samples shipped with the package (for the demo and quick checks).

Topics and qrels of 12 Swahili and 12 Yoruba dev queries, cut unchanged from the MIRACL
release (Apache License 2.0; Zhang et al., TACL 2023, as distributed by Anserini/Pyserini),
and two made-up runs per language (`bm25`, `mdpr`) that retrieve some of the judged
passages among random ones and leave the last query out.
"""
from __future__ import annotations

from pathlib import Path

SAMPLES = Path(__file__).resolve().parent
LANGUAGES = ("sw", "yo")


def sample_path(kind: str, language: str, tag: str = "bm25") -> Path:
    """The sample file of a kind ("topics", "qrels" or "run") for a language."""
    if kind == "run":
        return SAMPLES / f"run.miracl.{tag}.{language}.dev.txt"
    return SAMPLES / f"{kind}.miracl-v1.0-{language}-dev.tsv"
