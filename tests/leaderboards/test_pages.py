"""The leaderboard pages: what each persona sees in the HTML, charts, and the query count."""
from datetime import timedelta

import pytest
import time_machine
from django.templatetags.static import static
from django.urls import reverse

from cupboard.competitions.models import Competition, Phase, Subset
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.staticfiles import PLOTLY
from tests.factories import make_competition, make_subset, make_team
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db

# plotly's default template mentions every trace type; only our heatmap trace has this colorbar.
HEATMAP_TRACE = '"colorbar":{"title":{"text":"nDCG@10"}}'


@pytest.fixture
def dev(cast):
    phase = cast.competition.phases.get(slug="dev")
    make_scored(phase, team=cast.team_a, method="a-run",
                scores={"sw": {"nDCG@10": 0.5, "R@100": 0.81}, "te": {"nDCG@10": 0.4, "R@100": 0.62},
                        "yo": {"nDCG@10": 0.654, "R@100": 0.555}})
    make_scored(phase, team=cast.team_b, method="b-run", scores=ndcg(sw=0.3, te=0.2))
    make_scored(phase, method="BM25", scores=ndcg(sw=0.2, te=0.2, yo=0.543))
    leaderboard_refresh(phase=phase)
    return phase


def _url(phase):
    return reverse("leaderboards:phase", args=[phase.competition.slug, phase.slug])


def _get(user, url):
    response = client_for(user).get(url)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("persona", ["anonymous", "participant"])
def test_it_leaves_surprise_languages_out_of_the_page_before_the_reveal(cast, dev, persona):
    html = _get(getattr(cast, persona), _url(dev))

    assert ">sw</th>" in html and ">K.Avg</th>" in html and ">Avg</th>" in html
    assert ">yo</th>" not in html and "S.Avg" not in html and "Yoruba" not in html
    # (plotly's default template holds numbers like 0.777..., so the values are chosen to be unique)
    assert "0.654" not in html and "0.543" not in html
    assert '"x":["sw","te"]' in html
    assert "1 surprise language, announced on" in html


def test_it_shows_surprise_languages_on_the_page_from_the_reveal_on(cast, dev):
    reveal_at = cast.competition.groups.get(name="surprise").reveal_at
    with time_machine.travel(reveal_at + timedelta(minutes=1), tick=False):
        html = _get(cast.anonymous, _url(dev))

    assert ">yo</th>" in html and ">S.Avg</th>" in html and "0.654" in html
    assert '"x":["sw","te","yo"]' in html


def test_it_shows_organizers_surprise_languages_before_the_reveal(cast, dev):
    html = _get(cast.organizer, _url(dev))

    assert ">yo</th>" in html and ">S.Avg</th>" in html and "0.654" in html


def test_it_shows_scores_to_three_decimals_with_baselines_badged(cast, dev):
    html = _get(cast.anonymous, _url(dev))

    assert '<td class="num avg" data-value="0.45">0.450</td>' in html
    assert 'BM25' in html and '<span class="badge">baseline</span>' in html
    assert html.index("a-run") < html.index("b-run") < html.index("BM25")


def test_it_switches_the_metric(cast, dev):
    html = _get(cast.anonymous, _url(dev) + "?metric=R%40100")

    assert "0.810" in html and "0.620" in html
    assert "<strong>R@100</strong>" in html


def test_it_links_a_teams_own_submission_only(cast, dev):
    html = _get(cast.participant, _url(dev))
    own = dev.submissions.get(team=cast.team_a)
    other = dev.submissions.get(team=cast.team_b)

    assert f'href="{own.get_absolute_url()}"' in html
    assert f'href="{other.get_absolute_url()}"' not in html


@pytest.mark.parametrize("persona", ["anonymous", "participant"])
def test_it_shows_nothing_of_a_private_phase_before_its_reveal(cast, persona):
    phase = cast.competition.phases.get(slug="test-b")
    make_scored(phase, team=cast.team_a, method="secret-run", scores=ndcg(sw=0.123, te=0.456))
    leaderboard_refresh(phase=phase)

    html = _get(getattr(cast, persona), _url(phase))

    assert "not public until" in html
    assert "secret-run" not in html and "Team A" not in html and "0.123" not in html and "<table" not in html
    with time_machine.travel(phase.reveal_at, tick=False):
        assert "secret-run" in _get(getattr(cast, persona), _url(phase))


def test_it_shows_nothing_of_a_hidden_phase(cast, dev):
    Phase.objects.filter(pk=dev.pk).update(visibility=Phase.Visibility.HIDDEN)

    html = _get(cast.participant, _url(dev))

    assert "The leaderboard of this phase is not public." in html
    assert "a-run" not in html and "<table" not in html and "plotly" not in html
    assert "a-run" in _get(cast.organizer, _url(dev))


def test_it_404s_for_an_unpublished_competition(cast, dev):
    Competition.objects.filter(pk=cast.competition.pk).update(is_published=False)

    assert client_for(cast.participant).get(_url(dev)).status_code == 404
    assert client_for(cast.organizer).get(_url(dev)).status_code == 200


def test_it_draws_bars_with_plotly_served_locally(cast, dev):
    html = _get(cast.anonymous, _url(dev))

    assert html.count(f'<script src="{static(PLOTLY)}" defer></script>') == 1
    assert '"type":"bar"' in html and "1. Team A: a-run" in html and "BM25 (baseline)" in html
    assert "cdn.plot.ly" not in html and "cdn.jsdelivr" not in html
    assert HEATMAP_TRACE not in html


