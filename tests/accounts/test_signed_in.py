"""A session told from the cache (accounts/signed_in.py) loses what is kept for it at once: a
board's remembered viewer class and page shell (leaderboards/viewers.py), a finished
submission's page and "My submissions" (submissions/kept_pages.py) are reached no more once the
session is logged out or deleted, its user removed from a team or a competition's organizers,
and a repeat hit reads no session, no user and no state from the database."""
from collections import Counter

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache, caches
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cupboard.accounts.signed_in import _token, _token_key, forget_person
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.teams.models import Membership
from tests.factories import make_team, make_user
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for, personas  # noqa: F401
from tests.queries import page_and_queries


@pytest.fixture(autouse=True)
def kept_states(settings):
    """The board state a process keeps is reused for the whole test: query counts do not depend
    on how fast the machine runs it."""
    settings.CUPBOARD_BOARD_STATE_SECONDS = 3600


@pytest.fixture
def urls(personas):
    dev = personas.competition.phases.get(slug="dev")
    run = make_scored(dev, team=personas.team_a, method="kept-run", scores=ndcg(sw=0.5, te=0.5))
    leaderboard_refresh(phase=dev)
    return {"board": reverse("leaderboards:phase", args=["cup", "dev"]),
            "json": reverse("leaderboards:export_json", kwargs={"competition_slug": "cup", "phase_slug": "dev"}),
            "submission": run.get_absolute_url(), "mine": reverse("submissions:mine", args=["cup"])}


def _kept(client, urls) -> dict[str, str]:
    """Every page fetched until it is kept; what each shows then (read without a query)."""
    shown = {}
    for name, url in urls.items():
        for _ in range(2):
            client.get(url)
        shown[name], queries = page_and_queries(client, url)
        assert queries == 0, name
    return shown


def _signed_out(client, urls) -> None:
    """`client`'s cookies reach nothing of the participant's any more."""
    board = client.get(urls["board"]).content.decode()
    assert ' own"' not in board and ">participant<" not in board
    assert "Team A" in client.get(urls["json"]).content.decode()  # the public board, still
    submission = client.get(urls["submission"])
    assert submission.status_code != 200 and b"kept-run" not in submission.content
    mine = client.get(urls["mine"])
    assert mine.status_code == 302 and reverse("accounts:login") in mine["Location"]


@pytest.mark.django_db
def test_a_repeat_hit_of_a_signed_in_person_reads_nothing_from_the_database(personas, urls):
    shown = _kept(client_for(personas.participant), urls)
    assert ' own"' in shown["board"] and 'title="Your teams and API token">participant<' in shown["board"]
    assert "kept-run" in shown["submission"] and "kept-run" in shown["mine"]


@pytest.mark.django_db
def test_cookies_kept_after_logging_out_reach_none_of_the_pages(personas, urls):
    client = client_for(personas.participant)
    _kept(client, urls)
    replay = Client()
    replay.cookies = client.cookies.__class__(client.cookies)  # a copy of the browser's cookies, as a thief keeps them
    assert client.post(reverse("accounts:logout")).status_code == 302
    _signed_out(replay, urls)


@pytest.mark.django_db
def test_a_session_deleted_elsewhere_reaches_none_of_the_pages(personas, urls):
    client = client_for(personas.participant)
    _kept(client, urls)
    Session.objects.all().delete()  # an administrator ends every session (a bulk delete)
    _signed_out(client, urls)


@pytest.mark.django_db
def test_a_member_removed_from_their_team_loses_its_pages_at_once(personas, urls):
    client = client_for(personas.participant)
    _kept(client, urls)
    Membership.objects.filter(user=personas.participant).delete()
    assert ' own"' not in client.get(urls["board"]).content.decode()
    assert client.get(urls["submission"]).status_code == 404
    assert "kept-run" not in client.get(urls["mine"]).content.decode()


def _private_board(competition) -> str:
    test_b = competition.phases.get(slug="test-b")
    make_scored(test_b, team=make_team(competition, name="Team C"), method="hidden-run", scores=ndcg(sw=0.3, te=0.3))
    leaderboard_refresh(phase=test_b)
    return reverse("leaderboards:phase", args=[competition.slug, test_b.slug])


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["cleared", "removed from the person's side"])
def test_an_organizer_taken_off_sees_the_private_board_no_more(personas, how):
    url, person = _private_board(personas.competition), make_user("short-lived-organizer")
    personas.competition.organizers.add(person)
    client = client_for(person)
    for _ in range(3):
        assert "hidden-run" in client.get(url).content.decode()
    if how == "cleared":
        personas.competition.organizers.clear()
    else:
        person.organized_competitions.remove(personas.competition)
    assert "hidden-run" not in client.get(url).content.decode()


