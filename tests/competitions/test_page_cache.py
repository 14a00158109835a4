"""A competition's pages as anonymous visitors see them are kept whole (competitions/page_cache.py):
a repeated visit is a cache read, a change is seen at once (a reveal at its instant, a phase
opening, an edit), and nothing a signed-in person sees is ever kept for anyone else.

The personas' cup: dev live and open, test-b private until 30 days from now, the surprise
language yo revealed in 10 days."""
import gzip
import io
import zipfile
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import Competition, Phase
from tests.factories import make_phase, make_topics
from tests.personas import client_for, personas  # noqa: F401

pytestmark = pytest.mark.django_db


def _definition(slug: str = "dev") -> str:
    return reverse("submissions:api_definition", kwargs={"competition_slug": "cup", "phase_slug": slug})


def _codes(response) -> list[str]:
    return [subset["code"] for subset in response.json()["subsets"]]


def test_a_second_anonymous_visit_is_served_from_the_cache_without_a_query(personas, django_assert_num_queries):
    url = reverse("competitions:detail", args=["cup"])
    first = client_for(None).get(url)
    with django_assert_num_queries(0):
        second = client_for(None).get(url)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content and first["ETag"] == second["ETag"]
    assert "Cookie" in second["Vary"]
    assert client_for(None).get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def _with_topics(personas) -> None:
    dev = personas.competition.phases.get(slug="dev")
    for code in ("sw", "te", "yo"):
        make_topics(dev, code, {"1": f"a query in {code}"})


