"""Judging in the browser: a corpus for the pooled documents, a pool turned into judging
tasks, and the labels assessors give.

- `corpus_upload`: the organizer's corpus file of one subset, checked line by line while it
  streams (evaluator/io/corpus.py: errors name file, line and problem; nothing is stored on
  error), stored privately.
- `judging_round_create`: a built pool export dealt out as tasks. Per subset, whole queries go
  to the assessors named for it in turn (one person judges all of a query's passages, as
  TREC's assessors do), and `overlap` percent of the queries also to the next assessor, so
  agreement can be measured. Within a task the passages are ordered by a keyed hash of the
  round's secret seed, the query and the docid: the order a run ranked them in (or the pool
  file's) is not recoverable from the page.
- `item_label`: an assessor's label (again: a changed mind), with the seconds it took.
"""
from __future__ import annotations

import hashlib
import hmac
import io
import math
import secrets

from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import transaction
from django.utils import timezone

from cupboard.competitions.assessors import judging_labels
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase, Subset, TopicSet
from cupboard.competitions.private_files import removed_on_error
from cupboard.competitions.topic_variants import one_per_subset
from evaluator.io.topic_formats import query_text

from .models import Assignment, Corpus, JudgingItem, JudgingRound, PoolExport
from .pools import _topics, pool_member

MAX_SECONDS = 600  # a judgment left open longer than this was a pause, not work


def corpus_upload(*, phase: Phase, subset: Subset, file, name: str, actor) -> Corpus:
    """Check `file` (any binary file object; read twice, in blocks) and store it as the
    subset's corpus for `phase`. CompetitionError `invalid-corpus` lists the problems."""
    from evaluator.io.corpus import read_corpus
    from evaluator.records import InputError

    try:
        found = read_corpus(file, name=name, wanted=())
    except InputError as error:
        raise CompetitionError("invalid-corpus", "the corpus was not stored", problems=error.problems) from None
    file.seek(0)
    digest = hashlib.sha256()
    for chunk in iter(lambda: file.read(1 << 20), b""):
        digest.update(chunk)
    file.seek(0)
    with removed_on_error() as stored, transaction.atomic():
        corpus = Corpus(phase=phase, subset=subset, original_name=name, sha256=digest.hexdigest(),
                        documents=found.documents, created_by=actor)
        corpus.file.save(name, File(file), save=False)
        stored.append(corpus.file.name)
        corpus.save()
    return corpus


def phase_topics(phase: Phase) -> dict[str, dict[str, str]]:
    """{subset code: {qid: query text}} of the phase (what its pool files were made from)."""
    return _topics(phase)


def _pool_rows(export: PoolExport, code: str, topics: dict[str, str]) -> dict[str, tuple[str, list[str]]]:
    """{qid: (query text, [docids])} of one subset's pool; the query as the topics file has it
    (the pool's TSV guards spreadsheet formulas, which an assessor must not see)."""
    content = pool_member(export, code)
    result: dict[str, tuple[str, list[str]]] = {}
    for line in (content or b"").decode("utf-8").splitlines()[1:]:
        qid, query, docid = line.split("\t")
        result.setdefault(qid, (topics.get(qid, query), []))[1].append(docid)
    return result


def _passages(phase: Phase, subset: Subset, docids: set[str]) -> dict:
    from evaluator.io.corpus import read_corpus

    corpus = Corpus.objects.filter(phase=phase, subset=subset).first()
    if corpus is None:
        raise ValidationError(f"No corpus for {subset.code}: upload the passages of its pooled documents first.",
                              code="no-corpus")
    with corpus.file.open("rb") as stored:
        passages = read_corpus(stored, name=corpus.original_name, wanted=docids).passages
    missing = sorted(docids - passages.keys())
    if missing:
        raise ValidationError(f"The {subset.code} corpus {corpus.original_name} lacks {len(missing)} pooled "
                              f"document(s), e.g. {', '.join(missing[:3])}.", code="missing-passages")
    return passages


def shuffled(docids: list[str], *, seed: str, qid: str) -> list[str]:
    """The docids in the order of a keyed hash: fixed for a round, unrelated to any rank."""
    return sorted(docids, key=lambda d: hmac.new(seed.encode(), f"{qid}\t{d}".encode(), "sha256").digest())


def dealt(qids: list[str], assessors: list, overlap: int, *, seed: str) -> dict[str, list]:
    """{qid: [assessors]}: in turn, one each; `overlap` percent of the queries (rounded up,
    picked by the seed) a second, the next one in turn. One assessor: no overlap."""
    order = shuffled(qids, seed=seed, qid="")
    twice = set(order[:math.ceil(len(order) * overlap / 100)]) if len(assessors) > 1 else set()
    return {qid: [assessors[i % len(assessors)]] + ([assessors[(i + 1) % len(assessors)]] if qid in twice else [])
            for i, qid in enumerate(order)}


