"""Cached leaderboards (leaderboards/cache.py): one entry per viewer class, never a user's
page from another's entry, a new version after every update, a reveal never served late,
and 304 for a copy the client already holds."""
import gzip
import re
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from cupboard.leaderboards.services import leaderboard_refresh, leaderboard_update
from tests.factories import make_team
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db

PAGE, JSON, CSV = "leaderboards:phase", "leaderboards:export_json", "leaderboards:export_csv"


@pytest.fixture
def dev(cast):
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, method="mine", scores=ndcg(sw=0.51234, te=0.5, yo=0.9), minutes_ago=5)
    make_scored(phase, team=cast.team_b, method="theirs", scores=ndcg(sw=0.4, te=0.4, yo=0.1))
    leaderboard_refresh(phase=phase)
    return phase


def _get(user, name, phase, **headers):
    return client_for(user).get(reverse(name, args=[phase.competition.slug, phase.slug]), **headers)


def _text(user, name, phase) -> str:
    response = _get(user, name, phase)
    assert response.status_code == 200
    return response.content.decode()


def _who(user) -> str:
    return f'title="Your teams and API token">{user.username}<'


@pytest.mark.parametrize("first", ["participant", "organizer", "anonymous", "outsider"])
def test_nothing_of_one_class_is_served_to_another(cast, dev, first):
    _text(getattr(cast, first), PAGE, dev)  # fills that class's entry first
    _text(getattr(cast, first), JSON, dev)
    anonymous = _text(None, PAGE, dev)
    mine = dev.submissions.get(method_name="mine").get_absolute_url()
    assert ' own"' not in anonymous and f'href="{mine}"' not in anonymous and ">yo<" not in anonymous
    assert "0.51234" not in _text(None, JSON, dev) and "0.512" in _text(None, CSV, dev)
    participant = _text(cast.participant, PAGE, dev)
    assert ' own"' in participant and ">yo<" not in participant and _who(cast.participant) in participant
    assert ">yo<" in _text(cast.organizer, PAGE, dev) and "0.51234" in _text(cast.organizer, JSON, dev)
    outsider = _text(cast.outsider, PAGE, dev)  # team B: its own row, not team A's
    assert outsider.count(' own"') == 1 and _who(cast.outsider) in outsider and _who(cast.participant) not in outsider


def test_a_teammate_shares_the_board_but_not_the_page_shell(cast, dev):
    _text(cast.participant, PAGE, dev)
    teammate = _text(cast.teammate, PAGE, dev)
    assert ' own"' in teammate and _who(cast.teammate) in teammate and _who(cast.participant) not in teammate


def test_every_update_is_served_at_once(cast, dev):
    assert "Late team" not in _text(None, PAGE, dev)
    late = make_scored(dev, team=make_team(cast.competition, name="Late team"), scores=ndcg(sw=0.9, te=0.9))
    leaderboard_update(phase=dev, submission=late)
    assert "Late team" in _text(None, PAGE, dev) and "Late team" in _text(None, JSON, dev)


def test_a_reveal_is_never_served_late(cast, dev):
    assert ">yo<" not in _text(None, PAGE, dev) and '"yo"' not in _text(None, JSON, dev)
    reveal = cast.competition.groups.get(name="surprise").reveal_at
    with time_machine.travel(reveal - timedelta(seconds=1), tick=False):
        assert ">yo<" not in _text(None, PAGE, dev)
    with time_machine.travel(reveal, tick=False):  # no refresh in between: the key names the instant
        assert ">yo<" in _text(None, PAGE, dev) and '"yo"' in _text(None, JSON, dev)


def _bump_elsewhere(phase) -> None:
    """A new version written by another process (a worker): nothing of this one hears of it."""
    from cupboard.competitions.models import Phase

    Phase.objects.filter(pk=phase.pk).update(leaderboard_version=phase.leaderboard_version + 100)


def test_a_new_version_from_another_process_reaches_visitors_without_cookies_within_the_state_seconds(
        cast, dev, settings, django_assert_num_queries):
    settings.CUPBOARD_BOARD_STATE_SECONDS = 5
    etag = _get(None, PAGE, dev)["ETag"]
    _bump_elsewhere(dev)
    with django_assert_num_queries(0):  # the kept state: no SQL, the version this process read
        assert _get(None, PAGE, dev)["ETag"] == etag
    assert _get(cast.participant, PAGE, dev, HTTP_IF_NONE_MATCH=etag).status_code == 200  # signed in: fresh
    with time_machine.travel(timedelta(seconds=5)):
        assert _get(None, PAGE, dev)["ETag"] != etag