def test_a_gzip_answer_is_the_page_compressed(personas):
    _with_topics(personas)
    url = reverse("competitions:how_to_submit", args=["cup"])
    plain = client_for(None).get(url)
    packed = client_for(None).get(url, HTTP_ACCEPT_ENCODING="gzip, br")
    assert packed["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.content) == plain.content
    archive = client_for(None).get(reverse("competitions:sample_submission", args=["cup", "dev"]),
                                   HTTP_ACCEPT_ENCODING="gzip")
    assert not archive.has_header("Content-Encoding")  # a zip is sent as it is
    assert zipfile.ZipFile(io.BytesIO(archive.content)).namelist()


def test_a_surprise_language_is_served_at_its_reveal_and_not_a_moment_before(personas):
    reveal_at = personas.competition.groups.get(name="surprise").reveal_at
    zip_url = reverse("competitions:sample_submission", args=["cup", "dev"])
    _with_topics(personas)
    with time_machine.travel(reveal_at - timedelta(seconds=1), tick=False):
        assert _codes(client_for(None).get(_definition())) == ["sw", "te"]
        before = zipfile.ZipFile(io.BytesIO(client_for(None).get(zip_url).content)).namelist()
        assert "yo" not in client_for(None).get(reverse("competitions:detail", args=["cup"])).content.decode()
    with time_machine.travel(reveal_at, tick=False):
        assert _codes(client_for(None).get(_definition())) == ["sw", "te", "yo"]
        after = zipfile.ZipFile(io.BytesIO(client_for(None).get(zip_url).content)).namelist()
    assert len(after) == len(before) + 1


def test_an_organizers_view_is_never_kept_for_anyone_else(personas):
    url = reverse("competitions:detail", args=["cup"])
    assert "Yoruba" in client_for(personas.organizer).get(url).content.decode()
    assert "Yoruba" not in client_for(None).get(url).content.decode()
    assert "Yoruba" in client_for(personas.organizer).get(url).content.decode()


def test_a_draft_stays_hidden_from_visitors_after_its_organizer_opened_it(personas):
    Competition.objects.filter(pk=personas.competition.pk).update(is_published=False)
    url = reverse("competitions:detail", args=["cup"])
    assert client_for(personas.organizer).get(url).status_code == 200
    assert client_for(None).get(url).status_code == 404
    Competition.objects.filter(pk=personas.competition.pk).update(is_published=True)
    assert client_for(None).get(url).status_code == 200


def test_a_phase_opening_is_served_at_its_instant(personas):
    opens_at = (timezone.now() + timedelta(days=2)).replace(microsecond=0)
    make_phase(personas.competition, slug="test-c", name="Third round", opens_at=opens_at)
    url = reverse("competitions:how_to_submit", args=["cup"])
    with time_machine.travel(opens_at - timedelta(seconds=1), tick=False):
        before = client_for(None).get(url).content.decode()
    with time_machine.travel(opens_at, tick=False):
        after = client_for(None).get(url).content.decode()
    assert before != after


def test_an_edit_is_seen_at_once(personas):
    url = reverse("competitions:detail", args=["cup"])
    assert "Cup cup" in client_for(None).get(url).content.decode()
    competition = personas.competition
    competition.title = "The Renamed Cup"
    competition.save()
    assert "The Renamed Cup" in client_for(None).get(url).content.decode()
    assert "The Renamed Cup" in client_for(None).get(reverse("competitions:list")).content.decode()


def test_a_schedule_changed_without_a_signal_is_seen_within_the_kept_states_second(personas):
    """A bulk update sends no signal: the phases' columns are part of the key all the same,
    seen once this process's kept state is older than CUPBOARD_BOARD_STATE_SECONDS."""
    url = reverse("leaderboards:competition", args=["cup"])
    board = reverse("leaderboards:phase", args=["cup", "test-b"])
    assert board not in client_for(None).get(url).content.decode()
    Phase.objects.filter(competition=personas.competition, slug="test-b").update(visibility=Phase.Visibility.LIVE)
    with time_machine.travel(timezone.now() + timedelta(seconds=settings.CUPBOARD_BOARD_STATE_SECONDS)):
        assert board in client_for(None).get(url).content.decode()


def test_a_new_public_event_is_in_the_audit_log_at_once(personas):
    url = reverse("audit:log", args=["cup"])
    first = client_for(None).get(url).content
    AuditEvent.objects.create(competition=personas.competition, action=AuditEvent.Action.QRELS_COMMITTED,
                              is_public=True, summary="A commitment made public just now")
    assert b"A commitment made public just now" not in first
    assert b"A commitment made public just now" in client_for(None).get(url).content


def test_a_made_up_parameter_is_rendered_each_time_and_kept_for_nobody(personas):
    url = reverse("competitions:detail", args=["cup"]) + "?utm=1"
    client_for(None).get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client_for(None).get(url).status_code == 200
    assert len(queries) > 0


def test_a_signed_in_participant_gets_their_own_page_and_the_visitor_the_shared_one(personas):
    url = reverse("competitions:how_to_submit", args=["cup"])
    anonymous = client_for(None).get(url).content.decode()
    mine = client_for(personas.participant).get(url).content.decode()
    assert "participant" in mine and "participant" not in anonymous
    assert client_for(None).get(url).content.decode() == anonymous


def test_pruning_keeps_each_competitions_newest_page_change_and_every_key(personas):
    from cupboard.competitions.models import PageChange
    from cupboard.competitions.tasks import prune_page_changes

    url = reverse("competitions:detail", args=["cup"])
    for title in ("First", "Second", "Third"):
        personas.competition.title = title
        personas.competition.save()
    personas.other_competition.title = "Other"
    personas.other_competition.save()
    before = client_for(None).get(url)
    newest = {pk: PageChange.objects.filter(competition_id=pk).latest("id").pk
              for pk in (personas.competition.pk, personas.other_competition.pk)}
    assert PageChange.objects.count() > 2
    prune_page_changes()
    assert sorted(PageChange.objects.values_list("competition_id", "id")) == sorted(newest.items())
    assert client_for(None).get(url)["ETag"] == before["ETag"]
    assert "cupboard.competitions.tasks.prune_page_changes" in {
        entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}


def test_a_title_written_by_a_bulk_update_is_seen_at_once(personas):
    url = reverse("competitions:detail", args=["cup"])
    client_for(None).get(url)
    Competition.objects.filter(pk=personas.competition.pk).update(title="The Bulk Cup")
    assert "The Bulk Cup" in client_for(None).get(url).content.decode()
    assert "The Bulk Cup" in client_for(None).get(reverse("competitions:list")).content.decode()


def test_a_phase_renamed_by_a_bulk_update_is_seen_at_once(personas):
    url = reverse("competitions:detail", args=["cup"])
    client_for(None).get(url)
    Phase.objects.filter(competition=personas.competition, slug="dev").update(name="The Bulk Round")
    assert "The Bulk Round" in client_for(None).get(url).content.decode()


def test_a_scorings_version_bump_appends_no_page_change(personas):
    """The columns every key reads already (a board's version) are no change to append."""
    from django.db.models import F

    from cupboard.competitions.models import PageChange

    count = PageChange.objects.count()
    Phase.objects.filter(competition=personas.competition).update(leaderboard_version=F("leaderboard_version") + 1)
    assert PageChange.objects.count() == count


def _page_changes(competition) -> int:
    from cupboard.competitions.models import PageChange

    return PageChange.objects.filter(competition_id=competition.pk).count()


@pytest.mark.parametrize("role", ["participant", "organizer", "assessor"])
def test_a_persons_save_changes_the_pages_of_their_competitions_and_no_others(personas, role):
    person = personas.staff if role == "assessor" else getattr(personas, role)
    if role == "assessor":
        person.is_staff = False
        person.save()
        personas.competition.assessors.add(person)
    url = reverse("competitions:detail", args=[personas.other_competition.slug])
    kept = client_for(None).get(url)["ETag"]
    theirs, others = _page_changes(personas.competition), _page_changes(personas.other_competition)
    person.first_name = "Renamed"
    person.save()
    assert _page_changes(personas.competition) == theirs + 1
    assert _page_changes(personas.other_competition) == others
    assert client_for(None).get(url)["ETag"] == kept


def test_staff_made_and_unmade_changes_every_competitions_pages(personas):
    board = reverse("leaderboards:phase", args=["cup", "test-b"])
    client = client_for(personas.staff)

    def organizes() -> bool:  # the board as told for the session's remembered viewer class
        return "Only organizers see this leaderboard" in client.get(board).content.decode()
    assert organizes()
    counts = [(_page_changes(personas.competition), _page_changes(personas.other_competition))]
    personas.staff.is_staff = False
    personas.staff.save()
    counts.append((_page_changes(personas.competition), _page_changes(personas.other_competition)))
    assert not organizes()
    personas.staff.is_staff = True
    personas.staff.save()
    counts.append((_page_changes(personas.competition), _page_changes(personas.other_competition)))
    assert organizes()
    assert counts[1] == (counts[0][0] + 1, counts[0][1] + 1) and counts[2] == (counts[1][0] + 1, counts[1][1] + 1)


def test_a_login_changes_no_page(personas):
    from cupboard.competitions.models import PageChange

    count = PageChange.objects.count()
    client_for(personas.participant)  # logged in: user_logged_in saves last_login
    personas.participant.refresh_from_db()
    assert personas.participant.last_login is not None
    assert PageChange.objects.count() == count
