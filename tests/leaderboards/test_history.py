"""Leaderboard history: both writers keep what changed, the leaderboard "as of" a past
instant is the one of that instant, and what anyone sees of it follows the Viewer's rules
of that instant (a private phase before its reveal, a surprise column before its own)."""
import re
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.history import rows_at
from cupboard.leaderboards.models import LeaderboardHistory
from cupboard.leaderboards.selectors import history_for, leaderboard_for
from cupboard.leaderboards.services import leaderboard_refresh, leaderboard_update
from tests.factories import make_team
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for
from tests.rate_windows import at_a_window_start

pytestmark = pytest.mark.django_db


def _ranked(leaderboard) -> list[tuple]:
    return [(e.rank, e.team, e.averages["all"]["nDCG@10"]) for e in leaderboard.entries if not e.is_baseline]


@pytest.fixture
def steps(cast):
    """Dev: team A scores at t0, team B overtakes it at t1, team A comes back at t2 (one update each)."""
    phase = cast.competition.phases.get(slug="dev")
    t0 = timezone.now() - timedelta(hours=3)
    instants = [t0, t0 + timedelta(hours=1), t0 + timedelta(hours=2)]
    for instant, team, value in zip(instants, (cast.team_a, cast.team_b, cast.team_a), (0.4, 0.5, 0.6), strict=True):
        with time_machine.travel(instant, tick=False):
            submission = make_scored(phase, team=team, scores=ndcg(sw=value, te=value))
            leaderboard_update(phase=phase, submission=submission)
    return phase, instants


def test_it_keeps_only_the_rows_that_changed(cast, steps):
    phase, instants = steps
    # t0: A enters; t1: B enters first and A moves to 2nd (2 rows); t2: A's new run, B moves (2 rows).
    assert [LeaderboardHistory.objects.filter(phase=phase, changed_at=t).count() for t in instants] == [1, 2, 2]
    leaderboard_refresh(phase=phase)  # the same rows: nothing to keep
    assert LeaderboardHistory.objects.filter(phase=phase).count() == 5


def test_a_rebuild_records_removed_rows(cast, steps):
    phase, _ = steps
    phase.submissions.filter(team=cast.team_b).update(disqualified=True)
    leaderboard_refresh(phase=phase)
    last = LeaderboardHistory.objects.filter(phase=phase).order_by("-changed_at", "-pk")
    assert last.filter(removed=True, team=cast.team_b).count() == 1
    later = timezone.now() + timedelta(seconds=1)
    assert [t for _, t, _ in _ranked(leaderboard_for(phase=phase, user=cast.organizer, as_of=later))] == ["Team A"]


def test_as_of_shows_the_leaderboard_of_that_instant(cast, steps):
    phase, (t0, t1, t2) = steps
    seen = {t: _ranked(leaderboard_for(phase=phase, user=cast.anonymous, as_of=t + timedelta(minutes=1)))
            for t in (t0, t1, t2)}
    assert seen[t0] == [(1, "Team A", 0.4)]
    assert seen[t1] == [(1, "Team B", 0.5), (2, "Team A", 0.4)]
    assert seen[t2] == [(1, "Team A", 0.6), (2, "Team B", 0.5)]
    assert leaderboard_for(phase=phase, user=cast.anonymous, as_of=t0 - timedelta(minutes=1)).entries == []


def test_the_history_has_a_point_per_team_and_change(cast, steps):
    phase, (t0, t1, t2) = steps
    history = history_for(phase=phase, viewer=Viewer(cast.anonymous, cast.competition))
    assert [(p.at, p.team, p.rank, p.value) for p in history.points] == [
        (t0, "Team A", 1, 0.4), (t1, "Team B", 1, 0.5), (t1, "Team A", 2, 0.4),
        (t2, "Team A", 1, 0.6), (t2, "Team B", 2, 0.5)]


