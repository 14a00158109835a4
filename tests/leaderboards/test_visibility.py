"""leaderboard_for: every visibility rule, for each persona, moving the clock.

The personas' competition (tests/factories.py): known sw, te; surprise yo revealed in
10 days; phase dev live; phase test-b private until 30 days from now.
"""
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from cupboard.competitions.models import Competition, Phase
from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.leaderboards.services import leaderboard_refresh
from tests.factories import make_topics
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev(cast):
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, method="a-run", scores=ndcg(sw=0.5, te=0.5, yo=0.0), minutes_ago=20)
    make_scored(phase, team=cast.team_b, method="b-run", scores=ndcg(sw=0.3, te=0.3, yo=0.9), minutes_ago=10)
    make_scored(phase, method="BM25", scores=ndcg(sw=0.2, te=0.2, yo=0.7))
    leaderboard_refresh(phase=phase)
    return phase


def _columns(leaderboard):
    return [c.label for c in leaderboard.columns]


def _ranking(leaderboard):
    return [(e.rank, e.team) for e in leaderboard.entries]


def _avg(entry):
    return entry.averages["all"]["nDCG@10"]


@pytest.mark.parametrize("persona", ["anonymous", "participant", "outsider"])
def test_it_hides_surprise_columns_and_their_average_before_the_reveal(cast, dev, persona):
    leaderboard = leaderboard_for(phase=dev, user=getattr(cast, persona))

    assert leaderboard.visible
    assert _columns(leaderboard) == ["K.Avg", "Avg", "sw", "te"]
    assert all(set(e.values) == {"sw", "te"} for e in leaderboard.entries)
    assert all(set(e.averages) == {"known", "all"} for e in leaderboard.entries)
    assert leaderboard.notices == [f"1 surprise language, announced on "
                                   f"{cast.competition.groups.get(name='surprise').reveal_at:%Y-%m-%d %H:%M} UTC."]


def test_a_phase_without_surprise_topics_says_nothing_of_surprise_languages(cast, dev):
    """MIRACL's Test A has 11 known languages and never a surprise one: no notice there, while a
    phase with topics for the surprise language keeps it (the dry run showed it everywhere)."""
    make_topics(dev, "sw", ["1", "2"])
    make_topics(dev, "te", ["1", "2"])
    assert leaderboard_for(phase=dev, user=cast.participant).notices == []
    assert _columns(leaderboard_for(phase=dev, user=cast.participant)) == ["K.Avg", "Avg", "sw", "te"]

    make_topics(dev, "yo", ["1", "2"])
    [notice] = leaderboard_for(phase=dev, user=cast.participant).notices
    assert notice.startswith("1 surprise language, announced on ")


@pytest.mark.parametrize("persona", ["organizer", "staff"])
def test_it_shows_organizers_every_column_before_the_reveal(cast, dev, persona):
    leaderboard = leaderboard_for(phase=dev, user=getattr(cast, persona))

    assert _columns(leaderboard) == ["K.Avg", "S.Avg", "Avg", "sw", "te", "yo"]
    reveal_at = cast.competition.groups.get(name="surprise").reveal_at
    assert leaderboard.notices == [f"yo (S.Avg) is shown to organizers only until {reveal_at:%Y-%m-%d %H:%M} UTC."]
    # Baselines sit where their Avg places them, unranked; ranks follow the Avg shown.
    assert _ranking(leaderboard) == [(1, "Team B"), (None, "Baseline"), (2, "Team A")]
    assert _avg(leaderboard.entries[0]) == pytest.approx(0.5)


def test_it_averages_and_ranks_over_revealed_subsets_only_before_the_reveal(cast, dev):
    leaderboard = leaderboard_for(phase=dev, user=cast.participant)

    # Over sw and te only Team A leads; yo (where Team B is strong) is not counted yet.
    assert _ranking(leaderboard) == [(1, "Team A"), (2, "Team B"), (None, "Baseline")]
    assert [_avg(e) for e in leaderboard.entries] == [0.5, 0.3, 0.2]


def test_it_shows_surprise_columns_to_everyone_from_the_reveal_on(cast, dev):
    reveal_at = cast.competition.groups.get(name="surprise").reveal_at
    with time_machine.travel(reveal_at, tick=False):
        leaderboard = leaderboard_for(phase=dev, user=cast.anonymous)

    assert _columns(leaderboard) == ["K.Avg", "S.Avg", "Avg", "sw", "te", "yo"]
    assert leaderboard.notices == []
    # The rows were ranked before the reveal: the page ranks by the Avg it shows and asks
    # for a refresh.
    assert leaderboard.stale
    assert _ranking(leaderboard) == [(1, "Team B"), (None, "Baseline"), (2, "Team A")]
    assert _avg(leaderboard.entries[0]) == pytest.approx(0.5)


def test_it_is_fresh_again_once_refreshed_after_the_reveal(cast, dev):
    with time_machine.travel(cast.competition.groups.get(name="surprise").reveal_at, tick=False):
        leaderboard_refresh(phase=dev)
        leaderboard = leaderboard_for(phase=dev, user=cast.anonymous)

    assert not leaderboard.stale
    assert list(dev.leaderboard_rows.filter(is_baseline=False).order_by("rank").values_list("rank", "team__name")) == [
        (1, "Team B"), (2, "Team A")]


def test_it_shows_the_surprise_columns_at_the_given_instant_without_the_clock(cast, dev):
    reveal_at = cast.competition.groups.get(name="surprise").reveal_at

    before = leaderboard_for(phase=dev, user=cast.participant, now=reveal_at - timedelta(seconds=1))
    at = leaderboard_for(phase=dev, user=cast.participant, now=reveal_at)

    assert "yo" not in _columns(before)
    assert "yo" in _columns(at)


