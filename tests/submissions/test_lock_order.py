"""A deadline rush on PostgreSQL: four teams upload while workers score and leaderboards are
rebuilt, all at once, in threads with their own connections. Nothing may deadlock (the lock
order of cupboard/locking.py), and afterwards every leaderboard is what its scores imply.

Before the lock order, the upload held its team row FOR UPDATE and needed a key-share lock
on the phase at COMMIT, while the refresh held the phase FOR UPDATE and needed one on the
team: PostgreSQL killed one of them with "deadlock detected".
"""
import threading
import time

import pytest
from django.db import connection

from cupboard.competitions.models import Phase
from cupboard.leaderboards.models import LeaderboardRow
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions import scoring_kind
from cupboard.submissions.models import Submission
from cupboard.submissions.quota import quota_grant
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import phase_rescore, submission_create
from tests.factories import make_team, make_user

from .conftest import upload

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

UPLOADS_PER_TEAM = 6


def _rows(phase: Phase) -> list[tuple]:
    return sorted(LeaderboardRow.objects.filter(phase=phase).values_list("submission_id", "rank", "primary_value"),
                  key=str)


class Burst:
    """Threads that each loop over one kind of work until the uploads are done; errors are kept."""

    def __init__(self):
        self.errors: list[BaseException] = []
        self.producing = 0  # upload and organizer threads still running
        self.produced = threading.Event()
        self.threads: list[threading.Thread] = []
        self.lock = threading.Lock()

    def run(self, work, *args, producer: bool = False) -> None:
        self.producing += producer

        def target():
            try:
                work(*args)
            except BaseException as error:  # noqa: BLE001 - reported by the test
                self.errors.append(error)
            finally:
                connection.close()  # each thread had its own connection
                if producer:
                    with self.lock:
                        self.producing -= 1
                        if not self.producing:
                            self.produced.set()
        self.threads.append(threading.Thread(target=target))

    def join(self) -> None:
        for thread in self.threads:
            thread.start()
        for thread in self.threads:
            thread.join(timeout=300)


def test_uploads_scoring_refreshes_rescores_and_grants_at_once_never_deadlock(world, monkeypatch):
    monkeypatch.setattr(scoring_kind, "submissions_send", lambda submission_ids: 0)  # the threads below are the workers
    Phase.objects.filter(pk=world.dev.pk).update(daily_limit=None, total_limit=None)
    dev = Phase.objects.get(pk=world.dev.pk)
    members = [(world.team_a, world.participant), (world.team_b, world.outsider)]
    for n in range(2):
        user = make_user(f"rusher{n}")
        members.append((make_team(world.competition, name=f"Rush {n}", members=[user]), user))
    burst = Burst()

    def uploads(team, user):
        for n in range(UPLOADS_PER_TEAM):
            run = {"1": [f"9{team.pk}0{n}#0", "10#0", "11#0"], "2": ["20#0"], "3": ["30#0"]}
            submission_create(phase=dev, team=team, user=user, method_name=f"m{n}",
                              files=[(upload("run.sw.txt", run), None)])

    def worker():
        while not burst.produced.is_set() or Submission.objects.filter(status="queued").exists():
            for pk in Submission.objects.filter(status="queued").values_list("pk", flat=True)[:3]:
                submission_score(submission_id=pk)
            time.sleep(0.01)

    def refresher():
        while not burst.produced.is_set():
            leaderboard_refresh(phase=dev)

    def organizer():
        for n in range(3):
            quota_grant(team=world.team_a, phase=dev, extra=1, day=None, reason=f"grant {n}", actor=world.organizer)
            phase_rescore(phase=dev, actor=world.organizer)
            time.sleep(0.2)

    for team, user in members:
        burst.run(uploads, team, user, producer=True)
    burst.run(organizer, producer=True)
    for work in (worker, worker, refresher):
        burst.run(work)
    burst.join()

    assert burst.errors == []
    assert Submission.objects.count() == len(members) * UPLOADS_PER_TEAM
    assert set(Submission.objects.values_list("status", flat=True)) == {"scored"}
    shown = _rows(dev)
    leaderboard_refresh(phase=dev)
    assert shown == _rows(dev) and len(shown) == len(members)  # up to date: one row per team