def test_a_private_phase_has_no_history_for_the_public_before_its_reveal(cast):
    phase = cast.competition.phases.get(slug="test-b")
    scored_at = timezone.now() - timedelta(hours=1)
    with time_machine.travel(scored_at, tick=False):
        leaderboard_update(phase=phase, submission=make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.7, te=0.7)))
    for user in (cast.anonymous, cast.participant, cast.outsider):
        assert not history_for(phase=phase, viewer=Viewer(user, cast.competition)).visible
        assert not leaderboard_for(phase=phase, user=user, as_of=scored_at).visible
    assert len(history_for(phase=phase, viewer=Viewer(cast.organizer, cast.competition)).points) == 1
    # After the reveal the leaderboard is public, but not what it was before: that was hidden then.
    with time_machine.travel(phase.reveal_at + timedelta(hours=1), tick=False):
        for user in (cast.anonymous, cast.participant):
            history = history_for(phase=phase, viewer=Viewer(user, cast.competition))
            assert history.visible and history.points == []
            assert not leaderboard_for(phase=phase, user=user, as_of=scored_at).visible
            assert [(r, t) for r, t, _ in _ranked(leaderboard_for(phase=phase, user=user))] == [(1, "Team A")]
        assert leaderboard_for(phase=phase, user=cast.organizer, as_of=scored_at).entries


@pytest.mark.parametrize("rule", Phase.BeforeReveal.values)
def test_no_before_reveal_rule_opens_the_history_early(cast, rule):
    phase = cast.competition.phases.get(slug="test-b")
    Phase.objects.filter(pk=phase.pk).update(before_reveal=rule)
    phase.refresh_from_db()
    leaderboard_update(phase=phase, submission=make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.7, te=0.7)))
    assert "Team A" in client_for(cast.organizer).get("/c/cup/test-b/leaderboard/history/").content.decode()
    client = client_for(cast.participant)  # team A's own row is in it
    assert "Team A" not in client.get("/c/cup/test-b/leaderboard/history/").content.decode()
    assert "Team A" not in client.get("/c/cup/test-b/leaderboard/", {"as_of": timezone.now().isoformat()}).content.decode()


def test_as_of_before_the_surprise_reveal_hides_its_column(cast):
    group = cast.competition.groups.get(name="surprise")
    phase = cast.competition.phases.get(slug="dev")
    leaderboard_update(phase=phase, submission=make_scored(phase, team=cast.team_a,
                                                           scores=ndcg(sw=0.2, te=0.2, yo=0.9)))
    before = timezone.now() + timedelta(seconds=1)
    with time_machine.travel(group.reveal_at + timedelta(hours=1), tick=False):
        leaderboard_refresh(phase=phase)
        then = leaderboard_for(phase=phase, user=cast.anonymous, as_of=before)
        now = leaderboard_for(phase=phase, user=cast.anonymous)
        assert [c.key for c in then.subset_columns] == ["sw", "te"]
        assert then.entries[0].averages["all"]["nDCG@10"] == 0.2 and "yo" not in then.entries[0].values
        assert "yo" in [c.key for c in now.subset_columns]
        response = client_for(cast.anonymous).get("/c/cup/dev/leaderboard.json", {"as_of": before.isoformat()})
        assert response.status_code == 200 and "yo" not in response.content.decode()
        assert response.json()["as_of"].startswith(before.strftime("%Y-%m-%dT%H:%M"))


def test_as_of_links_keep_the_instant(cast, steps):
    phase, (t0, _, _) = steps
    at = (t0 + timedelta(minutes=1)).replace(microsecond=0)
    page = client_for(cast.anonymous).get("/c/cup/dev/leaderboard/", {"as_of": at.isoformat()}).content.decode()
    link = f"as_of={at.isoformat().replace('+', '%2B').replace(':', '%3A')}"
    assert f"dev/leaderboard.csv?{link}" in page and f"dev/leaderboard.json?{link}" in page and f"&amp;{link}" in page
    # an unencoded "+00:00" reaches the view as " 00:00": still that instant
    response = client_for(cast.anonymous).get(f"/c/cup/dev/leaderboard.json?as_of={at.isoformat()}")
    assert [row["team"] for row in response.json()["rows"]] == ["Team A"]


def test_a_bad_as_of_is_refused_naming_it(cast):
    client = client_for(cast.anonymous)
    response = client.get("/c/cup/dev/leaderboard/", {"as_of": "yesterday"})
    assert response.status_code == 400 and "as_of: &#x27;yesterday&#x27;" in response.content.decode()
    response = client.get("/c/cup/dev/leaderboard.json", {"as_of": "2026-13-40"})
    assert response.status_code == 400 and response.json()["errors"][0]["code"] == "bad-as-of"