def test_a_reveal_is_served_on_time_from_a_kept_state(cast, dev, settings):
    """The state kept for visitors without cookies names the next reveal; each request's key is
    computed at its own instant, so the reveal shows at once however long the state is kept."""
    settings.CUPBOARD_BOARD_STATE_SECONDS = 3600
    reveal = cast.competition.groups.get(name="surprise").reveal_at
    with time_machine.travel(reveal - timedelta(seconds=10), tick=False):
        assert ">yo<" not in _text(None, PAGE, dev)
    with time_machine.travel(reveal, tick=False):
        assert ">yo<" in _text(None, PAGE, dev)


def test_this_process_s_own_changes_are_seen_at_once(cast, dev, settings):
    settings.CUPBOARD_BOARD_STATE_SECONDS = 3600
    etag = _get(None, PAGE, dev)["ETag"]
    leaderboard_refresh(phase=dev)  # leaderboard_bump forgets the kept states
    assert _get(None, PAGE, dev)["ETag"] != etag
    cast.competition.is_published = False
    cast.competition.save()  # an edit in this process: its save signal forgets them too
    assert _get(None, PAGE, dev).status_code == 404


@pytest.mark.parametrize("name", [PAGE, JSON, CSV])
def test_it_answers_304_to_a_copy_of_the_current_version(cast, dev, name):
    first = _get(None, name, dev)
    etag = first["ETag"]
    assert first.status_code == 200 and first["Last-Modified"] and "Cookie" in first["Vary"]
    assert _get(None, name, dev, HTTP_IF_NONE_MATCH=etag).status_code == 304
    assert _get(cast.participant, name, dev, HTTP_IF_NONE_MATCH=etag).status_code == 200  # another viewer
    leaderboard_refresh(phase=dev)
    assert _get(None, name, dev, HTTP_IF_NONE_MATCH=etag).status_code == 200


@pytest.mark.parametrize("name", [PAGE, JSON, CSV])
def test_the_cache_control_header_is_valid_for_visitors_and_members(cast, dev, name):
    """Issue 33, item 13: a visitor's answer said `private=False`, no directive at all."""
    visitor, member = _get(None, name, dev)["Cache-Control"], _get(cast.participant, name, dev)["Cache-Control"]
    assert sorted(visitor.replace(" ", "").split(",")) == ["no-cache"], visitor
    assert sorted(member.replace(" ", "").split(",")) == ["no-cache", "private"], member


def test_a_visitor_without_cookies_gets_the_same_bytes_gzipped_when_accepted(cast, dev):
    plain = _get(None, PAGE, dev)
    again = _get(None, PAGE, dev)
    zipped = _get(None, PAGE, dev, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert plain.content == again.content and "Content-Encoding" not in plain  # nothing per request
    assert zipped["Content-Encoding"] == "gzip" and gzip.decompress(zipped.content) == plain.content
    assert "Accept-Encoding" in zipped["Vary"] and zipped["ETag"] != plain["ETag"]
    for name in (JSON, CSV):
        assert gzip.decompress(_get(None, name, dev, HTTP_ACCEPT_ENCODING="gzip").content) == _get(None, name, dev).content


def test_a_page_naming_its_user_is_never_compressed(cast, dev):
    """The shell carries the user's CSRF token: compressing it beside reflected text would
    open it to BREACH-style guessing, so only shared bytes are compressed."""
    response = _get(cast.participant, PAGE, dev, HTTP_ACCEPT_ENCODING="gzip")
    assert "Content-Encoding" not in response and _who(cast.participant) in response.content.decode()


def _without_csrf(response) -> str:
    return re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "", response.content.decode())


@pytest.mark.parametrize("name", [PAGE, JSON, CSV])
def test_a_private_board_s_validators_tell_nobody_when_a_run_was_scored(cast, name):
    """Test B before its reveal: its page, JSON and CSV say it is not public, and their ETag and
    Last-Modified stay the same when a private run is scored (the version and the instant of
    the change would tell when); organizers' copies change."""
    test_b = cast.competition.phases.get(slug="test-b")
    users = (None, cast.participant, cast.outsider, cast.organizer)
    before = {user: _get(user, name, test_b) for user in users}
    with time_machine.travel(timezone.now() + timedelta(hours=2), tick=False):
        leaderboard_update(phase=test_b, submission=make_scored(test_b, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5)))
        after = {user: _get(user, name, test_b) for user in users}
    for user in users[:-1]:
        assert before[user].status_code == after[user].status_code == (200 if name == PAGE else 403)
        assert (before[user]["ETag"], before[user].get("Last-Modified")) == \
            (after[user]["ETag"], after[user].get("Last-Modified")), user
        assert _without_csrf(before[user]) == _without_csrf(after[user])
    assert before[cast.organizer]["ETag"] != after[cast.organizer]["ETag"]
    assert after[cast.organizer]["Last-Modified"] != before[cast.organizer].get("Last-Modified")
