"""A member's own pages kept for their browser (submissions/kept_pages.py): a repeat visit is a
cache read, a change to the runs shown is seen at once (even one written by a bulk update),
a queued run is rendered every time, and nobody else's browser gets the page."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from cupboard.submissions.models import Submission
from cupboard.teams.models import Membership
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for, personas  # noqa: F401
from tests.queries import page_and_queries

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def kept_states(settings):
    """The state a process keeps is reused for the whole test: query counts do not depend on
    how fast the machine runs it."""
    settings.CUPBOARD_BOARD_STATE_SECONDS = 3600


@pytest.fixture
def run(personas):
    return make_scored(personas.competition.phases.get(slug="dev"), team=personas.team_a, method="kept-run",
                       scores=ndcg(sw=0.5, te=0.5))


def test_a_members_finished_submission_is_kept_for_their_browser(personas, run):
    client = client_for(personas.participant)
    client.get(run.get_absolute_url())  # the first answer sets the CSRF cookie
    rendered, render_queries = page_and_queries(client, run.get_absolute_url())
    again, queries = page_and_queries(client, run.get_absolute_url())
    assert again == rendered and queries == 0 < render_queries
    assert ">participant<" in again and "kept-run" in again


def test_a_teammate_gets_their_own_copy(personas, run):
    for _ in range(2):
        client_for(personas.participant).get(run.get_absolute_url())
    teammate = client_for(personas.teammate)
    teammate.get(run.get_absolute_url())
    page, _ = page_and_queries(teammate, run.get_absolute_url())
    assert ">teammate<" in page and ">participant<" not in page
    assert client_for(personas.outsider).get(run.get_absolute_url()).status_code == 404


def test_a_change_written_by_a_bulk_update_is_seen_at_once(personas, run):
    client = client_for(personas.participant)
    for _ in range(2):
        client.get(run.get_absolute_url())
    Submission.objects.filter(pk=run.pk).update(method_name="renamed-run")
    assert "renamed-run" in page_and_queries(client, run.get_absolute_url())[0]


def test_a_queued_submission_is_rendered_every_time(personas, run):
    Submission.objects.filter(pk=run.pk).update(status=Submission.Status.QUEUED)
    client = client_for(personas.participant)
    _kept(client, run.get_absolute_url())  # the session told and remembered (accounts/signed_in.py)
    _, first = page_and_queries(client, run.get_absolute_url())
    _, second = page_and_queries(client, run.get_absolute_url())
    assert second == first > 1


def test_my_submissions_is_kept_and_shows_a_new_run_at_once(personas, run):
    url = reverse("submissions:mine", args=[personas.competition.slug])
    client = client_for(personas.participant)
    client.get(url)
    rendered, render_queries = page_and_queries(client, url)
    again, queries = page_and_queries(client, url)
    assert again == rendered and queries == 0 < render_queries and "kept-run" in again
    make_scored(personas.competition.phases.get(slug="dev"), team=personas.team_a, method="newer-run",
                scores=ndcg(sw=0.1))
    assert "newer-run" in page_and_queries(client, url)[0]


def test_my_submissions_after_leaving_the_team_shows_none_of_its_runs(personas, run):
    url = reverse("submissions:mine", args=[personas.competition.slug])
    client = client_for(personas.participant)
    for _ in range(2):
        client.get(url)
    Membership.objects.filter(user=personas.participant).delete()
    assert "kept-run" not in page_and_queries(client, url)[0]


def _kept(client, url: str) -> None:
    for _ in range(2):
        client.get(url)


def test_a_deactivated_member_no_longer_gets_their_kept_page(personas, run):
    client = client_for(personas.participant)
    _kept(client, run.get_absolute_url())
    _kept(client, reverse("submissions:mine", args=["cup"]))
    personas.participant.is_active = False
    personas.participant.save()
    assert "kept-run" not in client.get(run.get_absolute_url()).content.decode()
    assert "kept-run" not in client.get(reverse("submissions:mine", args=["cup"])).content.decode()


def test_a_password_changed_elsewhere_ends_the_old_sessions_kept_page(personas, run):
    client = client_for(personas.participant)
    _kept(client, run.get_absolute_url())
    personas.participant.set_password("a-new-secret-phrase")
    personas.participant.save()
    assert "kept-run" not in client.get(run.get_absolute_url()).content.decode()


def test_a_renamed_member_sees_their_new_name_at_once(personas, run):
    client = client_for(personas.participant)
    _kept(client, run.get_absolute_url())
    personas.participant.username = "renamed-participant"
    personas.participant.save()
    page = client.get(run.get_absolute_url()).content.decode()
    assert ">renamed-participant<" in page and ">participant<" not in page


def test_every_save_and_update_of_a_run_moves_its_version(personas, run):
    versions = [Submission.objects.get(pk=run.pk).version]
    Submission.objects.filter(pk=run.pk).update(progress=50)  # a bulk update, as the scoring writes
    versions.append(Submission.objects.get(pk=run.pk).version)
    stale = Submission.objects.get(pk=run.pk)
    Submission.objects.filter(pk=run.pk).update(method_name="moved-on")
    stale.description = "saved from a copy read before the update"
    stale.save(update_fields=["description"])
    versions.append(stale.version)
    Submission.objects.bulk_update([stale], ["description"])
    versions.append(Submission.objects.get(pk=run.pk).version)
    assert versions == sorted(set(versions)) and len(versions) == 4 and versions[2] - versions[1] == 2


def test_a_saved_copy_holds_the_version_its_save_wrote_without_a_query(personas, run, django_assert_num_queries):
    stale = Submission.objects.get(pk=run.pk)
    Submission.objects.filter(pk=run.pk).update(method_name="moved-on")
    stale.description = "saved from a copy read before the update"
    stale.save(update_fields=["description"])
    with django_assert_num_queries(0):
        version = stale.version
    assert version == Submission.objects.get(pk=run.pk).version == run.version + 2


def test_my_submissions_shows_a_run_changed_by_a_bulk_update_at_once(personas, run):
    client = client_for(personas.participant)
    url = reverse("submissions:mine", args=["cup"])
    _kept(client, url)
    Submission.objects.filter(pk=run.pk).update(method_name="renamed-in-bulk")
    assert "renamed-in-bulk" in client.get(url).content.decode()


def test_a_run_moved_to_another_team_leaves_the_old_teams_kept_pages_at_once(personas, run):
    """A team merge moves runs by a bulk update: the teams read before it (the old one) and the
    one it names (the new one) both change (models.py, kept_pages.runs_changed)."""
    from cupboard.submissions.services import submissions_move

    mine = reverse("submissions:mine", args=["cup"])
    old, new = client_for(personas.participant), client_for(personas.outsider)
    for client in (old, new):
        _kept(client, mine)
    _kept(old, run.get_absolute_url())
    assert "kept-run" in page_and_queries(old, mine)[0] and "kept-run" not in page_and_queries(new, mine)[0]
    submissions_move(source=personas.team_a, target=personas.team_b)
    assert "kept-run" not in old.get(mine).content.decode() and "kept-run" in new.get(mine).content.decode()
    assert old.get(run.get_absolute_url()).status_code == 404


def test_an_update_reads_its_rows_and_their_teams_in_one_query(personas, run):
    """A bulk update of submissions reads (id, team) once, before it writes: the ids for every
    handler of RowsWritten (cupboard/bulk_writes.py), the teams for their runs tokens
    (kept_pages.py `runs_written`). It read the teams, then the ids again, and after the
    write the rows' submitters, whose person tokens it forgot."""
    with CaptureQueriesContext(connection) as claim:  # a worker's claim: quiet, its team's runs still change
        Submission.objects.filter(pk=run.pk).update(status=Submission.Status.SCORING, claimed_at=timezone.now())
    # 1. the rows' ids and teams; 2. the UPDATE
    assert [query["sql"].split()[0] for query in claim.captured_queries] == ["SELECT", "UPDATE"]
    with CaptureQueriesContext(connection) as renamed:
        Submission.objects.filter(pk=run.pk).update(method_name="renamed-run")
    # 1. the rows' ids and teams; 2. the UPDATE; 3. their competitions; 4. the page change
    # (competitions/page_cache.py). Not their submitters: a run's is not who they are (flows/rows_written.py)
    reads_before_update = [query["sql"] for query in renamed.captured_queries[:2]]
    assert len(renamed) == 4 and reads_before_update[1].startswith("UPDATE"), renamed.captured_queries
    assert '"team_id"' in reads_before_update[0] and '"id"' in reads_before_update[0]

