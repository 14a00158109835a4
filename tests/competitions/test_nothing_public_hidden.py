"""Nothing public becomes hidden, whichever way an organizer or admin goes: the organizer
area's schedule form, a new version of the YAML file, or /admin/ (driven here with a real
client, as a superuser would).

The personas' cup started 10 days ago; dev is live and open (its leaderboard public),
test-b private until 30 days from now with hidden judgments, the surprise group revealed
in 10 days."""
from datetime import timedelta

import pytest
import time_machine
import yaml
from django.urls import reverse
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions.definition import DEFINITIONS_DIR
from cupboard.competitions.errors import CompetitionError, DefinitionError
from cupboard.competitions.models import Phase, QrelsRelease
from cupboard.competitions.schedule import phase_schedule_change
from cupboard.competitions.services import competition_load
from cupboard.submissions.models import QuotaGrant
from tests.admin_forms import admin_form_data
from tests.factories import make_phase, make_qrels_release, make_user
from tests.personas import client_for, personas  # noqa: F401

pytestmark = pytest.mark.django_db
INSTANT = "%Y-%m-%d %H:%M:%S"


@pytest.fixture
def admin_client(personas):
    return client_for(make_user("root", is_staff=True, is_superuser=True))


def _schedule(personas, slug: str, **data):
    """The organizer's edit, confirmed (a refusal is shown at the first step already)."""
    return personas.client_for(personas.organizer).post(
        reverse("competitions:manage_schedule", args=["cup", slug]), data | {"confirm": "1"})


def test_the_schedule_form_refuses_to_make_a_public_leaderboard_private(personas):
    response = _schedule(personas, "dev", visibility="private",
                         reveal_at=(timezone.now() + timedelta(days=30)).strftime(INSTANT))

    assert response.status_code == 400 and "leaderboard-already-public" in response.content.decode()
    assert personas.competition.phases.get(slug="dev").visibility == "live"
    assert not AuditEvent.objects.exists()
    anonymous = client_for(None).get(reverse("leaderboards:export_csv", args=["cup", "dev"]))
    assert anonymous.status_code == 200


def test_it_refuses_to_move_a_passed_leaderboard_reveal_into_the_future(personas):
    test_b = personas.competition.phases.get(slug="test-b")
    with time_machine.travel(test_b.reveal_at + timedelta(hours=1)):
        with pytest.raises(CompetitionError) as caught:
            phase_schedule_change(phase=test_b, actor=personas.organizer, visibility="private",
                                  reveal_at=timezone.now() + timedelta(days=300), hidden_qrels=True)
    assert caught.value.code == "leaderboard-already-public"


def test_a_live_phase_that_has_not_opened_may_still_become_private(personas):
    later = make_phase(personas.competition, slug="test-c", opens_at=timezone.now() + timedelta(days=2))
    reveal_at = (timezone.now() + timedelta(days=40)).replace(microsecond=0)

    response = _schedule(personas, "test-c", visibility="private", reveal_at=reveal_at.strftime(INSTANT))

    assert response.status_code == 302
    later.refresh_from_db()
    assert (later.visibility, later.reveal_at) == ("private", reveal_at)


def test_the_admin_shows_a_phase_schedule_read_only_and_ignores_posted_changes(personas, admin_client):
    dev = personas.competition.phases.get(slug="dev")
    url = reverse("admin:competitions_phase_change", args=[dev.pk])
    page = admin_client.get(url)
    fields = set(page.context["adminform"].form.fields)
    assert not {"visibility", "reveal_at", "hidden_qrels", "opens_at"} & fields
    assert "organizer area" in page.content.decode()

    data = admin_form_data(page) | {"visibility": "private", "reveal_at_0": "2027-01-01", "reveal_at_1": "00:00:00",
                                     "hidden_qrels": "on", "name": "Development (renamed)"}
    response = admin_client.post(url, data)

    assert response.status_code == 302
    dev.refresh_from_db()
    assert (dev.name, dev.visibility, dev.reveal_at, dev.hidden_qrels) == ("Development (renamed)", "live", None, False)


def test_the_admin_cannot_move_a_revealed_group_back_into_hiding(personas, admin_client):
    group = personas.competition.groups.get(name="surprise")
    group.reveal_at = timezone.now() - timedelta(days=1)
    group.save()
    url = reverse("admin:competitions_subsetgroup_change", args=[group.pk])
    page = admin_client.get(url)
    assert "reveal_at" not in page.context["adminform"].form.fields

    response = admin_client.post(url, admin_form_data(page) | {"reveal_at_0": "2027-01-01", "reveal_at_1": "00:00:00"})

    assert response.status_code == 302
    group.refresh_from_db()
    assert group.reveal_at < timezone.now()
    competition_page = admin_client.get(reverse("admin:competitions_competition_change", args=[personas.competition.pk]))
    assert competition_page.status_code == 200
    assert not {"starts_at", "is_published"} & set(competition_page.context["adminform"].form.fields)


def test_the_admin_cannot_move_a_revealed_language_into_a_hidden_group(personas, admin_client):
    later = personas.competition.groups.create(name="later", label="L.Avg", reveal_at=timezone.now() + timedelta(days=99))
    sw = personas.competition.subsets.get(code="sw")
    url = reverse("admin:competitions_subset_change", args=[sw.pk])

    response = admin_client.post(url, admin_form_data(admin_client.get(url)) | {"group": later.pk})

    assert response.status_code == 200 and "already revealed" in response.content.decode()
    sw.refresh_from_db()
    assert sw.group.name == "known"


