"""A re-score is one step per phase (submissions.RescoreStep, leaderboards/rescoring.py): the
board, its JSON, history and mails keep the scores from before while the runs are scored
again, and switch at once when the last one is finished; nothing is frozen, verified or
archived from a phase in the middle of one. Scored in-process here (the worker's body); the
same with a real worker and a polling reader: tests/e2e/test_rescore_with_a_worker.py."""
import json
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from cupboard import events
from cupboard.followups.services import carried_out_at_exit
from cupboard.leaderboards.archive import results_archive_build, results_archive_create
from cupboard.leaderboards.models import FrozenSnapshot, LeaderboardHistory, ResultsArchive
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.notifications.models import Notification
from cupboard.submissions.events import RunFinished
from cupboard.submissions.models import RescoreStep, Submission, Verification
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import phase_rescore, submission_create
from tests.factories import make_qrels_release
from tests.module_rows import module_rows
from tests.personas import client_for
from tests.submissions.conftest import JUDGMENTS, good_sw, run_bytes, scoring_world, upload

pytestmark = pytest.mark.django_db

# The same documents, other labels: every run's sw values change.
JUDGMENTS_V2 = {**JUDGMENTS, "sw": {"1": {"10#0": 2, "11#0": 0, "12#0": 1}, "2": {"20#0": 0, "21#0": 1},
                                    "3": {"30#0": 1}}}


def _run(world, *, team, user, tag: str, ranking: dict, consent: bool = True, baseline: bool = False):
    files = [(upload("run.sw.txt", run_bytes(ranking, tag=tag)), None),
             (upload("run.te.txt", run_bytes({"1": ["10#1"], "2": ["20#1"]}, tag=tag)), None)]
    submission = submission_create(phase=world.test_b, team=team, user=user, files=files, method_name=f"{tag} run",
                                   release_consent=consent, is_baseline=baseline)
    assert submission_score(submission_id=submission.pk) == "scored"
    return submission


def _scored():
    """Test B judged (v1) with two teams' runs and a baseline on its board, then judged again (v2)."""
    world = scoring_world()
    make_qrels_release(world.test_b, JUDGMENTS)
    world.a = _run(world, team=world.team_a, user=world.participant, tag="dense", ranking=good_sw())
    world.b = _run(world, team=world.team_b, user=world.outsider, tag="sparse", consent=False,
                   ranking={"1": ["12#0", "10#0", "11#0"], "2": ["20#0", "21#0"], "3": ["30#0"]})
    world.baseline = _run(world, team=None, user=world.organizer, tag="bm25", baseline=True,
                          ranking={"1": ["10#0", "12#0"], "2": ["21#0"], "3": ["30#0"]})
    leaderboard_refresh(phase=world.test_b)
    world.before = _values(world)
    make_qrels_release(world.test_b, JUDGMENTS_V2)
    return world


_steps = module_rows({"scored": _scored})  # built once for the module (tests/module_rows.py)


@pytest.fixture
def scored(_steps, db):
    return _steps.get("scored", _scored)


def _board(world) -> dict:
    url = reverse("leaderboards:export_json", args=["cup", "test-b"])
    return json.loads(client_for(world.organizer).get(url).content)


def _values(world) -> dict:
    return {(row["team"], row["method"]): row["values"]["sw"] for row in _board(world)["rows"]}


def _finish(*runs) -> None:
    for run in runs:
        assert submission_score(submission_id=run.pk) == "scored"


def test_the_board_keeps_the_old_scores_until_the_last_run_is_scored_then_switches_at_once(scored):
    history = LeaderboardHistory.objects.filter(phase=scored.test_b).count()
    mails = Notification.objects.count()
    assert phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="qrels v2") == 3
    assert _board(scored)["rescoring"] == {"step": 1, "done": 0, "total": 3}
    assert _values(scored) == scored.before and _board(scored)["qrels_version"] == 1
    _finish(scored.a, scored.b)
    board = _board(scored)
    assert board["rescoring"] == {"step": 1, "done": 2, "total": 3}, "the page says how far the step got"
    assert _values(scored) == scored.before, "no value of a finished run shows before the step is published"
    assert LeaderboardHistory.objects.filter(phase=scored.test_b).count() == history, "nothing happened yet"
    assert Notification.objects.count() == mails, "the teams' mails wait for the step"
    organizer = client_for(scored.organizer)
    page = organizer.get(reverse("leaderboards:phase", args=["cup", "test-b"])).content.decode()
    assert "This leaderboard is being re-scored, 2 of 3" in page
    desk = organizer.get(reverse("competitions:manage_scoring", args=["cup", "test-b"])).content.decode()
    assert "Re-score 1</strong> (qrels v2):\n    2 of 3 runs finished" in desk
    _finish(scored.baseline)
    after = _values(scored)
    assert "rescoring" not in _board(scored) and _board(scored)["qrels_version"] == 2
    assert set(after) == set(scored.before) and all(after[key] != scored.before[key] for key in after), \
        "every run's sw value changed with the new judgments, all in one switch"
    changes = LeaderboardHistory.objects.filter(phase=scored.test_b).order_by("pk")[history:]
    assert len({c.changed_at for c in changes}) == 1 and len(changes) == 3, "one change-set, one row per real change"
    assert Notification.objects.filter(submission__in=[scored.a, scored.b]).count() > 0
    step = RescoreStep.objects.get(phase=scored.test_b)
    assert step.outcome == RescoreStep.Outcome.PUBLISHED and step.closed_at is not None


