"""The audit log page: organizers read everything, anyone else only public events."""
from django.urls import reverse

from cupboard.audit.services import audit_record
from tests.personas import personas  # noqa: F401


def test_it_shows_private_events_to_organizers_only(personas):
    cup = personas.competition
    audit_record(competition=cup, actor=personas.organizer, action="limit_granted", summary="Granted 2 to Team B")
    audit_record(competition=cup, actor=None, action="qrels_revealed", summary="Judgments of Test B public",
                 is_public=True)
    url = reverse("audit:log", args=[cup.slug])
    for name in ("organizer", "staff"):
        page = personas.client_for(getattr(personas, name)).get(url).content.decode()
        assert "Granted 2 to Team B" in page and "Judgments of Test B public" in page, name
    for name in ("participant", "outsider", "anonymous", "other_organizer"):
        page = personas.client_for(getattr(personas, name)).get(url).content.decode()
        assert "Granted 2 to Team B" not in page and "Judgments of Test B public" in page, name


def test_it_404s_for_an_unknown_competition(personas):
    assert personas.client_for(personas.organizer).get(reverse("audit:log", args=["nope"])).status_code == 404