def test_the_admin_cannot_delete_a_release_whose_hashes_are_published(personas, admin_client):
    release = make_qrels_release(personas.competition.phases.get(slug="test-b"), {"sw": {"1": {"d1": 1}}})
    url = reverse("admin:competitions_qrelsrelease_delete", args=[release.pk])

    assert admin_client.get(url).status_code == 403
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    changelist = admin_client.post(reverse("admin:competitions_qrelsrelease_changelist"),
                                   {"action": "delete_selected", "_selected_action": [release.pk], "post": "yes"})
    assert changelist.status_code in (200, 302)
    assert QrelsRelease.objects.filter(pk=release.pk).exists()
    commitments = client_for(None).get(reverse("competitions:commitments", args=["cup"])).content.decode()
    assert release.files.get().sha256 in commitments


def test_the_admin_deletes_an_unseen_release_through_the_audited_service(personas, admin_client):
    personas.competition.starts_at = timezone.now() + timedelta(days=5)
    personas.competition.save()
    release = make_qrels_release(personas.competition.phases.get(slug="test-b"), {"sw": {"1": {"d1": 1}}})

    response = admin_client.post(reverse("admin:competitions_qrelsrelease_delete", args=[release.pk]), {"post": "yes"})

    assert response.status_code == 302 and not QrelsRelease.objects.filter(pk=release.pk).exists()
    event = AuditEvent.objects.get(action=AuditEvent.Action.PHASE_CHANGED)
    assert event.details == {"phase": "test-b", "phase_name": "Test B (final)", "removed_release": 1} and event.actor.username == "root"


def test_the_admin_cannot_delete_a_phase_or_competition_whose_leaderboard_is_public(personas, admin_client):
    dev = personas.competition.phases.get(slug="dev")
    assert admin_client.get(reverse("admin:competitions_phase_delete", args=[dev.pk])).status_code == 403
    assert admin_client.get(reverse("admin:competitions_competition_delete",
                                    args=[personas.competition.pk])).status_code == 403
    assert Phase.objects.filter(pk=dev.pk).exists()


def test_the_admin_adds_quota_grants_through_the_audited_service(personas, admin_client):
    dev = personas.competition.phases.get(slug="dev")
    response = admin_client.post(reverse("admin:submissions_quotagrant_add"), {
        "team": personas.team_a.pk, "phase": dev.pk, "extra": 2, "day": "", "reason": "server outage"})

    assert response.status_code == 302
    grant = QuotaGrant.objects.get()
    assert (grant.extra, grant.granted_by.username) == (2, "root")
    assert AuditEvent.objects.filter(action=AuditEvent.Action.LIMIT_GRANTED, details__extra=2).exists()
    assert admin_client.get(reverse("admin:submissions_quotagrant_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:submissions_quotagrant_delete", args=[grant.pk])).status_code == 403
    other = admin_client.post(reverse("admin:submissions_quotagrant_add"), {
        "team": personas.team_a.pk, "phase": personas.other_competition.phases.first().pk, "extra": 1,
        "reason": "wrong competition"})
    assert other.status_code == 200 and QuotaGrant.objects.count() == 1


@pytest.mark.parametrize("model", ["submissions_submission", "teams_team"])
def test_the_admin_lists_teams_and_submissions_read_only(personas, admin_client, model):
    assert admin_client.get(reverse(f"admin:{model}_changelist")).status_code == 200
    assert admin_client.get(reverse(f"admin:{model}_add")).status_code == 403


def test_a_new_yaml_version_cannot_hide_what_is_public():
    data = yaml.safe_load((DEFINITIONS_DIR / "miracl-wsdm-cup.yaml").read_text())
    competition_load(data=data)  # every date of the file is in the past: all of it is public
    data["version"] += 1
    data["phases"][1]["visibility"] = "private"
    data["phases"][1]["reveal_at"] = "2099-01-01T00:00:00Z"
    data["groups"][1]["reveal_at"] = "2099-01-01T00:00:00Z"

    with pytest.raises(DefinitionError) as caught:
        competition_load(data=data)

    assert caught.value.code == "hides-public"
    assert [p.split(":")[0] for p in caught.value.problems] == ["groups[1].reveal_at", "phases[1]"]
    data["groups"][1]["reveal_at"] = "2023-01-09T00:00:00Z"
    data["phases"][1]["visibility"] = "live"
    data["groups"].append({"name": "later", "label": "L.Avg", "reveal_at": "2099-01-01T00:00:00Z"})
    data["subsets"] = [{"code": code, "group": "known"} for code in ("ar", "bn", "en", "es", "fa", "fi", "fr", "hi",
                                                                        "id", "ja", "ko", "ru", "sw", "te", "th", "zh")]
    data["subsets"] += [{"code": "de", "group": "later"}, {"code": "yo", "group": "surprise"}]
    data["published"] = False
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=data)
    assert [p.split(":")[0] for p in caught.value.problems] == ["published", "subsets[16].group"]
    assert Phase.objects.get(slug="test-a").visibility == "live"
