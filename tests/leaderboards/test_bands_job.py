"""Rank bands after a burst of scorings: each board update publishes its row at once and marks
the bands dirty; one job recomputes them for the whole burst (leaderboards/bands.py). The page
and the JSON show the last bands, marked as being updated, until the new ones land."""
import threading

import pytest
from django.urls import reverse

from cupboard.jobs import job_claim
from cupboard.leaderboards import bands
from cupboard.leaderboards.bands import BANDS, bands_compute
from cupboard.leaderboards.models import BandsJob, LeaderboardRow
from cupboard.leaderboards.services import band_columns, leaderboard_refresh, leaderboard_update
from cupboard.leaderboards.standings import REVEALED_ALL, standings_compute
from tests.leaderboards.test_rank_bands import board, scored_with_queries  # noqa: F401 - board is a fixture
from tests.personas import build_cast, client_for
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db


def _burst(cast, phase, runs: int):
    """`runs` scorings of Team C, each better than the last, each followed by its board update."""
    team_c = cast.competition.teams.get(name="Team C")
    for k in range(runs):
        level = 0.75 + 0.05 * k
        run = scored_with_queries(phase, team=team_c, method=f"better {k}", seed=10 + k,
                                  levels={"sw": level, "te": level, "yo": 0.3})
        leaderboard_update(phase=phase, submission=run)
    return team_c


def _shown(phase) -> dict[int, dict]:
    return dict(LeaderboardRow.objects.filter(phase=phase).values_list("pk", "standings"))


def test_a_burst_sends_one_job_and_its_bands_are_those_of_the_board_after_it(
        cast, board, monkeypatch):
    sent = []
    monkeypatch.setattr(bands, "job_enqueue", lambda kind, ids: sent.append(ids))
    before = LeaderboardRow.objects.get(phase=board, team=cast.team_a).standings
    team_c = _burst(cast, board, 4)
    job = BandsJob.objects.get(phase=board)
    assert (job.status, job.wanted, job.landed, sent) == ("waiting", 4, 0, [[job.pk]]), "one job for the burst"
    # The board is published: Team C leads, with its old row's bands, marked as being updated.
    row_c = LeaderboardRow.objects.get(phase=board, team=team_c)
    assert row_c.rank == 1 and row_c.standings[REVEALED_ALL]["low"] == 2
    assert LeaderboardRow.objects.get(phase=board, team=cast.team_a).standings == before
    html = client_for(cast.outsider).get(board.get_absolute_url()).content.decode()
    assert "Bands being updated" in html
    args = [board.competition.slug, board.slug]
    assert client_for(cast.outsider).get(reverse("leaderboards:export_json", args=args)).json()["significance"]["updating"]

    assert bands_compute(job_id=job.pk) == "landed"
    job.refresh_from_db()
    assert (job.status, job.landed, job.attempts) == ("done", 4, 1) and sent == [[job.pk]]
    groups, ranked_on = band_columns(board)
    assert _shown(board) == standings_compute(phase=board, groups=groups, ranked_on=ranked_on)
    row_c.refresh_from_db()
    assert row_c.standings[REVEALED_ALL]["low"] == row_c.standings[REVEALED_ALL]["high"] == 1
    html = client_for(cast.outsider).get(board.get_absolute_url()).content.decode()
    assert "Bands being updated" not in html and 'data-tier="1"' in html
    assert not client_for(cast.outsider).get(reverse("leaderboards:export_json", args=args)).json()["significance"]["updating"]


def test_writes_during_a_computation_send_it_once_more_and_stale_results_never_land(cast, board, monkeypatch):
    sent = []
    monkeypatch.setattr(bands, "job_enqueue", lambda kind, ids: sent.append(ids))
    _burst(cast, board, 1)
    job = BandsJob.objects.get(phase=board)
    real = bands.standings_compute

    def computing_while_two_more_runs_come_in(**kwargs):
        found = real(**kwargs)
        _burst(cast, board, 2)  # marks the job again while it runs: no new message yet
        assert len(sent) == 1
        return found

    monkeypatch.setattr(bands, "standings_compute", computing_while_two_more_runs_come_in)
    assert bands_compute(job_id=job.pk) == "landed"
    job.refresh_from_db()
    assert (job.status, job.landed, job.wanted, job.attempts) == ("waiting", 1, 3, 0) and len(sent) == 2
    monkeypatch.setattr(bands, "standings_compute", real)
    # A whole rebuild lands fresher bands first: the job then stores nothing older.
    leaderboard_refresh(phase=board)
    job.refresh_from_db()
    assert job.landed == job.wanted == 3
    fresh = _shown(board)
    assert bands_compute(job_id=job.pk) == "landed" and _shown(board) == fresh
    assert BandsJob.objects.get(pk=job.pk).status == "done"


def _writes_at_the_first_step(cast, board, monkeypatch, runs: int) -> list[int]:
    """Make the job's computation see `runs` more board writes come in at its first step (a call
    of its `between`); the list returned grows by one at each step it takes."""
    real, steps = bands.standings_compute, []

    def computing(**kwargs):
        def between():
            if not steps:
                _burst(cast, board, runs)
            steps.append(1)
            kwargs_between()

        kwargs_between = kwargs["between"]
        return real(**{**kwargs, "between": between})

    monkeypatch.setattr(bands, "standings_compute", computing)
    return steps


