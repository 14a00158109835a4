"""Handing a judging round's unfinished work from one assessor to another (someone fell ill,
left, or judges too slowly for the deadline).

What moves is what is left: each of the first assessor's passages not judged yet goes to the
second assessor's task in the same language (made if they had none), after the passages it
already holds. What the first assessor judged stays theirs: their labels, times and task stay
as they were, count for agreement and progress under their name, and go into the qrels like
any other label. A passage the second assessor already has (the overlap deals some queries to
two people) is not given to them twice: the first assessor's copy is dropped, and that passage
is judged once instead of twice. A round made into a qrels version is finished: refused.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Phase
from cupboard.locking import locked

from .models import Assignment, JudgingItem, JudgingRound


@dataclass(frozen=True)
class Reassigned:
    """What a reassignment did: passages moved to the new assessor, judged ones kept by the
    first, unjudged ones dropped because the new assessor judges them already."""

    moved: int
    kept: int
    dropped: int


def judging_round_reassign(*, judging_round: JudgingRound, assessor, to, actor) -> Reassigned:
    """Give `assessor`'s passages of `judging_round` not judged yet to `to`, one of the
    competition's assessors; audited. ValidationError when the round is a qrels version
    already, `to` is not an assessor or is `assessor`, or `assessor` has nothing left to judge."""
    with transaction.atomic():
        # The phase's lock (the lock order's 3) is the one a qrels version takes: a round is
        # never made into qrels while its passages change hands, nor reassigned after.
        locked(Phase.objects.filter(pk=judging_round.phase_id)).get()
        judging_round = JudgingRound.objects.select_related("phase__competition").get(pk=judging_round.pk)
        tasks = _refuse_or_tasks(judging_round, assessor, to)
        done = Reassigned(0, 0, 0)
        for task in tasks:
            done = _hand_over(task, to, done)
        if done.moved + done.dropped == 0:
            raise ValidationError(f"{assessor.username} has judged every passage of round #{judging_round.pk}: "
                                  "nothing is left to reassign.", code="nothing-left")
        phase = judging_round.phase
        audit_record(competition=phase.competition, actor=actor, action=AuditEvent.Action.JUDGING_REASSIGNED,
                     summary=f"Judging round #{judging_round.pk} of {phase.name}: {done.moved} passage(s) left to "
                             f"{assessor.username} reassigned to {to.username}",
                     details={**named("phase", phase.slug, phase.name), "round": judging_round.pk,
                              **named("assessor", assessor.pk, assessor.username),
                              **named("reassigned_to", to.pk, to.username),
                              "moved": done.moved, "kept_judged": done.kept, "dropped_as_duplicates": done.dropped})
    return done


def _refuse_or_tasks(judging_round: JudgingRound, assessor, to) -> list[Assignment]:
    """The first assessor's tasks in the round, or the refusal that says why there is nothing to do."""
    if judging_round.qrels_release_id is not None:
        raise ValidationError(f"Round #{judging_round.pk} is finished: its judgments are already a qrels version.",
                              code="released")
    if not judging_round.phase.competition.assessors.filter(pk=to.pk).exists():
        raise ValidationError(f"{to.username} is not an assessor of this competition: name them on the Assessors "
                              "page first.", code="not-assessor")
    if to.pk == assessor.pk:
        raise ValidationError("Choose another assessor than the one whose passages these are.", code="same-assessor")
    tasks = list(judging_round.assignments.filter(assessor=assessor).select_related("subset"))
    if not tasks:
        raise ValidationError(f"{assessor.username} has no task in round #{judging_round.pk}.", code="no-task")
    return tasks


def _hand_over(task: Assignment, to, done: Reassigned) -> Reassigned:
    """One language's share: the unjudged passages of `task` appended to `to`'s task."""
    left = list(task.items.filter(label__isnull=True).order_by("position"))
    kept = task.items.filter(label__isnull=False).count()
    if not left:
        return Reassigned(done.moved, done.kept + kept, done.dropped)
    target, _ = Assignment.objects.get_or_create(round=task.round, subset=task.subset, assessor=to)
    theirs = set(target.items.values_list("qid", "docid"))
    twice = [item for item in left if (item.qid, item.docid) in theirs]
    moving = [item for item in left if (item.qid, item.docid) not in theirs]
    last = target.items.aggregate(last=Max("position"))["last"] or 0
    for offset, item in enumerate(moving, start=1):
        item.assignment, item.position = target, last + offset
    JudgingItem.objects.bulk_update(moving, ["assignment", "position"])
    JudgingItem.objects.filter(pk__in=[item.pk for item in twice]).delete()
    if not kept:
        task.delete()  # nothing of theirs is left in it: no empty task on their list
    return Reassigned(done.moved + len(moving), done.kept + kept, done.dropped + len(twice))
