"""The audit log names rows, not ids: where an entry is written, the team's name, the
submission ("Team A #1: bm25") and the phase's name go beside their ids, and the page shows
those (issue 24 item 8, "audit details show raw ids"). Entries written before still read,
their id as "id 17". A public entry tells no one about a run they may not see."""
import re

import pytest
from django.urls import reverse

from cupboard.audit.details import readable_details
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.submissions.quota import quota_grant
from cupboard.submissions.services import phase_rescore, submission_disqualify
from cupboard.teams.services import team_create
from tests.factories import make_user
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for, personas  # noqa: F401

pytestmark = pytest.mark.django_db


def _details(rows: list[dict]) -> list[tuple[str, str]]:
    return [(row["key"], row["text"]) for row in rows]


def test_a_name_is_shown_for_its_id_and_references_are_left_out():
    rows = readable_details({"team": 7, "team_name": "Harbor seals", "phase": "test-b", "phase_name": "Test B",
                             "phase_id": 3, "release": 2, "release_id": 41, "extra": 2})
    assert _details(rows) == [("team", "Harbor seals"), ("phase", "Test B"), ("extra", "2"), ("release", "2")]


def test_an_entry_written_before_names_were_kept_shows_its_ids_as_ids():
    rows = readable_details({"team": 7, "phase": 2, "submission": 12, "verification": 5, "extra": 2})
    assert _details(rows) == [("submission", "id 12"), ("team", "id 7"), ("phase", "id 2"),
                              ("verification", "id 5"), ("extra", "2")]
    assert _details(readable_details({"phase": "test-b"})) == [("phase", "test-b")]  # a slug reads as it is


def test_the_organizers_read_names_where_they_read_ids(personas):  # noqa: F811
    cup, dev = personas.competition, personas.competition.phases.get(slug="dev")
    run = make_scored(dev, team=personas.team_a, scores=ndcg(sw=0.5))
    quota_grant(team=personas.team_b, phase=dev, extra=2, day=None, reason="a broken upload", actor=personas.organizer)
    submission_disqualify(submission=run, actor=personas.organizer, reason="trained on the test topics")
    phase_rescore(phase=dev, actor=personas.organizer)
    team_create(competition=cup, user=make_user("newcomer"), name="Harbor seals")

    page = client_for(personas.organizer).get(reverse("audit:log", args=[cup.slug])).content.decode()
    details = [re.sub(r"\s+", " ", d) for d in re.findall(r'<td class="details">(.*?)</td>', page, re.S)]
    assert len(details) == 4
    created, rescored, disqualified, granted = (re.findall(r">([^<>]+)</div>", d) for d in details)  # newest first
    assert rescored == ["phase: Development", "nudged: 0", "rescored: 1", "step: 1"]  # the rows named, then the rest a-z
    assert disqualified == ["submission: Team A #1: bm25", "phase: Development", "reason: trained on the test topics"]
    assert granted == ["team: Team B", "phase: Development", "day: –", "extra: 2"]
    assert created == ["team: Harbor seals", "user: newcomer"]
    assert not re.search(r": id \d", page)


def test_a_public_entry_names_no_run_of_a_board_the_public_cannot_see(personas):  # noqa: F811
    cup = personas.competition
    hidden = make_scored(cup.phases.get(slug="test-b"), team=personas.team_a, method="secret-method")
    shown = make_scored(cup.phases.get(slug="dev"), team=personas.team_b, method="open-method")
    for run in (hidden, shown):
        submission_disqualify(submission=run, actor=personas.organizer, reason=f"broke rule {run.pk}")
    url = reverse("audit:log", args=[cup.slug])

    public = client_for(personas.anonymous).get(url).content.decode()
    assert "A submission in Test B (final) was disqualified" in public
    assert "secret-method" not in public and f"broke rule {hidden.pk}" not in public
    assert f"Disqualified Team B #1: open-method in Development: broke rule {shown.pk}" in public  # a live board
    organizers = client_for(personas.organizer).get(url).content.decode()
    assert "submission: Team A #1: secret-method" in organizers and f"reason: broke rule {hidden.pk}" in organizers
    assert AuditEvent.objects.filter(action=AuditEvent.Action.DISQUALIFIED, is_public=True).count() == 2


def test_an_old_entry_still_reads(personas):  # noqa: F811
    audit_record(competition=personas.competition, actor=personas.organizer, action=AuditEvent.Action.LIMIT_GRANTED,
                 summary="+2 submissions for Team B", details={"team": 7, "phase": 2, "extra": 2})
    page = client_for(personas.organizer).get(reverse("audit:log", args=[personas.competition.slug])).content.decode()
    assert "team: id 7" in page and "phase: id 2" in page and "extra: 2" in page


def test_a_public_rescoring_entry_counts_no_runs_of_a_board_the_public_cannot_see(personas):  # noqa: F811
    cup = personas.competition
    for slug in ("test-b", "dev"):
        make_scored(cup.phases.get(slug=slug), team=personas.team_a, method=f"run-{slug}")
        phase_rescore(phase=cup.phases.get(slug=slug), actor=personas.organizer)
    public = client_for(personas.anonymous).get(reverse("audit:log", args=[cup.slug])).content.decode()
    assert "The submissions of Test B (final) queued for scoring again" in public
    assert "scored submission(s) of Test B" not in public
    assert "1 scored submission(s) of Development queued for scoring again" in public  # a live board
    organizers = client_for(personas.organizer).get(reverse("audit:log", args=[cup.slug])).content.decode()
    assert organizers.count("rescored: 1") == 2
