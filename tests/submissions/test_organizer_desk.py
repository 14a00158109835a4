"""The organizer's desk for submissions: a phase's CSV export, the scoring progress page,
quota grants for any team (from the Teams page) with errors that name the field and keep
the input."""
import csv
import io

import pytest
from django.urls import reverse

from cupboard.audit.models import AuditEvent
from cupboard.submissions.models import QuotaGrant
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import good_sw, upload


@pytest.fixture
def organizer(world):
    return client_for(world.organizer)


def submit(world, rankings, *, method="BM25", team=None, user=None):
    return submission_create(phase=world.dev, team=team or world.team_a, user=user or world.participant,
                             files=[(upload("run.sw.txt", rankings), None)], method_name=method)


def export(client, world, phase="dev"):
    response = client.get(reverse("competitions:manage_export", args=[world.competition.slug, phase]))
    text = response.content.decode()
    return response, list(csv.DictReader(io.StringIO(text)))


def test_the_export_has_every_submission_with_metadata_and_scores(world, organizer):
    scored = submit(world, good_sw(), method="=HYPERLINK(\"http://x\")")
    submission_score(submission_id=scored.pk)
    submit(world, {"1": ["10#0"]}, method="second", team=world.team_b, user=world.outsider)  # queued
    response, rows = export(organizer, world)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert [r["team"] for r in rows] == ["Team A", "Team B"]
    assert rows[0]["method"] == "'=HYPERLINK(\"http://x\")"  # kept as text by cupboard.csvexport
    assert rows[0]["status"] == "scored" and rows[1]["status"] == "queued"
    assert float(rows[0]["sw nDCG@10"]) > 0 and rows[1]["sw nDCG@10"] == ""
    assert rows[0]["members"] == "participant teammate" and rows[0]["languages"] == "sw"
    assert "yo nDCG@10" in rows[0]  # organizers see hidden languages' columns too


def test_the_export_is_a_403_for_a_participant(world):
    response = client_for(world.participant).get(reverse("competitions:manage_export", args=[world.competition.slug, "dev"]))
    assert response.status_code == 403


def test_the_scoring_page_shows_progress_and_refreshes_while_pending(world, organizer):
    first = submit(world, good_sw())
    submission_score(submission_id=first.pk)
    submit(world, {"1": ["10#0"]}, method="second")
    url = reverse("competitions:manage_scoring", args=[world.competition.slug, "dev"])
    page = organizer.get(url).content.decode()
    assert "1 of 2</strong> done (50%)" in page and 'http-equiv="refresh"' in page
    assert '<progress max="2" value="1">' in page


def test_the_scoring_page_stops_refreshing_when_done(world, organizer):
    first = submit(world, good_sw())
    submission_score(submission_id=first.pk)
    page = organizer.get(reverse("competitions:manage_scoring", args=[world.competition.slug, "dev"])).content.decode()
    assert "1 of 1</strong> done (100%)" in page and 'http-equiv="refresh"' not in page


def test_rescoring_lands_on_the_progress_page(world, organizer):
    first = submit(world, good_sw())
    submission_score(submission_id=first.pk)
    response = organizer.post(reverse("submissions:rescore", args=[world.competition.slug, "dev"]))
    assert response.url == reverse("competitions:manage_scoring", args=[world.competition.slug, "dev"])
    page = organizer.get(response.url).content.decode()
    assert "0 of 1</strong> done" in page and "queued for scoring again" in page


def test_a_grant_for_a_team_that_never_submitted(world, organizer):
    url = reverse("competitions:manage_grant", args=[world.competition.slug, world.team_b.slug])
    response = organizer.post(url, {"phase": world.test_b.pk, "extra": "2", "day": "", "reason": "joined late"})
    assert response.status_code == 302 and response.url == reverse("competitions:manage_teams", args=["cup"])
    grant = QuotaGrant.objects.get()
    assert (grant.team, grant.phase, grant.extra, grant.day) == (world.team_b, world.test_b, 2, None)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.LIMIT_GRANTED).count() == 1


def test_a_bad_day_is_named_and_the_input_kept(world, organizer):
    url = reverse("competitions:manage_grant", args=[world.competition.slug, world.team_b.slug])
    response = organizer.post(url, {"phase": world.test_b.pk, "extra": "3", "day": "31/01/2026", "reason": "outage"})
    page = response.content.decode()
    assert response.status_code == 400 and not QuotaGrant.objects.exists()
    assert "Day (UTC)</label>: Give a date as YYYY-MM-DD" in page and "Day: " not in page  # the label once
    assert "needs a number of slots and a reason" not in page
    assert 'value="3"' in page and 'value="outage"' in page and 'value="31/01/2026"' in page


def test_a_bad_grant_from_a_submission_page_keeps_the_input_too(world, organizer):
    submission = submit(world, good_sw())
    response = organizer.post(reverse("submissions:grant", args=[submission.pk]),
                              {"extra": "0", "day": "2026-01-31", "reason": "outage"})
    page = response.content.decode()
    assert response.status_code == 400 and "Extra submissions</label>:" in page and 'value="outage"' in page
    assert not QuotaGrant.objects.exists()


def test_the_teams_page_links_a_grant_for_every_team(world, organizer):
    page = organizer.get(reverse("competitions:manage_teams", args=[world.competition.slug])).content.decode()
    for team in (world.team_a, world.team_b):
        assert reverse("competitions:manage_grant", args=[world.competition.slug, team.slug]) in page
    assert reverse("competitions:manage_message", args=[world.competition.slug]) in page


def test_the_grant_form_names_phases_and_the_teams_page_shows_grants(world, organizer):
    url = reverse("competitions:manage_grant", args=[world.competition.slug, world.team_b.slug])
    form = organizer.get(url).content.decode()
    assert f'<option value="{world.test_b.pk}">{world.test_b.name}</option>' in form
    assert f">{world.competition.slug}/" not in form  # Phase.__str__, the slugs it showed
    organizer.post(url, {"phase": world.test_b.pk, "extra": "2", "day": "", "reason": "joined late"})
    organizer.post(url, {"phase": world.test_b.pk, "extra": "1", "day": "2026-01-31", "reason": "outage"})
    page = organizer.get(reverse("competitions:manage_teams", args=[world.competition.slug])).content.decode()
    team_b_row = page.split(f"><bdi>{world.team_b.name}</bdi></a></td>")[1].split("</tr>")[0]
    assert 'title="extra submissions granted">+3</span>' in team_b_row
    grants = page.split('<table class="grants">')[1].split("</table>")[0]
    assert grants.count("<tr><td>") == 2 and "joined late" in grants and "the whole phase" in grants
    assert "2026-01-31 (UTC day)" in grants and world.test_b.name in grants