def test_it_serves_its_plotly_js_build_at_the_version_the_plotly_package_writes_for(db):
    """The build with the traces we draw (1.2 MB, not the full 4.8 MB: docs/benchmarks.md), the
    plotly.js the installed plotly package bundles: its template and figures are written for it."""
    import plotly.offline

    response = client_for(None).get(static(PLOTLY))
    body = b"".join(response.streaming_content)

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert body.startswith(f"/* plotly.js v{plotly.offline.get_plotlyjs_version()} (MIT): core, bar, heatmap".encode())
    assert len(body) < 2_000_000


def test_it_draws_a_source_by_target_heatmap_for_pair_subsets(db):
    competition = make_competition(slug="clir", benchmark="clirmatrix", known=[], surprise=[])
    for position, code in enumerate(["en-de", "en-fr", "de-fr", "de-en"]):
        make_subset(competition, code=code, name=code, kind=Subset.Kind.PAIR, position=position)
    phase = competition.phases.get(slug="dev")
    team = make_team(competition, name="Pairs")
    make_scored(phase, team=team, method="xlm", scores=ndcg(**{"en-de": 0.11, "en-fr": 0.22, "de-fr": 0.33, "de-en": 0.44}))
    leaderboard_refresh(phase=phase)

    html = _get(None, _url(phase))

    assert HEATMAP_TRACE in html
    # rows = sources (en, de), columns = targets (de, fr, en); en-en and de-de do not exist.
    assert '"z":[[0.11,0.22,null],[null,0.33,0.44]]' in html
    assert '"x":["de","fr","en"]' in html and '"y":["en","de"]' in html


def test_it_gives_test_sets_their_own_columns(db):
    competition = make_competition(slug="dureader", benchmark="dureader", known=[], surprise=[])
    make_subset(competition, code="cmedqa", name="cMedQA", kind=Subset.Kind.TEST_SET, position=0)
    make_subset(competition, code="search", name="DuReader search", kind=Subset.Kind.TEST_SET, position=1)
    phase = competition.phases.get(slug="dev")
    make_scored(phase, team=make_team(competition, name="Readers"), scores=ndcg(cmedqa=0.31, search=0.42))
    leaderboard_refresh(phase=phase)

    html = _get(None, _url(phase))

    assert 'title="cMedQA">cmedqa</th>' in html and 'title="DuReader search">search</th>' in html
    assert "0.310" in html and "0.420" in html and '"type":"bar"' in html


def test_it_lists_a_competitions_phase_leaderboards(cast, dev):
    html = _get(cast.anonymous, reverse("leaderboards:competition", args=[cast.competition.slug]))

    assert f'href="{_url(dev)}"' in html
    test_b = cast.competition.phases.get(slug="test-b")
    assert f'href="{_url(test_b)}"' not in html and "not public until" in html
    organizer_html = _get(cast.organizer, reverse("leaderboards:competition", args=[cast.competition.slug]))
    assert f'href="{_url(test_b)}"' in organizer_html


def test_it_pins_the_query_count_of_the_page(cast, dev, django_assert_num_queries):
    for team in range(5):  # more rows must not mean more queries
        make_scored(dev, team=make_team(cast.competition, name=f"Extra {team}"), scores=ndcg(sw=0.1))
    leaderboard_refresh(phase=dev)
    anonymous, participant, organizer = client_for(None), client_for(cast.participant), client_for(cast.organizer)

    # 1 the cache key's state (phase, competition, its groups' reveal instants around now); on a
    # miss: 2 phase + competition, the board: 3 subsets + groups, 4 the phase's topics (its
    # subsets), 5 the phase's open re-scoring step (none), 6 rows + submissions + teams, 7 current
    # qrels release
    with django_assert_num_queries(7):
        anonymous.get(_url(dev))
    with django_assert_num_queries(0):  # cached, for a visitor without cookies: the state this process
        anonymous.get(_url(dev))         # read within CUPBOARD_BOARD_STATE_SECONDS (leaderboards/cache.py)
    # the same, but the state this process read (the session is told by its stamp,
    # accounts/signed_in.py), plus: session, user, the session's expiry, organizer check (once
    # per request), the viewer's team
    with django_assert_num_queries(11):
        participant.get(_url(dev))
    # session, user, expiry, phase + competition, organizer check, then the state afresh (an
    # organizer's own edits show at once); the board: subsets + groups, the phase's topics, open
    # re-scoring step, rows, qrels release
    with django_assert_num_queries(11):
        organizer.get(_url(dev))
    # who they are is remembered for the session (leaderboards/viewers.py); the page shell, set
    # with the CSRF cookie the first answer gave: the state afresh, then the shell's own render
    # (phase + competition, session, user)
    with django_assert_num_queries(4):
        organizer.get(_url(dev))
    with django_assert_num_queries(1):  # the whole page kept for this session and CSRF cookie: the state
        organizer.get(_url(dev))


def test_it_says_so_when_nothing_is_scored_yet(cast):
    html = _get(cast.anonymous, _url(cast.competition.phases.get(slug="dev")))

    assert "No scored submissions yet." in html and "<table" not in html and "plotly" not in html