@pytest.mark.django_db(transaction=True)
def test_a_token_made_anew_before_the_change_commits_is_replaced_when_it_does():
    """A request reading the rows before the commit may make the token anew and keep a page
    under it: the deletion at the commit leaves that page unreachable."""
    with transaction.atomic():
        forget_person(4242)
        during = _token(4242)
        assert _token(4242) == during
    assert _token(4242) != during


@pytest.mark.django_db
def test_a_member_moved_to_another_team_in_bulk_is_told_as_the_new_one_at_once(personas, urls):
    """A team merge moves its memberships by a bulk update (no post_save): the users of the rows
    it writes change (flows/rows_written.py `memberships_written`)."""
    client = client_for(personas.participant)
    _kept(client, urls)
    Membership.objects.filter(user=personas.participant).update(team=personas.team_b)
    assert ' own"' not in client.get(urls["board"]).content.decode()  # Team B has no run on it
    assert "kept-run" not in client.get(urls["mine"]).content.decode()


@pytest.mark.django_db
def test_a_bulk_write_of_memberships_forgets_their_users_old_and_new_reading_them_once(personas):
    """The users come with the rows read before the write (Membership.TOLD_WITH): no query after
    it. A row moved to another user changes that user too; other users are not forgotten."""
    moved, onto, bystander = personas.participant, make_user("onto"), personas.organizer
    tokens = {user.pk: _token(user.pk) for user in (moved, onto, bystander)}
    with CaptureQueriesContext(connection) as queries:
        Membership.objects.filter(user=moved).update(user=onto)
    reads_of_users = [q["sql"] for q in queries if q["sql"].startswith("SELECT") and '"user_id"' in q["sql"]]
    assert len(reads_of_users) == 1, reads_of_users  # the read before the write
    assert _token(moved.pk) != tokens[moved.pk] and _token(onto.pk) != tokens[onto.pk]
    assert _token(bystander.pk) == tokens[bystander.pk]


@pytest.mark.django_db
def test_with_a_cache_of_one_process_nothing_is_kept_for_a_signed_in_person(personas, urls, settings):
    """Another process (a worker scoring a run, a second web process logging the person out)
    deletes a token in its own memory only: with such a cache every hit is answered afresh."""
    settings.CUPBOARD_CACHE_SHARED = False
    client = client_for(personas.participant)
    for name, url in urls.items():
        for _ in range(2):
            client.get(url)
        shown, queries = page_and_queries(client, url)
        assert queries > 0, name
    assert "kept-run" in shown
    assert _token(personas.participant.pk) is None


@pytest.mark.django_db
def test_a_repeat_hit_reads_the_persons_token_alone_from_the_shared_cache(personas, urls, monkeypatch):
    """The session's lookup comes from this process's copy (accounts/signed_in.py `_copies`):
    of what says who they are, a signed-in board hit reads their token, one round trip."""
    client = client_for(personas.participant)
    _kept(client, urls)
    shared, reads = caches["default"], Counter()
    real_get = shared.get
    monkeypatch.setattr(shared, "get", lambda key, *args, **kwargs: reads.update([key.split(":")[0]])
                        or real_get(key, *args, **kwargs))
    for url in (urls["board"], urls["json"]):
        assert page_and_queries(client, url)[1] == 0
    assert reads == Counter(person=2)  # before the copy: signed-in 2, person 2


@pytest.mark.django_db
def test_a_token_deleted_by_another_process_ends_this_processs_copy_at_once(personas, urls):
    """Another process's log-out deletes the token in the shared cache and never reaches this
    process's copy of the session's lookup: the token read at each request ends its use."""
    client = client_for(personas.participant)
    _kept(client, urls)
    cache.delete(_token_key(personas.participant.pk))  # what the other process's `forget_person` does here
    Session.objects.all().delete()  # ... and its log-out to the rows
    _signed_out(client, urls)


@pytest.mark.django_db
def test_a_copy_is_not_used_past_the_sessions_expiry(personas, urls, time_machine):
    time_machine.move_to("2026-12-06 12:00:00", tick=False)
    client = client_for(personas.participant)
    session = client.session  # a new store at each reading of the property
    session.set_expiry(30)
    session.save()
    _kept(client, urls)
    time_machine.shift(31)  # the token is unchanged: the expiry alone ends the copy's use
    _signed_out(client, urls)