def test_as_of_in_the_future_is_now(cast, steps):
    phase, _ = steps
    later = timezone.now() + timedelta(days=400)  # past test B's reveal: must not open it
    board = leaderboard_for(phase=cast.competition.phases.get(slug="test-b"), user=cast.anonymous, as_of=later)
    assert not board.visible
    assert _ranked(leaderboard_for(phase=phase, user=cast.anonymous, as_of=later)) == \
        _ranked(leaderboard_for(phase=phase, user=cast.anonymous))


@pytest.mark.parametrize("value", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00 23:59",
                                   "2026-11-20T10:00:00+24:00", "2026-02-30", "2026-11-20T25:00", "1e9", "\x00",
                                   "9" * 5000])
def test_every_bad_as_of_is_a_400_naming_it(cast, value):
    client = client_for(cast.anonymous)
    page = client.get("/c/cup/dev/leaderboard/", {"as_of": value})
    assert page.status_code == 400 and "as_of:" in page.content.decode()
    assert client.get("/c/cup/dev/leaderboard.csv", {"as_of": value}).status_code == 400
    data = client.get("/c/cup/dev/leaderboard.json", {"as_of": value})
    assert data.status_code == 400 and data.json()["errors"][0]["code"] == "bad-as-of"
    assert data.json()["errors"][0]["message"].startswith("as_of:")


def test_as_of_between_two_changes_is_served_from_one_snapshot(cast, steps, monkeypatch):
    """Its cost does not grow with the history: the rows of an instant are folded once per
    change, and every instant until the next change reads them from the cache."""
    from cupboard.leaderboards import selectors

    folded = []
    monkeypatch.setattr(selectors, "rows_at", lambda phase, at: folded.append(at) or rows_at(phase, at))
    phase, (t0, t1, _) = steps
    client = client_for(cast.anonymous)
    for minutes in (1, 7, 59):
        at = t0 + timedelta(minutes=minutes)
        page = client.get("/c/cup/dev/leaderboard/", {"as_of": at.isoformat()}).content.decode()
        assert f"as it stood on {at:%Y-%m-%d %H:%M:%S} UTC" in page  # the instant asked for, on each
        assert "Team A" in page and "Team B" not in page
        data = client.get("/c/cup/dev/leaderboard.json", {"as_of": at.isoformat()}).json()
        assert data["as_of"].startswith(at.strftime("%Y-%m-%dT%H:%M:%S")) and len(data["rows"]) == 1
    assert len(folded) == 2  # the page's board and the JSON's: once each, for the three instants
    page = client.get("/c/cup/dev/leaderboard/", {"as_of": (t1 + timedelta(minutes=1)).isoformat()}).content.decode()
    assert "Team B" in page and len(folded) == 3  # past the next change: another snapshot
    # Another class of viewers has its own snapshot (team A's row is linked for its members).
    client_for(cast.participant).get("/c/cup/dev/leaderboard/", {"as_of": (t0 + timedelta(minutes=3)).isoformat()})
    assert len(folded) == 4


def test_as_of_is_limited_per_client(cast, steps):
    from django.test import Client, override_settings

    from cupboard.envconfig import rates_from_env

    rates = rates_from_env("as-of-address=3/m", settings.CUPBOARD_RATES)
    phase, (t0, _, _) = steps
    with override_settings(CUPBOARD_RATES=rates), at_a_window_start():
        client = Client(REMOTE_ADDR="192.0.2.5")
        answers = [client.get("/c/cup/dev/leaderboard/", {"as_of": (t0 + timedelta(minutes=m)).isoformat()})
                   for m in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 200]
        refused = client.get("/c/cup/dev/leaderboard.json", {"as_of": t0.isoformat()})
        assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
        assert refused.json()["errors"][0]["code"] == "throttled"
        assert client.get("/c/cup/dev/leaderboard/", {"as_of": t0.isoformat()}).status_code == 429
        assert client.get("/c/cup/dev/leaderboard/").status_code == 200  # the live board is not limited
        assert Client(REMOTE_ADDR="192.0.2.6").get("/c/cup/dev/leaderboard.csv", {"as_of": t0.isoformat()}).status_code == 200


