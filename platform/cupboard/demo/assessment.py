"""Judging in the browser, played in the demo after the judging cycle (demo/judging.py): the
organizer names two assessors, uploads a corpus of the pooled documents of the Cup's
development pool (generated: the demo ships no passage text, so each passage is made of its
query's words and filler, from the demo's own topics), and makes two rounds of tasks:

- one language judged by both assessors (whole queries, ASSESSED_OVERLAP % of them twice),
  every passage labelled (a seeded coin, the second assessor differing now and then), the
  disagreements resolved by the organizer and a qrels version created from it, so the
  organizer's judging page shows progress, agreement and a release made of judgments;
- a second language for the first assessor alone, judged up to JUDGED_SHARE: logging in as
  `assessor` resumes it at the first passage not judged.

Through the same services as the pages.
"""
from __future__ import annotations

import io
import random
from collections.abc import Callable

from django.db import transaction

from cupboard.competitions.assessors import assessor_add
from cupboard.competitions.models import Phase
from cupboard.judging.assessment import corpus_text, corpus_upload, item_label, judging_round_create, phase_topics
from cupboard.judging.judgments import qrels_version_create, resolution_set, round_passages
from cupboard.judging.models import PoolExport
from cupboard.judging.pools import pool_member

from .judging import rescore_in_process

ASSESSED_OVERLAP = 20
JUDGED_SHARE = 0.4
RELEVANT_SHARE = 0.2
DIFFERING_SHARE = 0.15
FILLER = ("according to the records", "in the early years", "the region is known for", "later studies showed",
          "as described by local sources", "in the following decades")


def demo_assessment(*, phase: Phase, organizer, assessors: list, seed: int, log: Callable[[str], None]) -> None:
    """See the module docstring; `assessors` are two accounts, the first the one documented."""
    for person in assessors:
        assessor_add(competition=phase.competition, username=person.username, actor=organizer)
    export = phase.pool_exports.filter(status=PoolExport.Status.DONE).order_by("-created_at").first()
    codes = [c["code"] for c in (export.counts if export else []) if c["documents"]][:2]
    if not codes:
        log(f"{phase}: no pool to judge in the browser")
        return
    rng = random.Random(seed)
    topics = phase_topics(phase)
    for code in codes:
        _corpus(phase, export, code, topics.get(code, {}), rng, organizer)
    first = judging_round_create(export=export, assessors={codes[0]: assessors}, overlap=ASSESSED_OVERLAP,
                                 actor=organizer)
    _judge(first, rng, share=1.0)
    with transaction.atomic():  # one commit for the ~50 resolutions, as for the labels
        for passage in round_passages(first):
            if passage.disputed:
                resolution_set(judging_round=first, code=passage.code, qid=passage.qid, docid=passage.docid,
                               label=max(passage.given), actor=organizer)
    release = qrels_version_create(judging_round=first, actor=organizer)
    rescore_in_process(phase)
    log(f"{phase}: {codes[0]} judged in the browser by {', '.join(a.username for a in assessors)}: qrels v{release.number}")
    if len(codes) > 1:
        second = judging_round_create(export=export, assessors={codes[1]: assessors[:1]}, overlap=0, actor=organizer)
        _judge(second, rng, share=JUDGED_SHARE)
        log(f"{phase}: {codes[1]} half judged by {assessors[0].username}, to resume")


def _corpus(phase: Phase, export: PoolExport, code: str, topics: dict, rng: random.Random, organizer) -> None:
    from evaluator.io.corpus import Passage

    rows = [line.split("\t") for line in (pool_member(export, code) or b"").decode().splitlines()[1:]]
    passages = []
    for qid, _, docid in rows:
        words = topics.get(qid, "").split()
        text = f"{' '.join(rng.sample(words, k=min(len(words), 3)))} {rng.choice(FILLER)}, {' '.join(words)}."
        passages.append(Passage(docid, f"Article {docid.split('#')[0]}", text))
    handle = io.BytesIO(corpus_text(passages))
    subset = phase.competition.subsets.get(code=code)
    corpus_upload(phase=phase, subset=subset, file=handle, name=f"corpus.demo-{code}.tsv", actor=organizer)


@transaction.atomic
def _judge(judging_round, rng: random.Random, *, share: float) -> None:
    """Label the first `share` of every task: a seeded coin, the same per passage for every
    assessor but now and then (DIFFERING_SHARE) another label. In one transaction: each of
    the ~3,000 labels committed on its own (as the page does, one per click) waited on the disk."""
    coins: dict[tuple[str, str], int] = {}
    for number, task in enumerate(judging_round.assignments.select_related("assessor").order_by("pk")):
        items = list(task.items.select_related("assignment__round__phase__competition").order_by("position"))
        for item in items[:round(len(items) * share)]:
            label = coins.setdefault((item.qid, item.docid), int(rng.random() < RELEVANT_SHARE))
            if number and rng.random() < DIFFERING_SHARE:
                label = 1 - label
            item_label(item=item, label=label, seconds=round(rng.uniform(4, 40), 1), actor=task.assessor)
