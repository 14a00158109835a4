"""The Viewer: one object per request answers every visibility question, once."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import RequestFactory

from cupboard.competitions.models import Phase
from cupboard.competitions.viewer import Viewer, viewer_for
from cupboard.leaderboards.charts import bars_figure
from cupboard.leaderboards.selectors import leaderboard_for
from cupboard.leaderboards.services import leaderboard_refresh
from tests.factories import make_team
from tests.personas import client_for, personas  # noqa: F401

pytestmark = pytest.mark.django_db


def test_it_asks_the_database_who_organizes_once(personas, django_assert_num_queries):
    viewer = Viewer(personas.participant, personas.competition)
    with django_assert_num_queries(1):
        assert [viewer.is_organizer for _ in range(5)] == [False] * 5
    with django_assert_num_queries(0):
        assert Viewer(personas.staff, personas.competition).is_organizer
        assert not Viewer(personas.anonymous, personas.competition).is_organizer


def test_it_is_built_once_per_request_and_competition(personas):
    request = RequestFactory().get("/")
    request.user = personas.organizer
    assert viewer_for(request, personas.competition) is viewer_for(request, personas.competition)
    assert viewer_for(request, personas.other_competition) is not viewer_for(request, personas.competition)


def test_it_sees_at_the_instant_asked_for_even_when_built_before(personas, django_assert_num_queries):
    """A view builds the viewer at its now; a board read a moment earlier asks for that instant
    and must get it (it was handed the first viewer, clock and all)."""
    request = RequestFactory().get("/")
    request.user = personas.participant
    first = viewer_for(request, personas.competition)
    assert not first.is_organizer  # read now, not again below
    earlier = first.now - timedelta(days=3)
    with django_assert_num_queries(0):
        moved = viewer_for(request, personas.competition, earlier)
    assert moved.now == earlier and moved.user == first.user and not moved.is_organizer
    assert viewer_for(request, personas.competition, first.now) is first
    assert viewer_for(request, personas.competition) is first


def test_every_viewer_of_a_request_sees_by_the_same_clock(personas):
    request = RequestFactory().get("/")
    request.user = personas.participant
    first = viewer_for(request, personas.competition)
    assert viewer_for(request, personas.other_competition).now == first.now


def test_a_draft_and_everything_in_it_is_for_its_organizers_only(personas):
    personas.competition.is_published = False
    expected = {"organizer": True, "staff": True, "other_organizer": False, "participant": False, "anonymous": False}
    assert {name: Viewer(getattr(personas, name), personas.competition).sees_competition
            for name in expected} == expected


def test_it_words_the_hidden_group_notice_one_way(personas):
    viewer = Viewer(personas.outsider, personas.competition)
    reveal_at = personas.competition.groups.get(name="surprise").reveal_at
    [notice] = viewer.hidden_groups
    assert notice.text == "1 surprise language"
    assert str(notice) == f"1 surprise language, announced on {reveal_at:%Y-%m-%d %H:%M} UTC."
    assert Viewer(personas.organizer, personas.competition).hidden_groups == []
    assert Viewer(personas.outsider, personas.competition, now=reveal_at).hidden_groups == []


@pytest.mark.parametrize("rule, own, baseline, per_query", [
    (Phase.BeforeReveal.EVERYTHING, True, True, True),
    (Phase.BeforeReveal.OWN, True, False, False),
    (Phase.BeforeReveal.STATUS, False, False, False),
])
def test_it_applies_the_phase_rule_until_the_reveal(personas, rule, own, baseline, per_query):
    from cupboard.submissions.models import Submission

    phase = personas.competition.phases.get(slug="test-b")
    phase.before_reveal, phase.hidden_qrels, phase.per_query_visible = rule, False, True
    mine = Submission(phase=phase, team=personas.team_a, number=1)
    base = Submission(phase=phase, team=None, is_baseline=True, number=1)
    viewer = Viewer(personas.participant, personas.competition)
    assert (viewer.sees_scores(mine), viewer.sees_scores(base), viewer.sees_per_query(mine)) == \
        (own, baseline, per_query)
    assert not viewer.sees_scores(Submission(phase=phase, team=personas.team_b, number=1))
    later = Viewer(personas.participant, personas.competition, now=phase.reveal_at + timedelta(seconds=1))
    assert later.sees_scores(mine) and later.sees_scores(base)
    organizer = Viewer(personas.organizer, personas.competition)
    assert organizer.sees_scores(mine) and organizer.sees_scores(base) and organizer.sees_per_query(mine)


@pytest.mark.parametrize("hidden, visible, before, after", [
    (False, True, True, True),    # open judgments, shown: as the runs come (rule "everything")
    (False, False, False, False),  # open judgments, the organizers keep them back: never
    (True, False, False, True),   # the Cup's Test B: hidden judgments, from their reveal on
    (True, True, False, True),    # hidden judgments marked "visible": closed while hidden all the same
])
def test_per_query_values_the_table_compare_and_reports_follow_one_rule(personas, hidden, visible, before, after):
    """`phase_shows_per_query` says it for the per-query table, Compare and the per-topic
    reports alike (these add only what their best/median/worst need: the board, unfrozen)."""
    from cupboard.submissions.models import Submission

    phase = personas.competition.phases.get(slug="test-b")
    phase.before_reveal, phase.hidden_qrels, phase.per_query_visible = Phase.BeforeReveal.EVERYTHING, hidden, visible
    mine = Submission(phase=phase, team=personas.team_a, number=1)
    for now, shown in ((phase.reveal_at - timedelta(days=1), before), (phase.reveal_at + timedelta(seconds=1), after)):
        viewer = Viewer(personas.participant, personas.competition, now=now)
        assert (viewer.phase_shows_per_query(phase), viewer.sees_per_query(mine)) == (shown, shown)
        assert viewer.sees_topic_reports(phase) == (shown and viewer.sees_leaderboard(phase))
        organizer = Viewer(personas.organizer, personas.competition, now=now)
        assert organizer.sees_per_query(mine) and organizer.sees_topic_reports(phase)


def test_pages_and_charts_show_the_competitions_decimals(personas):
    """`_table.html` and the charts showed 3 decimals whatever `decimals` said."""
    from tests.leaderboards.conftest import make_scored, ndcg

    competition = personas.competition
    competition.decimals = 2
    competition.save(update_fields=["decimals"])
    dev = competition.phases.get(slug="dev")
    make_scored(dev, team=make_team(competition, name="Precise"), scores=ndcg(sw=0.123456, te=0.5))
    leaderboard_refresh(phase=dev)
    html = client_for(None).get(f"/c/{competition.slug}/dev/leaderboard/").content.decode()
    assert ">0.12<" in html and ">0.123<" not in html
    figure = bars_figure(leaderboard_for(phase=dev, user=personas.anonymous), metric="nDCG@10")
    assert figure["data"][0]["hovertemplate"].startswith("%{x}: %{y:.2f}")
    organizer_html = client_for(personas.organizer).get(f"/c/{competition.slug}/dev/leaderboard/").content.decode()
    assert ">0.12<" in organizer_html  # organizers' data keeps full precision; the page shows the same digits