@transaction.atomic
def judging_round_create(*, export: PoolExport, assessors: dict[str, list], overlap: int, actor) -> JudgingRound:
    """Tasks from a built pool: `assessors` {subset code: [users]} (each one of the
    competition's assessors). ValidationError when the pool is not built, a subset has no
    corpus or it lacks a pooled document, or someone named is not an assessor."""
    phase = export.phase
    if export.status != PoolExport.Status.DONE:
        raise ValidationError("This pool is not built.", code="pool-not-built")
    if not 0 <= overlap <= 100:
        raise ValidationError("The overlap is a percentage, 0 to 100.", code="bad-overlap")
    allowed = set(phase.competition.assessors.values_list("pk", flat=True))
    chosen = {code: people for code, people in assessors.items() if people}
    if not chosen:
        raise ValidationError("Name at least one assessor for a language.", code="no-assessors")
    if any(user.pk not in allowed for people in chosen.values() for user in people):
        raise ValidationError("Only the competition's assessors judge its pools.", code="not-assessor")
    judging_round = JudgingRound.objects.create(phase=phase, export=export, overlap=overlap,
                                                seed=secrets.token_hex(16), created_by=actor)
    subsets = {s.code: s for s in phase.competition.subsets.all()}
    topics = phase_topics(phase)
    for code, people in chosen.items():
        _deal_subset(judging_round, subsets[code], people, topics.get(code, {}))
    return judging_round


def _deal_subset(judging_round: JudgingRound, subset: Subset, people: list, topics: dict[str, str]) -> None:
    pool = _pool_rows(judging_round.export, subset.code, topics)
    if not pool:
        raise ValidationError(f"The pool has nothing to judge in {subset.code}.", code="empty-pool")
    passages = _passages(judging_round.phase, subset, {d for _, docids in pool.values() for d in docids})
    tasks = {user.pk: Assignment.objects.create(round=judging_round, subset=subset, assessor=user) for user in people}
    items: dict[int, list[JudgingItem]] = {pk: [] for pk in tasks}
    for qid, who in dealt(list(pool), people, judging_round.overlap, seed=judging_round.seed).items():
        query, docids = pool[qid]
        for docid in shuffled(docids, seed=judging_round.seed, qid=qid):
            passage = passages[docid]
            for user in who:
                task_items = items[user.pk]
                task_items.append(JudgingItem(assignment=tasks[user.pk], position=len(task_items) + 1, qid=qid,
                                              query=query, docid=docid, title=passage.title, text=passage.text))
    JudgingItem.objects.bulk_create([item for task_items in items.values() for item in task_items])


def item_label(*, item: JudgingItem, label: int, seconds: float | None, actor) -> JudgingItem:
    """Store `actor`'s label of `item` (their own task's; a label the competition defines)."""
    competition = item.assignment.round.phase.competition
    if item.assignment.assessor_id != actor.pk:
        raise ValidationError("This passage is another assessor's to judge.", code="not-yours")
    if label not in {entry["value"] for entry in judging_labels(competition)}:
        raise ValidationError(f"{label} is not one of this competition's labels.", code="bad-label")
    if item.assignment.round.qrels_release_id is not None:
        raise ValidationError("These judgments are already a qrels version.", code="released")
    item.label, item.judged_at = label, timezone.now()
    item.seconds = None if seconds is None else max(0.0, min(float(seconds), MAX_SECONDS))
    # Only while it is still in this task: an organizer may have just reassigned it (reassignment.py).
    if not JudgingItem.objects.filter(pk=item.pk, assignment_id=item.assignment_id).update(
            label=item.label, judged_at=item.judged_at, seconds=item.seconds):
        raise ValidationError("This passage was just reassigned to another assessor.", code="reassigned")
    return item


def corpus_text(passages: list) -> bytes:
    """A TSV corpus of `passages` (objects with docid, title, text): the demo's and tests' files."""
    buffer = io.StringIO()
    for p in passages:
        buffer.write(f"{p.docid}\t{' '.join(p.title.split())}\t{' '.join(p.text.split())}\n")
    return buffer.getvalue().encode()


def assessor_topic_fields(phase: Phase, subset: Subset, qid: str) -> list[tuple[str, str]]:
    """(field, text) of a topic that its assessors read beside the query: the phase's
    `assessor_fields` in their order, else every field the topics file gives (a TREC topic's
    question and narrative, which TREC assessors judge against), the query itself left out."""
    topic_set = one_per_subset(TopicSet.objects.filter(phase=phase, subset=subset), phase.competition).get(subset.pk)
    if topic_set is None:
        return []
    fields = _topic_fields(topic_set).get(qid, {})
    shown = phase.assessor_fields or [name for name in fields if fields[name] != query_text(fields)]
    return [(name, fields[name]) for name in shown if fields.get(name)]


def _topic_fields(topic_set: TopicSet) -> dict[str, dict[str, str]]:
    """Every field of every topic of a topics file, read once per process for its content."""
    key = (topic_set.sha256, topic_set.file.name)
    if key not in _FIELDS:
        from evaluator.io.topics import read_topic_fields

        with topic_set.file.open("rb") as stored:
            _FIELDS.clear()  # one file at a time: an assessor judges one subset's topics
            _FIELDS[key] = read_topic_fields(stored, name=topic_set.original_name)
    return _FIELDS[key]


_FIELDS: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