def test_a_computation_made_stale_by_new_writes_gives_way_and_is_sent_again(cast, board, monkeypatch):
    sent = []
    monkeypatch.setattr(bands, "job_enqueue", lambda kind, ids: sent.append(ids))
    _burst(cast, board, 1)
    job = BandsJob.objects.get(phase=board)
    steps = _writes_at_the_first_step(cast, board, monkeypatch, 2)
    assert bands_compute(job_id=job.pk) == "gave-way"
    assert len(steps) == 1, "it stopped at the step that saw the writes, not at its end"
    landed_at = job.landed_at
    job.refresh_from_db()
    assert (job.status, job.landed, job.wanted, job.attempts) == ("waiting", 0, 3, 0) and sent == [[job.pk]] * 2
    assert job.landed_at == landed_at, "nothing stale landed"
    monkeypatch.setattr(bands, "standings_compute", standings_compute)
    assert bands_compute(job_id=job.pk) == "landed"
    job.refresh_from_db()
    assert (job.status, job.landed) == ("done", 3)


def test_a_computation_does_not_give_way_when_the_bands_shown_are_old(cast, board, monkeypatch):
    """A stream of writes that never pauses still gets bands every GIVE_WAY_FOR."""
    from django.utils import timezone

    monkeypatch.setattr(bands, "job_enqueue", lambda kind, ids: None)
    _burst(cast, board, 1)
    job = BandsJob.objects.get(phase=board)
    BandsJob.objects.filter(pk=job.pk).update(landed_at=timezone.now() - bands.GIVE_WAY_FOR)
    steps = _writes_at_the_first_step(cast, board, monkeypatch, 2)
    assert bands_compute(job_id=job.pk) == "landed" and len(steps) > 2
    job.refresh_from_db()
    assert (job.status, job.landed, job.wanted) == ("waiting", 1, 3)


def test_a_killed_job_is_put_back_by_the_sweep_and_its_late_write_changes_nothing(cast, board, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from cupboard.flows.jobs import jobs_sweep

    monkeypatch.setattr(bands, "job_enqueue", lambda kind, ids: None)
    _burst(cast, board, 1)
    job = BandsJob.objects.get(phase=board)
    killed = job_claim(BANDS, job.pk, now=timezone.now() - timedelta(hours=1))  # its worker then went silent
    assert killed is not None and not bands_updating_is_over(board)
    counts = jobs_sweep(now=timezone.now())
    assert counts["rank bands"]["put_back"] == 1
    assert BandsJob.objects.get(pk=job.pk).status == "waiting"
    assert bands_compute(job_id=job.pk) == "landed" and bands_updating_is_over(board)
    assert BandsJob.objects.get(pk=job.pk).attempts == 2
    assert not killed.update(status="done"), "the killed worker's claim no longer holds"


def bands_updating_is_over(phase) -> bool:
    job = BandsJob.objects.get(phase=phase)
    return job.status == "done" and job.landed == job.wanted


@pytest.mark.django_db(transaction=True)
def test_a_board_update_does_not_wait_for_a_computation_in_progress(monkeypatch):
    """The job computes outside the phase lock: while it is stuck in the statistics, another
    scoring's board update commits its row (on PostgreSQL a lock would make it wait)."""
    cast = build_cast()
    phase = cast.competition.phases.get(slug="dev")
    monkeypatch.setattr(bands, "job_enqueue", lambda kind, ids: None)
    scored_with_queries(phase, team=cast.team_a, levels={"sw": 0.7, "te": 0.7}, seed=1)
    leaderboard_refresh(phase=phase)
    _update(phase, cast.team_b, 0.5, seed=2)
    job = BandsJob.objects.get(phase=phase)
    inside, release = threading.Event(), threading.Event()
    real = bands.standings_compute

    def stuck(**kwargs):
        found = real(**kwargs)
        inside.set()
        assert release.wait(60), "the test never let the computation finish"
        return found

    monkeypatch.setattr(bands, "standings_compute", stuck)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(_in_thread(bands_compute, job_id=job.pk)))
    worker.start()
    try:
        assert inside.wait(60)
        _update(phase, cast.team_b, 0.9, seed=3)  # returns while the job is stuck
        assert LeaderboardRow.objects.get(phase=phase, team=cast.team_b).rank == 1
    finally:
        release.set()
        worker.join(60)
    wait_until(lambda: outcome, what="the job's end")
    assert outcome == ["landed"]
    job.refresh_from_db()
    assert (job.status, job.landed, job.wanted) == ("waiting", 1, 2), "sent again for the update it did not see"


def _update(phase, team, level: float, seed: int) -> None:
    run = scored_with_queries(phase, team=team, method=f"run {seed}", levels={"sw": level, "te": level}, seed=seed)
    leaderboard_update(phase=phase, submission=run)


def _in_thread(function, **kwargs):
    from django.db import connection

    try:
        return function(**kwargs)
    finally:
        connection.close()


def test_the_official_results_frozen_while_a_job_is_pending_carry_current_bands(cast, monkeypatch):
    import json
    from datetime import timedelta

    from cupboard.leaderboards.snapshots import snapshot_freeze

    monkeypatch.setattr(bands, "job_enqueue", lambda kind, ids: None)  # its worker never comes
    phase = cast.competition.phases.get(slug="test-b")
    scored_with_queries(phase, team=cast.team_a, levels={"sw": 0.7, "te": 0.7}, seed=1)
    leaderboard_refresh(phase=phase)
    _update(phase, cast.team_b, 0.9, seed=2)
    assert BandsJob.objects.get(phase=phase).landed == 0
    snapshot = snapshot_freeze(phase=phase, now=phase.reveal_at + timedelta(seconds=1))
    frozen = json.loads(snapshot.json)
    assert frozen["significance"]["updating"] is False
    assert [row["standings"]["Avg"]["rank_low"] for row in frozen["rows"]] == [1, 2]
    job = BandsJob.objects.get(phase=phase)
    assert job.landed == job.wanted == 1, "the job still to come stores nothing older"
