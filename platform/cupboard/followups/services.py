"""Recording follow-ups in the sender's transaction, carrying them out after it commits, retrying.

`follow_up_record` writes the row in the current transaction; once it commits, the same process
carries the row out at once (`follow_ups_carry_out`), so a board is as fresh as it was when the
handler ran from a plain `on_commit`. When that attempt fails (a deadlock, the database gone for
a moment) or the process dies first, the row waits: the stale sweep sends it to a worker after
CUPBOARD_FOLLOW_UP_RETRY_AFTER seconds, and the worker claims it with a fencing token and tries
again. The handler and the row's "done" are written in one transaction, so a follow-up whose
claim was taken over writes nothing, and one that is done is never done twice. A database
outage costs no attempt; a follow-up out of attempts is failed with its problem, logged as an
error, never dropped silently.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.module_loading import import_string

from cupboard.jobs import JobKind, job_claim, job_sweep

from . import answers
from .codec import Gone, decode, encode
from .models import FollowUp

logger = logging.getLogger(__name__)


def _give_up(row: dict) -> dict:
    problem = f"Gave up after {row['attempts']} attempts. Last problem: {row['problem'] or 'its worker stopped'}"
    return {"status": FollowUp.Status.FAILED, "problem": problem}


def _gave_up(pk: int) -> None:
    row = FollowUp.objects.get(pk=pk)
    logger.error("follow-up %s (%s after %s) failed for good: %s", pk, row.handler, row.event, row.problem)


FOLLOW_UP = JobKind(
    name="follow-up", model=FollowUp, task="cupboard.followups.tasks.carry_out",
    waiting=Q(status=FollowUp.Status.WAITING), running=Q(status=FollowUp.Status.RUNNING),
    take={"status": FollowUp.Status.RUNNING}, put_back={"status": FollowUp.Status.WAITING},
    progress=lambda done, total: {}, resend_after=lambda: settings.CUPBOARD_FOLLOW_UP_RETRY_AFTER,
    max_attempts=lambda: settings.CUPBOARD_FOLLOW_UP_ATTEMPTS, give_up=_give_up, gave_up=_gave_up)

# The follow-ups recorded inside `carried_out_at_exit()`, carried out when it ends (None: after the commit).
_collecting: ContextVar[list[int] | None] = ContextVar("cupboard_follow_ups_collecting", default=None)


def dotted(handler: Callable[[Any], object]) -> str:
    """The handler's import path: a function of a module, so that any worker finds it."""
    path = f"{handler.__module__}.{handler.__qualname__}"
    if "<" in path:
        raise ValueError(f"a follow-up's handler must be a module's function, not {path}")
    return path


def follow_up_record(*, event: str, handler: Callable[[Any], object], what: str, payload: object) -> int:
    """Write `handler(payload)` down in the current transaction, the payload (the event's
    dataclass, cupboard/events.py) as its fields, rows by their id; carried out once that commits
    (or when the enclosing `carried_out_at_exit()` ends). `event` names it, `what` it does in
    words, for the person's answer when it has to be retried. Returns its id."""
    pk = FollowUp.objects.create(event=event, handler=dotted(handler), what=what, arguments=encode(payload)).pk
    collecting = _collecting.get()
    if collecting is not None:
        collecting.append(pk)
    else:
        transaction.on_commit(partial(follow_ups_carry_out, [pk]))
    return pk


@contextmanager
def carried_out_at_exit() -> Iterator[None]:
    """A transaction whose follow-ups are carried out as soon as it ends, even inside an
    enclosing transaction (the demo's load, a test): there they run in it, as a handler called
    right after the work used to. At the top level this is exactly after the commit."""
    collected: list[int] = []
    token = _collecting.set(collected)
    try:
        with transaction.atomic():
            yield
    finally:
        _collecting.reset(token)
    follow_ups_carry_out(collected)


def follow_ups_carry_out(ids: list[int]) -> None:
    """Carry the follow-ups out now, one after the other; one that fails is left to be retried
    and never raises into the caller (the change it follows is committed)."""
    answer = answers.current()
    if answer is not None and not transaction.get_connection().in_atomic_block:
        answer.committed = True
    for pk in ids:
        outcome = follow_up_carry_out(follow_up_id=pk)
        if outcome == "retry" and answer is not None:
            answer.retrying.append(_what(pk))


def _what(pk: int) -> str:
    try:
        return FollowUp.objects.values_list("what", flat=True).get(pk=pk) or "what follows it"
    except Exception:  # noqa: BLE001 - only words for the answer
        return "what follows it"


class _ClaimLost(Exception):
    pass


def follow_up_carry_out(*, follow_up_id: int) -> str:
    """Claim the follow-up and run it (the task's body, and the first attempt right after the
    commit). Returns "done", "gone" (a row it names was deleted), "skipped" (done, or held by a
    live worker), "lost-claim" or "retry" (failed; the sweep sends it again)."""
    try:
        claim = job_claim(FOLLOW_UP, follow_up_id)
    except Exception as error:  # noqa: BLE001 - the database unreachable: the row waits for the sweep
        logger.warning("follow-up %s not claimed (%s: %s); the sweep sends it again", follow_up_id,
                       type(error).__name__, error)
        return "retry"
    if claim is None:
        return "skipped"
    row = FollowUp.objects.get(pk=follow_up_id)
    try:
        with claim.heartbeat(), transaction.atomic():
            _fault_for_tests(row, claim)
            import_string(row.handler)(decode(row.arguments))
            if not claim.update(status=FollowUp.Status.DONE, done_at=timezone.now()):
                raise _ClaimLost
    except _ClaimLost:
        return "lost-claim"
    except Gone as gone:
        claim.update(status=FollowUp.Status.DONE, done_at=timezone.now(), problem=str(gone)[:2000])
        return "gone"
    except Exception as error:  # noqa: BLE001 - retried by a worker, whatever it was
        _release(claim, row, error)
        return "retry"
    return "done"


def _release(claim, row: FollowUp, error: Exception) -> None:
    """Back to waiting with the problem; an outage spends no attempt. If even that cannot be
    written, the claim goes silent and the sweep puts the row back after the stale period."""
    logger.warning("follow-up %s (%s after %s) failed on attempt %s, retried: %s: %s", row.pk, row.handler,
                   row.event, row.attempts, type(error).__name__, error)
    outage = isinstance(error, OperationalError | InterfaceError)
    try:
        claim.update(status=FollowUp.Status.WAITING, queued_at=timezone.now(),
                     problem=f"{type(error).__name__}: {error}"[:2000],
                     **({"attempts": F("attempts") - 1} if outage else {}))
    except Exception:  # noqa: BLE001
        logger.warning("follow-up %s not released; the sweep takes it back once its claim is silent", row.pk)


def _fault_for_tests(row: FollowUp, claim) -> None:
    """CUPBOARD_FOLLOW_UP_FAULTS (a test hook, never set in production): the first attempt of a
    follow-up whose handler's name is listed meets a database error (an outage: it spends no
    attempt, so the first attempt is the one without a problem yet)."""
    names = settings.CUPBOARD_FOLLOW_UP_FAULTS
    if names and row.handler.rsplit(".", 1)[-1] in names and not row.problem:
        raise OperationalError(f"injected by CUPBOARD_FOLLOW_UP_FAULTS into {row.handler}")


def follow_ups_sweep(*, now=None) -> dict[str, int]:
    """Follow-ups whose attempt failed or whose process died sent to a worker again (beat)."""
    return job_sweep(FOLLOW_UP, now=now)
