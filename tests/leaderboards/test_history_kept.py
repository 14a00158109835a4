"""The history page is read and drawn once per leaderboard version and kept (leaderboards/cache.py
for its data, competitions/page_cache.py for an anonymous visitor's whole page): drawing it reads
every change of the phase and writes a trace per team, so a page drawn again while nothing it
shows changed is a slow request in every worker that does it (docs/benchmarks.md, the history
page's tail). What it shows still changes at once: a scoring, an edit of the page around it."""
import re
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from cupboard.leaderboards import views_history
from cupboard.leaderboards.services import leaderboard_update
from tests.factories import make_user
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def dev(cast):
    """Dev: team A scores two hours ago, team B overtakes it an hour ago."""
    phase = cast.competition.phases.get(slug="dev")
    for hours, team, value in ((2, cast.team_a, 0.4), (1, cast.team_b, 0.5)):
        with time_machine.travel(timezone.now() - timedelta(hours=hours), tick=False):
            leaderboard_update(phase=phase, submission=make_scored(phase, team=team, scores=ndcg(sw=value, te=value)))
    return phase


@pytest.fixture
def drawn(monkeypatch) -> list:
    """Each time the page's history is read and drawn (the real `history_for`, counted)."""
    calls: list = []
    real = views_history.history_for

    def counted(**kwargs):
        calls.append(kwargs)
        return real(**kwargs)
    monkeypatch.setattr(views_history, "history_for", counted)
    return calls


def _page(user, phase) -> str:
    response = client_for(user).get(reverse("leaderboards:history", args=[phase.competition.slug, phase.slug]))
    assert response.status_code == 200
    return response.content.decode()


def _charts(page: str) -> str:
    return page.split('<section class="charts">')[1].split("</section>")[0]


def _moves(page: str) -> list[str]:
    """What moved at each change, newest first, as the page says it."""
    return [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", move)).strip()
            for move in re.findall(r"<li><strong>.*?</li>", page, re.S)]


def test_it_is_drawn_once_while_nothing_it_shows_changes(cast, dev, drawn):
    """Visitors and signed-in people of the public class, for as long as the entries live (their
    lifetime bounds how long an edit no signal reports takes to show; well past the second a
    process keeps the state it read): one drawing serves every one of them."""
    visitor = make_user("visitor")  # signed in, in no team: the public's board, their own page shell
    first = _page(None, dev)
    lifetime = min(settings.CUPBOARD_PAGE_CACHE_SECONDS, settings.CUPBOARD_LEADERBOARD_CACHE_SECONDS)
    for seconds in (0, 2, lifetime - 5):
        with time_machine.travel(timezone.now() + timedelta(seconds=seconds), tick=False):
            assert _page(None, dev) == first
            assert _charts(_page(visitor, dev)) == _charts(first)
    assert len(drawn) == 1


def test_a_scoring_is_drawn_at_once(cast, dev, drawn):
    before = _page(None, dev)
    leaderboard_update(phase=dev, submission=make_scored(dev, team=cast.team_a, method="better",
                                                         scores=ndcg(sw=0.7, te=0.7)))
    after = _page(None, dev)
    assert _moves(after)[:2] == ["Team A: 0.400 → 0.700 nDCG@10, rank 2 → 1", "Team B: 0.500 nDCG@10, rank 1 → 2"]
    assert _moves(after)[2:] == _moves(before) and "3 changes of 2 teams" in after
    assert len(drawn) == 2
    assert _page(None, dev) == after and len(drawn) == 2


def test_an_edit_of_the_page_around_the_charts_is_seen_at_once_without_drawing_them_again(cast, dev, drawn):
    before = _page(None, dev)
    cast.competition.title = "The Renamed Cup"
    cast.competition.save()
    after = _page(None, dev)
    assert "The Renamed Cup" in after and "The Renamed Cup" not in before
    assert _charts(after) == _charts(before)
    assert len(drawn) == 1


def test_a_scoring_during_the_freeze_draws_nothing_new_for_the_public(cast, dev, drawn):
    """The public's history stands still at the freeze, as its board: a later scoring changes
    nothing they see, so nothing is drawn for them; the organizers see it at once."""
    dev.freeze_at = timezone.now() - timedelta(minutes=30)
    dev.save()
    before = _page(None, dev)
    leaderboard_update(phase=dev, submission=make_scored(dev, team=cast.team_a, method="better",
                                                         scores=ndcg(sw=0.7, te=0.7)))
    assert _page(None, dev) == before and len(drawn) == 1
    newest = _moves(_page(cast.organizer, dev))[0]  # theirs averages the surprise language too
    assert newest == "Team A: 0.267 → 0.467 nDCG@10, rank 2 → 1" and len(drawn) == 2