def test_a_rejected_last_run_publishes_the_step_too(scored):
    phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="qrels v2")
    _finish(scored.a, scored.b)
    # As the worker ends a run whose file no longer validates (scoring.py): its state, then the
    # event, whose follow-ups are carried out as the block ends.
    with carried_out_at_exit():
        Submission.objects.filter(pk=scored.baseline.pk).update(status=Submission.Status.REJECTED)
        events.send(RunFinished(submission_id=scored.baseline.pk, status=Submission.Status.REJECTED))
    assert "rescoring" not in _board(scored)
    assert ("Baseline", "bm25 run") not in _values(scored), "a rejected run leaves the board with the switch"


def test_a_second_rescore_supersedes_the_open_step_and_the_board_still_shows_the_first_scores(scored):
    phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="qrels v2")
    _finish(scored.a)
    phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="asked by an organizer")
    first, second = RescoreStep.objects.filter(phase=scored.test_b).order_by("number")
    assert first.outcome == RescoreStep.Outcome.SUPERSEDED and second.total == 3
    assert _values(scored) == scored.before
    _finish(scored.a, scored.b, scored.baseline)
    assert "rescoring" not in _board(scored) and _values(scored) != scored.before


def test_a_reveal_during_a_rescore_freezes_and_archives_the_new_scores_with_every_consented_run(scored):
    phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="qrels v2")
    _finish(scored.a)
    at_reveal = scored.test_b.reveal_at + timedelta(seconds=1)
    with time_machine.travel(at_reveal, tick=False):
        final_results_release_due()
        assert not FrozenSnapshot.objects.filter(phase=scored.test_b).exists(), \
            "nothing is frozen from a phase being re-scored"
        assert not Verification.objects.filter(phase=scored.test_b).exists()
        _finish(scored.b, scored.baseline)  # the last run publishes the step, and the freeze follows it
        new = _values(scored)
    snapshot = FrozenSnapshot.objects.get(phase=scored.test_b)
    assert snapshot.scoring_version == 1 and snapshot.qrels_release_number == 2
    frozen = json.loads(snapshot.json)
    assert frozen["scoring_version"] == 1
    rounded = {key: round(values["nDCG@10"], 2) for key, values in new.items()}  # the public's digits
    assert {(r["team"], r["method"]): r["values"]["sw"]["nDCG@10"] for r in frozen["rows"]} == rounded
    assert new != scored.before
    assert Verification.objects.filter(phase=scored.test_b, reason=Verification.Reason.REVEAL).exists()
    with time_machine.travel(at_reveal + timedelta(hours=1), tick=False):
        archive = results_archive_create(phase=scored.test_b, actor=scored.organizer)
        assert results_archive_build(archive_id=archive.pk) == "done"
    archive.refresh_from_db()
    assert archive.runs == 2 and archive.scoring_version == 1  # team A (consented) and the baseline


def test_an_archive_asked_during_a_rescore_waits_for_it(scored):
    at_reveal = scored.test_b.reveal_at + timedelta(seconds=1)
    with time_machine.travel(at_reveal, tick=False):
        final_results_release_due()
        phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="qrels v2")
        archive = results_archive_create(phase=scored.test_b, actor=scored.organizer)
        assert results_archive_build(archive_id=archive.pk) == "waiting"
        archive.refresh_from_db()
        assert archive.status == ResultsArchive.Status.QUEUED and "0 of 3" in archive.status_reason
        assert archive.attempts == 0, "waiting costs no attempt"
        _finish(scored.a, scored.b, scored.baseline)
        assert results_archive_build(archive_id=archive.pk) == "done"
    archive.refresh_from_db()
    assert archive.runs == 2 and archive.scoring_version == 1


def test_a_run_stored_with_the_judgments_from_before_is_not_finished(scored):
    """A worker that claimed a run before qrels v2 stores its v1 scores, then queues it again
    (scoring.py); another worker settling in between must not publish the step."""
    phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="qrels v2")
    v1 = scored.test_b.qrels_releases.get(number=1)
    Submission.objects.filter(pk=scored.a.pk).update(status=Submission.Status.SCORED, qrels_release=v1)
    _finish(scored.b, scored.baseline)
    assert _board(scored)["rescoring"] == {"step": 1, "done": 2, "total": 3}
    assert _values(scored) == scored.before
    Submission.objects.filter(pk=scored.a.pk).update(status=Submission.Status.QUEUED)
    _finish(scored.a)
    assert "rescoring" not in _board(scored) and _values(scored) != scored.before


def test_a_run_being_scored_when_the_phase_is_rescored_is_scored_again(scored, monkeypatch):
    """"Score again" (or new topics: the same judgments) while a worker scores a run: what it
    stores is from before the step, so it goes back to the queue and the step waits for it."""
    from cupboard.submissions import scoring

    phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="qrels v2")
    _finish(scored.b, scored.baseline)
    original = scoring._score_subsets

    def rescored_meanwhile(**kwargs):
        phase_rescore(phase=scored.test_b, actor=scored.organizer, reason="asked by an organizer")
        return original(**kwargs)

    monkeypatch.setattr(scoring, "_score_subsets", rescored_meanwhile)
    assert submission_score(submission_id=scored.a.pk) == "scored"
    monkeypatch.setattr(scoring, "_score_subsets", original)
    scored.a.refresh_from_db()
    assert scored.a.status == Submission.Status.QUEUED, "stored from before the step: queued again"
    assert _board(scored)["rescoring"]["step"] == 2 and _values(scored) == scored.before
    _finish(scored.a, scored.b, scored.baseline)
    assert "rescoring" not in _board(scored) and _values(scored) != scored.before
