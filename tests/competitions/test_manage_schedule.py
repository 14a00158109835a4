"""A phase's visibility and reveal, and a group's reveal (the surprise schedule): audited,
leaderboards rebuilt, and nothing already public hidden again."""
import re
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions.changes import shown as changes_shown
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase
from cupboard.competitions.schedule import group_reveal_change, phase_schedule_change
from cupboard.leaderboards.models import LeaderboardRow
from tests.factories import make_qrels_release
from tests.personas import personas  # noqa: F401

INSTANT = "%Y-%m-%d %H:%M:%S"


def schedule_url(phase="test-b"):
    return reverse("competitions:manage_schedule", args=["cup", phase])


def group_url(group="surprise"):
    return reverse("competitions:manage_group", args=["cup", group])


def test_it_changes_a_phase_visibility_and_records_it_publicly(personas):
    phase = personas.competition.phases.get(slug="test-b")
    reveal_at = (timezone.now() + timedelta(days=3)).replace(microsecond=0)
    response = personas.client_for(personas.organizer).post(schedule_url(), {
        "visibility": "live", "reveal_at": reveal_at.strftime(INSTANT), "hidden_qrels": "on", "confirm": "1"})
    assert response.status_code == 302
    phase.refresh_from_db()
    assert (phase.visibility, phase.reveal_at, phase.hidden_qrels) == ("live", reveal_at, True)
    event = AuditEvent.objects.get(action=AuditEvent.Action.VISIBILITY_CHANGED)
    assert event.is_public and event.actor == personas.organizer
    assert event.details["before"]["visibility"] == "private" and event.details["after"]["visibility"] == "live"
    assert set(event.details["after"]) == {"visibility", "reveal_at"}  # hidden_qrels did not change


def test_it_records_a_hidden_qrels_change_as_a_phase_change(personas):
    phase = personas.competition.phases.get(slug="dev")
    phase_schedule_change(phase=phase, actor=personas.organizer, visibility="live", reveal_at=None, hidden_qrels=True)
    event = AuditEvent.objects.get(action=AuditEvent.Action.PHASE_CHANGED)
    assert event.details == {"phase": "dev", "phase_name": "Development", "before": {"hidden_qrels": False},
                             "after": {"hidden_qrels": True}}


def test_it_writes_nothing_when_nothing_changes(personas):
    phase = personas.competition.phases.get(slug="test-b")
    phase_schedule_change(phase=phase, actor=personas.organizer, visibility=phase.visibility,
                          reveal_at=phase.reveal_at, hidden_qrels=phase.hidden_qrels)
    assert not AuditEvent.objects.exists()


def test_it_refuses_to_hide_judgments_that_are_already_public(personas):
    phase = personas.competition.phases.get(slug="dev")
    make_qrels_release(phase, {"sw": {"1": {"d1": 1}}})
    with pytest.raises(CompetitionError) as caught:
        phase_schedule_change(phase=phase, actor=personas.organizer, visibility="live", reveal_at=None,
                              hidden_qrels=True)
    assert caught.value.code == "qrels-already-public"
    phase.refresh_from_db()
    assert not phase.hidden_qrels and not AuditEvent.objects.exists()
    response = personas.client_for(personas.organizer).post(schedule_url("dev"), {"visibility": "live",
                                                                                  "hidden_qrels": "on"})
    assert response.status_code == 400 and "qrels-already-public" in response.content.decode()


def test_it_refuses_an_unknown_visibility(personas):
    response = personas.client_for(personas.organizer).post(schedule_url(), {"visibility": "sometimes"})
    assert response.status_code == 400 and response.context["form"].errors["visibility"]
    with pytest.raises(CompetitionError) as caught:
        phase_schedule_change(phase=personas.competition.phases.get(slug="test-b"), actor=None,
                              visibility="sometimes", reveal_at=None, hidden_qrels=True)
    assert caught.value.code == "unknown-visibility"


