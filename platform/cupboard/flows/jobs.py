"""Every kind of job the apps declare on the engine (cupboard.jobs), swept by one beat task.

The engine knows no app (floor 0); the apps declare their kinds beside their work. Sweeping is
the same for all of them, so one beat entry (`flows.tasks.sweep_jobs`) sweeps every kind, and
this list, the one place that names them all, is checked against every `JobKind(...)` in the
source (tests/jobs/test_engine.py): a new kind is swept as soon as it is declared here.
"""
import logging
from datetime import datetime

from cupboard.followups.services import FOLLOW_UP
from cupboard.jobs import JobKind, job_sweep
from cupboard.judging.pools import POOL_EXPORT
from cupboard.leaderboards.archive import RESULTS_ARCHIVE
from cupboard.leaderboards.bands import BANDS
from cupboard.notifications.services import NOTIFICATION
from cupboard.submissions.scoring_kind import SCORING
from cupboard.submissions.verification import VERIFICATION
from cupboard.systems.kind import EXECUTION

logger = logging.getLogger(__name__)

KINDS: tuple[JobKind, ...] = (SCORING, VERIFICATION, POOL_EXPORT, RESULTS_ARCHIVE, NOTIFICATION, FOLLOW_UP, BANDS,
                              EXECUTION)


def jobs_sweep(*, now: datetime | None = None) -> dict[str, dict[str, int]]:
    """One stale sweep of every kind; {kind: counts}. A kind whose sweep fails (its table locked
    for a moment) is logged and left to the next sweep, never in the way of the others."""
    counts = {}
    for kind in KINDS:
        try:
            counts[kind.name] = job_sweep(kind, now=now)
        except Exception:  # noqa: BLE001 - the next sweep, seconds away, tries again
            logger.exception("%s sweep failed", kind.name)
    return counts
