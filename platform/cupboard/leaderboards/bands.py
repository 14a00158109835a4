"""Rank bands recomputed by a job, once per burst of board writes, never in a board write's way.

Bands are relative: one team's new score can move every team's band, so the whole board is
re-tested (leaderboards/standings.py), which takes seconds on a large board. Done inside each
scoring's board update, a deadline's burst of runs paid it once per run, each time holding the
phase lock that the next update waited for. Instead, a board update after a scoring
(`leaderboard_update`) publishes its row at once and calls `bands_mark`: one `BandsJob` row per
phase counts the writes that want new bands (`wanted`), and the job (a kind of cupboard.jobs,
`BANDS`) computes them for the board as it is when it starts:

- **One job per burst.** A mark sends a message only when no job is waiting or running; a job
  already waiting takes the new write with it (it reads `wanted` when it starts), and a job
  running when a write comes in is sent once more when it ends. So a burst of any size costs
  at most the computation running when it ends and one more.
- **A stale computation gives way.** Between two subsets or columns, a computation that newer
  writes have made stale stops and is sent again, so the bands of a burst's last write land one
  computation after it, not up to two (the rest of a stale one, then one more). It gives way
  only while the bands shown are younger than `GIVE_WAY_FOR`: a stream of writes that never
  pauses still gets bands that often.
- **Never blocking a board update.** The job reads and computes without the phase lock; it takes
  the lock only to store the result (a bulk UPDATE of the rows' `standings`), and only if it is
  newer than what landed (a whole rebuild may have landed fresher bands meanwhile).
- **The last bands, marked stale.** A team's new row keeps its old row's bands, so the board
  shows the last computation's until the new one lands; while `landed < wanted` the page and the
  JSON say the bands are being updated (`bands_updating`).
- **A killed job is done again.** Claim, heartbeat and fencing are the engine's: the sweep puts a
  silent job back and sends it again; a late write of the old worker changes nothing.

A whole rebuild (`leaderboard_refresh`) and the official freeze compute the bands at once, under
the lock, and call `bands_landed`: they are rare, and the freeze must publish current bands.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.jobs import JobKind, job_claim, job_enqueue
from cupboard.leaderboards.models import BandsJob
from cupboard.leaderboards.standings import PUT_OFF, standings_compute, standings_write
from cupboard.locking import locked
from cupboard.submissions.steps import open_step

logger = logging.getLogger(__name__)

# How old the bands shown may be before a computation stops giving way to newer writes.
GIVE_WAY_FOR = timedelta(minutes=5)


class _Stale(Exception):
    """Newer board writes came in while a computation ran: its bands would land stale."""


def _give_up(row: dict) -> dict:
    return {"status": BandsJob.Status.FAILED,
            "problem": f"Gave up after {row['attempts']} attempts: the worker stopped responding."}


BANDS = JobKind(
    name="rank bands", model=BandsJob, task="cupboard.leaderboards.tasks.compute_bands",
    waiting=Q(status=BandsJob.Status.WAITING), running=Q(status=BandsJob.Status.RUNNING),
    take={"status": BandsJob.Status.RUNNING}, put_back={"status": BandsJob.Status.WAITING},
    progress=lambda done, total: {}, give_up=_give_up)


def bands_mark(*, phase: Phase) -> None:
    """A board write wants new bands (called under the phase lock, in the write's transaction):
    count it, and send the job unless one is already waiting or running."""
    put_off = PUT_OFF.get()
    if put_off is not None:  # `leaderboards_retested_once`: the block's end re-tests each board once
        put_off.add(phase.pk)
        return
    job, _ = BandsJob.objects.get_or_create(phase=phase)
    send = job.status in (BandsJob.Status.DONE, BandsJob.Status.FAILED)
    BandsJob.objects.filter(pk=job.pk).update(
        wanted=F("wanted") + 1,
        **({"status": BandsJob.Status.WAITING, "queued_at": timezone.now(), "attempts": 0, "problem": ""} if send else {}))
    if send:
        job_enqueue(BANDS, [job.pk])


def bands_landed(*, phase: Phase) -> None:
    """The bands stored now (by a rebuild, under the phase lock) are those of every write so far.
    The board's job row is made here if it has none, so each later mark costs the same queries."""
    if not BandsJob.objects.filter(phase=phase).update(landed=F("wanted"), landed_at=timezone.now()):
        BandsJob.objects.create(phase=phase, landed_at=timezone.now())


def bands_updating(phase: Phase) -> bool:
    """True while the bands shown are from before the board's last writes."""
    return BandsJob.objects.filter(phase=phase, landed__lt=F("wanted")).exists()


def bands_compute(*, job_id: int) -> str:
    """The job (the task's body): "landed", "skipped" (done, gone, or held by a live worker),
    "waiting" (the phase is being re-scored: its publication rebuilds the board, bands included),
    "gave-way" (stale before it ended: sent again) or "lost-claim" (another worker took the job
    over meanwhile)."""
    claim = job_claim(BANDS, job_id)
    if claim is None:
        return "skipped"
    with claim.heartbeat():
        job = BandsJob.objects.select_related("phase__competition").get(pk=job_id)
        phase, target = job.phase, job.wanted
        if open_step(phase) is not None:
            claim.update(status=BandsJob.Status.DONE)
            return "waiting"
        try:
            found = standings_compute(phase=phase, **_columns(phase), between=lambda: _give_way(job_id, target))
        except _Stale:
            with transaction.atomic():
                if not claim.update(status=BandsJob.Status.WAITING, queued_at=timezone.now(), attempts=0):
                    return "lost-claim"
                job_enqueue(BANDS, [job_id])
            return "gave-way"
        with transaction.atomic():
            locked(Phase.objects).get(pk=phase.pk)  # what a board write holds: stored between two of them
            job = BandsJob.objects.get(pk=job_id)
            again = job.wanted > target
            ended = ({"status": BandsJob.Status.WAITING, "queued_at": timezone.now(), "attempts": 0} if again
                     else {"status": BandsJob.Status.DONE})  # attempts count per computation: reset when sent anew
            if not claim.update(**ended):
                return "lost-claim"
            if target > job.landed:
                standings_write(found)
                BandsJob.objects.filter(pk=job_id).update(landed=target, landed_at=timezone.now())
                _bump(phase)
            if again:  # writes came in while it computed: once more, for all of them
                job_enqueue(BANDS, [job_id])
    return "landed"


def _give_way(job_id: int, target: int) -> None:
    """Stop a computation for `target` writes when more came in, unless the bands shown are old."""
    job = BandsJob.objects.filter(pk=job_id).values("wanted", "landed_at").first()
    if job and job["wanted"] > target and job["landed_at"] and job["landed_at"] > timezone.now() - GIVE_WAY_FOR:
        raise _Stale


def _columns(phase: Phase) -> dict:
    from cupboard.leaderboards.services import band_columns  # services imports this module

    groups, ranked_on = band_columns(phase)
    return {"groups": groups, "ranked_on": ranked_on}


def _bump(phase: Phase) -> None:
    from cupboard.leaderboards.services import leaderboard_bump

    leaderboard_bump(phase=phase)