@pytest.mark.parametrize("persona", ["anonymous", "participant", "other_organizer"])
def test_it_keeps_a_private_phase_closed_until_its_reveal(cast, persona):
    phase = cast.competition.phases.get(slug="test-b")
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5))
    leaderboard_refresh(phase=phase)

    closed = leaderboard_for(phase=phase, user=getattr(cast, persona))

    assert closed.exists and not closed.visible
    assert closed.entries == [] and closed.columns == []
    assert f"{phase.reveal_at:%Y-%m-%d %H:%M}" in closed.message
    with time_machine.travel(phase.reveal_at, tick=False):
        opened = leaderboard_for(phase=phase, user=getattr(cast, persona))
    assert opened.visible
    assert _ranking(opened) == [(1, "Team A")]


def test_it_shows_organizers_a_private_phase_with_a_notice(cast):
    phase = cast.competition.phases.get(slug="test-b")
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5, te=0.5))
    leaderboard_refresh(phase=phase)

    leaderboard = leaderboard_for(phase=phase, user=cast.organizer)

    assert leaderboard.visible
    assert _ranking(leaderboard) == [(1, "Team A")]
    assert any(n.startswith("Only organizers see this leaderboard.") for n in leaderboard.notices)


@pytest.mark.parametrize("persona", ["anonymous", "participant", "outsider"])
def test_it_shows_nothing_of_a_hidden_phase_to_non_organizers(cast, dev, persona):
    Phase.objects.filter(pk=dev.pk).update(visibility=Phase.Visibility.HIDDEN, reveal_at=None)
    dev.refresh_from_db()

    with time_machine.travel(timezone.now() + timedelta(days=365), tick=False):
        leaderboard = leaderboard_for(phase=dev, user=getattr(cast, persona))

    assert not leaderboard.visible
    assert leaderboard.entries == [] and leaderboard.columns == [] and leaderboard.notices == []
    assert leaderboard.message == "The leaderboard of this phase is not public."
    assert leaderboard_for(phase=dev, user=cast.organizer).visible


def test_it_rounds_for_participants_and_not_for_organizers(cast):
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.123456, te=0.654321))
    leaderboard_refresh(phase=phase)

    (participant_view,) = leaderboard_for(phase=phase, user=cast.participant).entries
    (organizer_view,) = leaderboard_for(phase=phase, user=cast.organizer).entries

    assert participant_view.values["sw"]["nDCG@10"] == 0.123
    assert participant_view.averages["known"]["nDCG@10"] == 0.389
    assert organizer_view.values["sw"]["nDCG@10"] == 0.123456
    assert organizer_view.averages["known"]["nDCG@10"] == pytest.approx(0.3888885)


def test_it_rounds_to_the_competitions_decimals(cast):
    Competition.objects.filter(pk=cast.competition.pk).update(decimals=2)
    phase = Phase.objects.select_related("competition").get(competition=cast.competition, slug="dev")
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.123456, te=0.654321))
    leaderboard_refresh(phase=phase)

    leaderboard = leaderboard_for(phase=phase, user=cast.anonymous)

    assert leaderboard.rounded_to == 2
    assert leaderboard.entries[0].values["te"]["nDCG@10"] == 0.65


def test_it_hides_an_unpublished_competition_from_non_organizers(cast, dev):
    Competition.objects.filter(pk=cast.competition.pk).update(is_published=False)
    dev = Phase.objects.select_related("competition").get(pk=dev.pk)

    assert not leaderboard_for(phase=dev, user=cast.participant).exists
    assert not leaderboard_for(phase=dev, user=cast.anonymous).exists
    assert leaderboard_for(phase=dev, user=cast.organizer).visible


def test_it_links_only_submissions_the_viewer_may_open(cast, dev):
    links = {e.team: e.url for e in leaderboard_for(phase=dev, user=cast.participant).entries}
    organizer_links = {e.team: e.url for e in leaderboard_for(phase=dev, user=cast.organizer).entries}
    anonymous_links = {e.team: e.url for e in leaderboard_for(phase=dev, user=cast.anonymous).entries}

    assert links["Team A"] and links["Team B"] is None
    assert all(organizer_links.values())
    assert anonymous_links == {"Team A": None, "Team B": None, "Baseline": organizer_links["Baseline"]}
    assert links["Baseline"] == organizer_links["Baseline"]  # baselines are public: anyone may open them
    assert client_for(cast.anonymous).get(links["Baseline"]).status_code == 200
    assert [e.is_own for e in leaderboard_for(phase=dev, user=cast.teammate).entries] == [True, False, False]


def test_it_names_the_qrels_version_and_flags_rows_on_an_older_one(cast):
    from tests.factories import make_qrels_release

    phase = cast.competition.phases.get(slug="dev")
    v1 = make_qrels_release(phase, {"sw": {"q1": {"d1": 1}}})
    make_scored(phase, team=cast.team_a, scores=ndcg(sw=0.5), release=v1)
    leaderboard_refresh(phase=phase)
    assert leaderboard_for(phase=phase, user=cast.anonymous).qrels_version == 1
    assert not leaderboard_for(phase=phase, user=cast.anonymous).mixed_qrels

    make_qrels_release(phase, {"sw": {"q1": {"d2": 1}}})

    leaderboard = leaderboard_for(phase=phase, user=cast.anonymous)
    assert leaderboard.qrels_version == 2
    assert leaderboard.mixed_qrels