def test_the_history_page_says_who_moved_at_each_change(cast, steps):
    """Each change names the team, its old -> new Avg and rank (they were bare timestamps)."""
    page = client_for(cast.anonymous).get(reverse("leaderboards:history", args=["cup", "dev"])).content.decode()
    changes = page.split("<h2>Changes</h2>")[1].split("</section>")[0]
    moves = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", m)).strip() for m in re.findall(r"<li><strong>.*?</li>", changes, re.S)]
    assert moves == [  # newest first; within a change, in rank order
        "Team A: 0.400 → 0.600 nDCG@10, rank 2 → 1", "Team B: 0.500 nDCG@10, rank 1 → 2",
        "Team B: entered at 0.500 nDCG@10, rank 1", "Team A: 0.400 nDCG@10, rank 1 → 2",
        "Team A: entered at 0.400 nDCG@10, rank 1"]


def test_a_scoring_that_moves_one_team_adds_one_point(cast):
    """The history costs what changed, not change-sets x teams: a team entering last, or
    rising without passing anyone, is one point; the others' lines are carried once, to the
    latest instant, so each step line still reaches the end."""
    phase = cast.competition.phases.get(slug="dev")
    teams = [cast.team_a, cast.team_b] + [make_team(cast.competition, name=f"Team {c}") for c in "CDE"]
    t0 = timezone.now() - timedelta(hours=12)
    scorings = [(team, 0.6 - 0.1 * i) for i, team in enumerate(teams)]  # each enters last
    scorings += [(team, 0.6 - 0.1 * i + 0.01) for i, team in enumerate(teams[:4])]  # each rises, passes nobody
    for hour, (team, value) in enumerate(scorings):
        with time_machine.travel(t0 + timedelta(hours=hour), tick=False):
            leaderboard_update(phase=phase, submission=make_scored(phase, team=team, scores=ndcg(sw=value, te=value)))
    history = history_for(phase=phase, viewer=Viewer(cast.organizer, cast.competition))
    assert history.instants == [t0 + timedelta(hours=h) for h in range(len(scorings))]
    per_instant = [sum(p.at == at for p in history.points) for at in history.instants]
    assert per_instant == [1] * (len(scorings) - 1) + [len(teams)]
    last = [(p.team, p.rank) for p in history.points if p.at == history.instants[-1]]
    assert last == [("Team A", 1), ("Team B", 2), ("Team C", 3), ("Team D", 4), ("Team E", 5)]
    assert history.changes(latest=1)[0]["moves"] == [  # the carried points are no moves
        {"team": "Team D", "value": pytest.approx(0.31 * 2 / 3), "rank": 4,
         "before": {"value": pytest.approx(0.3 * 2 / 3), "rank": 4}}]


def test_reading_a_long_history_measures_each_change_once(cast, monkeypatch):
    """80 one-row change-sets after 10 teams entered: each row's value as seen is worked out
    once per change (it was once per row per change-set), and the queries do not grow with
    the change-sets (the phase's columns were read once per change-set)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from cupboard.leaderboards import selectors

    phase = cast.competition.phases.get(slug="dev")
    runs = [make_scored(phase, team=make_team(cast.competition, name=f"Team {i:02}")) for i in range(10)]
    t0 = timezone.now() - timedelta(days=5)

    def write(instant, run, value):
        LeaderboardHistory.objects.create(phase=phase, changed_at=instant, submission=run, team=run.team,
                                          values=ndcg(sw=value, te=value), averages={"all": {"nDCG@10": value}})
    for i, run in enumerate(runs):
        write(t0, run, i / 10)
    measured = []
    real = selectors._visible_averages
    monkeypatch.setattr(selectors, "_visible_averages", lambda row, **kw: measured.append(row) or real(row, **kw))
    anonymous = Viewer(cast.anonymous, cast.competition)
    with CaptureQueriesContext(connection) as short:
        assert len(history_for(phase=phase, viewer=anonymous).points) == 10
    for step in range(80):
        write(t0 + timedelta(hours=step + 1), runs[step % 10], 0.5 + step / 1000)
    measured.clear()
    with CaptureQueriesContext(connection) as long:
        history = history_for(phase=phase, viewer=Viewer(cast.anonymous, cast.competition))
    assert len(history.instants) == 81 and len(measured) == 10 + 80
    assert len(long) == len(short)
