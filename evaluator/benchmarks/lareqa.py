"""LAReQA (Roy et al., EMNLP 2020): language-agnostic answer retrieval.

Each question is asked in every language; the candidates are the sentences of every
language's contexts, in one pool. A question's relevant candidates are the answer
sentences of the same `qas_id` in *every* language, so "strong alignment" means those
must outrank wrong answers in the question's own language. mAP is the official metric
(it equals MRR when a question has one answer). Source data is SQuAD-style JSON per
language (XQuAD-R: 11 languages, MLQA-R: 7) with `sentences` and `sentence_breaks`.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..io.sources import Source, iter_blocks, source_name
from ..records import InputError, Problem, Qrels
from . import Benchmark, GroupSpec, SubsetSpec

XQUAD_R = ("ar", "de", "el", "en", "es", "hi", "ru", "th", "tr", "vi", "zh")
MLQA_R = ("ar", "de", "en", "es", "hi", "vi", "zh")


def _load(source: Source) -> dict[str, Any]:
    file = source_name(source)
    try:
        document: dict[str, Any] = json.loads(b"".join(iter_blocks(source, file=file)))
        return document
    except ValueError as exc:
        raise InputError([Problem("bad-json", f"not JSON: {exc}", file)]) from None


def read_squad(files: Mapping[str, Source], *, question_language: str) -> tuple[dict[str, str], Qrels, dict[str, str]]:
    """(topics, qrels, candidates) for questions in `question_language` against the pool
    of every language's sentences. Candidate ids are `LANG:ARTICLE-PARAGRAPH-SENTENCE`."""
    questions: dict[str, str] = {}
    answers: dict[str, dict[str, int]] = {}
    pool: dict[str, str] = {}
    for language, source in files.items():
        for a, article in enumerate(_load(source)["data"]):
            for p, paragraph in enumerate(article["paragraphs"]):
                breaks = paragraph["sentence_breaks"]
                for s, sentence in enumerate(paragraph["sentences"]):
                    pool[f"{language}:{a}-{p}-{s}"] = sentence
                for qa in paragraph["qas"]:
                    if language == question_language:
                        questions[qa["id"]] = qa["question"]
                    for answer in qa["answers"]:
                        hit = next((i for i, (lo, hi) in enumerate(breaks) if lo <= answer["answer_start"] < hi), None)
                        if hit is not None:
                            answers.setdefault(qa["id"], {})[f"{language}:{a}-{p}-{hit}"] = 1
    if not questions:
        raise InputError([Problem("empty-file", f"no questions in language {question_language!r}",
                                  ", ".join(files) or "<none>")])
    return questions, Qrels({q: answers.get(q, {}) for q in questions}), pool


BENCHMARK = Benchmark(
    key="lareqa",
    title="LAReQA (XQuAD-R, MLQA-R)",
    docid_pattern=None,
    metrics=("AP",),
    primary_metric="AP",
    subsets=tuple(SubsetSpec(f"xquad-{c}", f"XQuAD-R {c}", "language", "xquad-r") for c in XQUAD_R)
    + tuple(SubsetSpec(f"mlqa-{c}", f"MLQA-R {c}", "language", "mlqa-r") for c in MLQA_R),
    groups=(GroupSpec("xquad-r", "XQuAD-R"), GroupSpec("mlqa-r", "MLQA-R")),
    converters={"squad": read_squad},
)
