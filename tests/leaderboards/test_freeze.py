"""A leaderboard freeze (Phase.freeze_at): from the freeze until the phase ends, the public
and the teams see the board as it stood at the freeze; each team still sees its own later
runs' scores on their pages; organizers see the live board; after the end, everyone does."""
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.selectors import history_for, leaderboard_for
from cupboard.leaderboards.services import leaderboard_update
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def frozen(cast):
    """Team A scored before the freeze (an hour ago), Team B after it; the phase still open."""
    phase = cast.competition.phases.get(slug="dev")
    start = timezone.now()
    with time_machine.travel(start - timedelta(hours=2), tick=False):
        leaderboard_update(phase=phase, submission=make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.4, te=0.4)))
    phase.freeze_at = start - timedelta(hours=1)
    phase.save()
    with time_machine.travel(start - timedelta(minutes=30), tick=False):
        late = make_scored(phase, team=cast.team_b, method="late-run", scores=ndcg(sw=0.61803, te=0.61803))
        leaderboard_update(phase=phase, submission=late)
    phase.refresh_from_db()
    return phase, late


def _teams(phase, user, now=None):
    return [e.team for e in leaderboard_for(phase=phase, user=user, now=now).entries]


def test_the_public_and_the_teams_see_the_board_of_the_freeze(cast, frozen):
    phase, _ = frozen
    for user in (cast.anonymous, cast.outsider, cast.participant):  # outsider: Team B's member
        assert _teams(phase, user) == ["Team A"]
    assert _teams(phase, cast.organizer) == ["Team B", "Team A"]
    history = history_for(phase=phase, viewer=Viewer(cast.anonymous, cast.competition))
    assert {p.team for p in history.points} == {"Team A"}


def test_a_team_still_sees_its_own_later_run(cast, frozen):
    phase, late = frozen
    page = client_for(cast.outsider).get(reverse("submissions:detail", args=[late.pk]))
    assert page.status_code == 200 and b"0.618" in page.content


def test_the_page_says_since_when_and_hides_the_later_run(cast, frozen):
    phase, _ = frozen
    page = client_for(cast.anonymous).get(phase.get_absolute_url()).content.decode()
    assert f"frozen since {phase.freeze_at:%Y-%m-%d %H:%M} UTC" in page
    assert "late-run" not in page and "0.618" not in page
    assert "late-run" in client_for(cast.organizer).get(phase.get_absolute_url()).content.decode()


def test_after_the_end_everyone_sees_everything(cast, frozen):
    phase, _ = frozen
    with time_machine.travel(phase.closes_at + timedelta(minutes=1), tick=False):
        assert _teams(phase, cast.anonymous) == ["Team B", "Team A"]
        page = client_for(cast.anonymous).get(phase.get_absolute_url()).content.decode()
        assert "late-run" in page and "frozen since" not in page


def test_an_instant_asked_for_during_the_freeze_shows_the_frozen_board(cast, frozen):
    phase, _ = frozen
    board = leaderboard_for(phase=phase, user=cast.anonymous, as_of=timezone.now() - timedelta(minutes=5))
    assert [e.team for e in board.entries] == ["Team A"]


def test_the_judged_table_of_the_live_rows_is_closed_while_frozen(cast, frozen):
    from cupboard.judging.judged import sees_phase_judged

    phase, _ = frozen
    assert not sees_phase_judged(Viewer(cast.anonymous, cast.competition), phase)
    assert sees_phase_judged(Viewer(cast.organizer, cast.competition), phase)
    assert sees_phase_judged(Viewer(cast.anonymous, cast.competition, phase.closes_at + timedelta(minutes=1)), phase)
    page = client_for(cast.anonymous).get(reverse("judging:phase_judged", args=[cast.competition.slug, phase.slug]))
    assert page.status_code == 200 and "late-run" not in page.content.decode()
    assert "frozen: its Judged@10 table lists the runs each team counts now" in page.content.decode()


def test_the_upload_page_says_the_board_is_frozen_and_an_address_as_of_the_freeze_says_so_too(cast, frozen):
    phase, _ = frozen
    upload = client_for(cast.participant).get(reverse("submissions:upload", args=[cast.competition.slug, phase.slug]))
    assert "The public leaderboard is frozen from" in upload.content.decode()
    as_of = (phase.freeze_at + timedelta(minutes=10)).isoformat()
    past = client_for(cast.anonymous).get(phase.get_absolute_url(), {"as_of": as_of}).content.decode()
    assert "frozen since" in past and "late-run" not in past


def test_no_header_tells_the_public_when_a_run_was_scored_during_the_freeze(cast, frozen):
    phase, _ = frozen
    url = phase.get_absolute_url()
    before = {who: client_for(getattr(cast, who)).get(url) for who in ("anonymous", "outsider", "organizer")}
    assert before["anonymous"]["Last-Modified"] == before["outsider"]["Last-Modified"]
    leaderboard_update(phase=phase, submission=make_scored(phase, team=cast.team_b, scores=ndcg(sw=0.91357, te=0.91357)))
    after = {who: client_for(getattr(cast, who)).get(url) for who in before}
    for who in ("anonymous", "outsider"):
        assert (after[who]["ETag"], after[who]["Last-Modified"]) == (before[who]["ETag"], before[who]["Last-Modified"])
        assert "0.914" not in after[who].content.decode()
    assert after["organizer"]["ETag"] != before["organizer"]["ETag"] and "0.914" in after["organizer"].content.decode()


def test_the_organizer_area_says_the_board_is_frozen(cast, frozen):
    phase, _ = frozen
    page = client_for(cast.organizer).get(reverse("competitions:manage", args=[cast.competition.slug])).content.decode()
    assert f'id="board-rules-{phase.slug}"' in page and "Public board frozen from" in page


def test_the_json_export_is_the_frozen_board_and_says_since_when(cast, frozen):
    phase, _ = frozen
    url = reverse("leaderboards:export_json", args=[cast.competition.slug, phase.slug])
    public = client_for(cast.anonymous).get(url).json()
    assert [row["team"] for row in public["rows"]] == ["Team A"]
    assert public["frozen_since"].startswith(phase.freeze_at.strftime("%Y-%m-%dT%H:%M"))
    organizer = client_for(cast.organizer).get(url).json()
    assert "frozen_since" not in organizer and len(organizer["rows"]) == 2
