"""What participants see of a final phase before its reveal (`Phase.before_reveal`), on every
channel: the submission page, its status endpoint, the JSON API and the CLI's --wait output.

Findings 15.1 (own Test B scores at once), 15.2 (baselines' Test B scores public) and 15.4
(a one-line run tells whether a document is relevant) are each reproduced here.
"""
from __future__ import annotations

import json

import pytest
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.competitions.models import Phase
from cupboard.submissions.models import Score
from evaluator.cli.submit import print_scores
from tests.module_rows import module_rows
from tests.personas import client_for
from tests.rules.world import TEST_B_DOCIDS, TEST_B_JUDGMENTS, build_world, submit, upload

pytestmark = pytest.mark.django_db

STATUS, OWN, EVERYTHING = Phase.BeforeReveal.STATUS, Phase.BeforeReveal.OWN, Phase.BeforeReveal.EVERYTHING


def _world():
    w = build_world()
    w.test_b_baseline = submit(w.test_b, team=None, user=w.organizer, tag="tbBaseline", baseline=True)
    return w


_worlds = module_rows({"world": _world})  # built once for the module (tests/module_rows.py)


@pytest.fixture
def world(_worlds, db):
    return _worlds.get("world", _world)


def _set_rule(world, rule: str) -> None:
    Phase.objects.filter(pk=world.test_b.pk).update(before_reveal=rule)


def _views(world, submission, persona: str) -> dict:
    """What `persona` gets of `submission` on the page, the status endpoint and the API."""
    user = getattr(world, persona)
    page = client_for(user).get(reverse("submissions:detail", args=[submission.pk]))
    status = client_for(user).get(reverse("submissions:status", args=[submission.pk]))
    headers = {"HTTP_AUTHORIZATION": f"Token {api_token_create(user=user)}"} if persona != "anonymous" else {}
    api = client_for(None).get(reverse("submissions:api_status", args=[submission.pk]), **headers)
    return {"page": page, "status": status, "api": api}


def _shown_scores(responses: dict) -> dict:
    return {name: (r.json()["scores"], r.json()["averages"]) for name, r in responses.items()
            if name != "page" and r.status_code == 200}


def _values(submission) -> list[str]:
    """The submission's scores as a participant's page would print them (3 decimals)."""
    return sorted({f"{s.value:.3f}" for s in Score.objects.filter(submission=submission) if s.value > 0})


def test_status_only_shows_a_team_no_score_of_its_own_test_b_run(world):
    _set_rule(world, STATUS)
    responses = _views(world, world.sub_a_test_b, "participant")
    assert {name: r.status_code for name, r in responses.items()} == {"page": 200, "status": 200, "api": 200}
    assert _shown_scores(responses) == {"status": ({}, {}), "api": ({}, {})}
    page = responses["page"].content.decode()
    assert "Valid and scored" in page and _values(world.sub_a_test_b)
    assert not [v for v in _values(world.sub_a_test_b) if v in page]
    assert responses["api"].json()["shown"] == "status" and responses["api"].json()["status"] == "scored"


def test_own_shows_a_team_its_scores_but_nobody_the_baselines(world):
    _set_rule(world, OWN)
    own = _views(world, world.sub_a_test_b, "participant")
    assert own["api"].json()["scores"]["sw"]["nDCG@10"] is not None
    for persona in ("anonymous", "participant", "outsider"):
        shown = _shown_scores(_views(world, world.test_b_baseline, persona))
        assert all(scores == ({}, {}) for scores in shown.values()), persona


@pytest.mark.parametrize("rule", [STATUS, OWN])
def test_baselines_follow_the_phase_rule_for_anonymous_visitors(world, rule):
    """15.2: anonymous GET /submissions/<baseline>/status/ on Test B showed its scores."""
    _set_rule(world, rule)
    status = client_for(None).get(reverse("submissions:status", args=[world.test_b_baseline.pk]))
    assert status.status_code == 200 and status.json()["scores"] == {} and status.json()["averages"] == {}
    page = client_for(None).get(reverse("submissions:detail", args=[world.test_b_baseline.pk])).content.decode()
    assert not [v for v in _values(world.test_b_baseline) if v in page]


def test_everything_and_the_reveal_show_the_scores(world, time_machine):
    _set_rule(world, EVERYTHING)
    assert _shown_scores(_views(world, world.test_b_baseline, "anonymous"))["status"][0]
    _set_rule(world, STATUS)
    time_machine.move_to(world.test_b.reveal_at, tick=False)
    for persona in ("anonymous", "participant"):
        assert _shown_scores(_views(world, world.test_b_baseline, persona))["status"][0], persona
    assert _shown_scores(_views(world, world.sub_a_test_b, "participant"))["api"][0]


def test_organizers_see_every_score_before_the_reveal(world):
    _set_rule(world, STATUS)
    for submission in (world.sub_a_test_b, world.test_b_baseline):
        assert _shown_scores(_views(world, submission, "organizer"))["api"][0]


def test_a_one_line_run_on_test_b_tells_the_participant_nothing(world, capsys):
    """15.4: `1 Q0 <judged docid> 1 10 o` scored above 0, so each run answered "is d relevant
    for q?". With the Cup's rule (status) no channel shows that score."""
    _set_rule(world, STATUS)
    docid = TEST_B_DOCIDS[(1 + 0) % 3]
    assert TEST_B_JUDGMENTS["sw"]["1"][docid] == 2
    run = submit_one_line(world, f"1 Q0 {docid} 1 10 o\n")
    assert Score.objects.filter(submission=run, subset__code="sw", metric="nDCG@10").get().value > 0  # it would tell
    responses = _views(world, run, "participant")
    assert _shown_scores(responses) == {"status": ({}, {}), "api": ({}, {})}
    page = responses["page"].content.decode()
    assert not [v for v in _values(run) if v in page] and "Valid and scored" in page
    print_scores(json.loads(responses["api"].content))  # what `evaluator submit --wait` prints
    printed = capsys.readouterr().out
    assert "valid and scored" in printed and not [v for v in _values(run) if v in printed]


def submit_one_line(world, text: str):
    from cupboard.submissions.scoring import submission_score
    from cupboard.submissions.services import submission_create

    run = submission_create(phase=world.test_b, team=world.team_a, user=world.participant, method_name="probe",
                            files=[(upload("probe.sw.txt", text.encode()), None)])
    assert submission_score(submission_id=run.pk) == "scored"
    run.refresh_from_db()
    return run