def test_it_publishes_the_reveal_of_judgments_brought_forward(personas):
    phase = personas.competition.phases.get(slug="test-b")
    make_qrels_release(phase, {"sw": {"1": {"d1": 1}}})
    url = reverse("competitions:qrels", args=["cup", "test-b", 1, "sw"])
    assert personas.client_for(personas.outsider).get(url).status_code == 404
    phase_schedule_change(phase=phase, actor=personas.organizer, visibility="private",
                          reveal_at=timezone.now() - timedelta(minutes=1), hidden_qrels=True)
    assert personas.client_for(personas.outsider).get(url).status_code == 200
    assert AuditEvent.objects.filter(action=AuditEvent.Action.QRELS_REVEALED, is_public=True).exists()


def test_it_refreshes_the_leaderboard_of_a_changed_phase(personas):
    phase = personas.competition.phases.get(slug="test-b")
    stale = LeaderboardRow.objects.create(phase=phase, submission=_submission(personas, phase), rank=1)
    phase_schedule_change(phase=phase, actor=personas.organizer, visibility="live", reveal_at=None, hidden_qrels=True)
    assert not LeaderboardRow.objects.filter(pk=stale.pk).exists()  # rebuilt from the (absent) scores


def _submission(personas, phase):
    from cupboard.submissions.models import Submission

    return Submission.objects.create(phase=phase, team=personas.team_a, number=1, method_name="bm25",
                                     status=Submission.Status.QUEUED)


def test_it_brings_a_surprise_reveal_forward_and_participants_see_it(personas):
    cup = personas.competition
    page = personas.client_for(personas.outsider).get(cup.get_absolute_url()).content.decode()
    assert "Yoruba" not in page
    response = personas.client_for(personas.organizer).post(group_url(), {"reveal_at": "", "confirm": "1"})
    assert response.status_code == 302
    assert cup.groups.get(name="surprise").reveal_at is None
    assert "Yoruba" in personas.client_for(personas.outsider).get(cup.get_absolute_url()).content.decode()
    event = AuditEvent.objects.get(action=AuditEvent.Action.VISIBILITY_CHANGED)
    assert event.is_public and event.details["group"] == "surprise" and event.details["after"] is None
    assert "yo" not in event.summary.split() and "yo" not in str(event.details)


def test_it_postpones_a_reveal_without_naming_the_hidden_subsets(personas):
    group = personas.competition.groups.get(name="surprise")
    later = (group.reveal_at + timedelta(days=5)).replace(microsecond=0)
    response = personas.client_for(personas.organizer).post(group_url(), {"reveal_at": later.strftime(INSTANT),
                                                                            "confirm": "1"})
    assert response.status_code == 302
    group.refresh_from_db()
    assert group.reveal_at == later
    log = personas.client_for(personas.outsider).get(reverse("audit:log", args=["cup"])).content.decode()
    assert "Reveal of the surprise group" in log and "Yoruba" not in log


def test_it_refuses_to_hide_a_group_already_revealed(personas):
    group = personas.competition.groups.get(name="surprise")
    with time_machine.travel(group.reveal_at + timedelta(hours=1)):
        with pytest.raises(CompetitionError) as caught:
            group_reveal_change(group=group, actor=personas.organizer, reveal_at=timezone.now() + timedelta(days=1))
        assert caught.value.code == "group-already-revealed"
        response = personas.client_for(personas.organizer).post(group_url(), {
            "reveal_at": (timezone.now() + timedelta(days=1)).strftime(INSTANT)})
        assert response.status_code == 400 and "group-already-revealed" in response.content.decode()
        assert "<code>group-already-revealed</code>" not in response.content.decode()  # a data attribute, not text
    group.refresh_from_db()
    assert not AuditEvent.objects.exists()


def test_it_rejects_an_instant_it_cannot_read(personas):
    response = personas.client_for(personas.organizer).post(group_url(), {"reveal_at": "next tuesday"})
    assert response.status_code == 400 and response.context["form"].errors["reveal_at"]
    assert Phase.objects.exists() and not AuditEvent.objects.exists()


def test_it_changes_nothing_when_the_shown_form_is_saved_untouched(personas):
    client = personas.client_for(personas.organizer)
    for url in (schedule_url(), group_url()):
        form = client.get(url).context["form"]
        data = {name: form[name].value() for name in form.fields}
        data = {k: (v.strftime(INSTANT) if hasattr(v, "strftime") else v) for k, v in data.items() if v not in (None, False)}
        assert client.post(url, data).status_code == 302, url
    assert personas.competition.groups.get(name="surprise").reveal_at.microsecond != 0  # the case that matters
    assert not AuditEvent.objects.exists()


def test_it_sets_what_teams_see_before_the_reveal_and_says_what_each_choice_lets_them_learn(personas):
    phase = personas.competition.phases.get(slug="test-b")
    client = personas.client_for(personas.organizer)
    form = client.get(schedule_url()).content.decode()
    for plain in ("A team can tune on this phase", "a one-line run tells it whether one document is relevant",
                  "A team learns nothing about the judgments"):
        assert plain in form
    response = client.post(schedule_url(), {"visibility": phase.visibility,
                                             "reveal_at": phase.reveal_at.strftime(INSTANT),
                                             "hidden_qrels": "on" if phase.hidden_qrels else "",
                                             "before_reveal": "status", "confirm": "1"})
    assert response.status_code == 302
    phase.refresh_from_db()
    assert phase.before_reveal == Phase.BeforeReveal.STATUS
    event = AuditEvent.objects.get(action=AuditEvent.Action.PHASE_CHANGED)
    assert event.is_public and event.details["after"] == {"before_reveal": "status"}


def test_an_edit_shows_its_diff_and_applies_only_once_confirmed(personas):
    phase = personas.competition.phases.get(slug="test-b")
    reveal_at = (timezone.now() + timedelta(days=3)).replace(microsecond=0)
    client = personas.client_for(personas.organizer)
    shown = client.post(schedule_url(), {"visibility": "private", "reveal_at": reveal_at.strftime(INSTANT),
                                         "hidden_qrels": "on"})
    page = shown.content.decode()
    assert shown.status_code == 200 and "What changes" in page and "Confirm and save" in page
    assert f"phases.test-b.reveal_at: {changes_shown(phase.reveal_at)} -&gt; {changes_shown(reveal_at)}" in page
    assert "visibility" not in " ".join(str(c) for c in shown.context["changes"])  # only what moves
    phase.refresh_from_db()
    assert phase.reveal_at != reveal_at and not AuditEvent.objects.exists()  # nothing saved yet
    # The confirmation posts back exactly what was shown (hidden fields), plus `confirm`.
    hidden = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', page))
    assert hidden["reveal_at"] == reveal_at.strftime(INSTANT) and "csrfmiddlewaretoken" in hidden
    assert client.post(schedule_url(), hidden | {"confirm": "1"}).status_code == 302
    phase.refresh_from_db()
    assert (phase.reveal_at, phase.visibility, phase.hidden_qrels) == (reveal_at, "private", True)
    assert AuditEvent.objects.get(action=AuditEvent.Action.VISIBILITY_CHANGED).is_public


def test_a_group_reveal_edit_shows_its_diff_without_naming_the_subsets(personas):
    group = personas.competition.groups.get(name="surprise")
    later = (group.reveal_at + timedelta(days=2)).replace(microsecond=0)
    page = personas.client_for(personas.organizer).post(group_url(), {"reveal_at": later.strftime(INSTANT)})
    text = page.content.decode()
    assert page.status_code == 200 and f"groups.surprise.reveal_at: {changes_shown(group.reveal_at)}" in text
    group.refresh_from_db()
    assert group.reveal_at != later
