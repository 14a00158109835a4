"""Under the Ladder the submitting team sees only what the Ladder releases (issue 33, item 2):
while the phase's judgments are hidden, the exact scores of every run it sends would be all
Blum & Hardt's boosting attack needs, so its pages, the API, its mail and the CLI show the
scores of the run its row shows and, for every other run, "not better than your shown run"
and no value. Organizers see everything; once the judgments are public, so does the team."""
import numpy as np
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from cupboard.accounts.services import api_token_create
from cupboard.competitions.ranking_rules import ranking_rules
from cupboard.leaderboards.services import leaderboard_update
from cupboard.notifications.mails import notification_render
from cupboard.notifications.models import Notification
from cupboard.notifications.services import notify_submission
from tests.leaderboards.test_ladder import BASE, CLEAR, NOISY, _scored

WORSE = BASE - 0.2  # clearly worse than the first run: never shown


@pytest.fixture
def hidden(cast):
    """Test A's shape: a live phase ranked by best, under the Ladder, its judgments hidden."""
    phase = cast.competition.phases.get(slug="dev")
    phase.ladder, phase.hidden_qrels, phase.reveal_at = True, True, None
    phase.save()
    runs = {}
    for name, values, minutes_ago in (("first", BASE, 40), ("noisy", NOISY, 30), ("worse", WORSE, 20)):
        runs[name] = _scored(phase, cast.team_a, values, minutes_ago=minutes_ago)
        leaderboard_update(phase=phase, submission=runs[name])
    return phase, runs


def _shown(values: np.ndarray, decimals: int) -> str:
    return f"{values.mean():.{decimals}f}"


def _logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_team_sees_its_shown_runs_scores_and_nothing_of_the_others(cast, hidden):
    phase, runs = hidden
    decimals, client = cast.competition.decimals, _logged_in(cast.participant)
    first = client.get(reverse("submissions:detail", args=[runs["first"].pk])).content.decode()
    assert _shown(BASE, decimals) in first
    for name, values in (("noisy", NOISY), ("worse", WORSE)):
        page = client.get(reverse("submissions:detail", args=[runs[name].pk])).content.decode()
        assert f"Not better than your shown run #{runs['first'].number}" in page
        assert _shown(values, decimals) not in page, f"{name}'s score is on its page"
        status = client.get(reverse("submissions:status", args=[runs[name].pk])).json()
        assert status["shown"] == "ladder" and status["scores"] == {} and status["averages"] == {}
        assert status["per_query"] == {}
    mine = client.get(reverse("submissions:mine", args=[cast.competition.slug])).content.decode()
    assert mine.count("not better than your shown run") == 2
    assert _shown(BASE, decimals) in mine and _shown(WORSE, decimals) not in mine and _shown(NOISY, decimals) not in mine


def test_the_api_lists_them_alike(cast, hidden):
    phase, runs = hidden
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=cast.participant)}")
    listed = api.get(reverse("submissions:api_submissions", args=[cast.competition.slug, phase.slug])).json()
    by_id = {answer["id"]: answer for answer in listed["submissions"]}
    assert by_id[runs["first"].pk]["averages"] and by_id[runs["first"].pk]["shown"] == "everything"
    assert all(by_id[runs[name].pk]["averages"] == {} and by_id[runs[name].pk]["shown"] == "ladder"
               for name in ("noisy", "worse"))
    one = api.get(reverse("submissions:api_status", args=[runs["worse"].pk])).json()
    assert one["scores"] == {} and one["shown"] == "ladder"


def test_the_mail_says_not_better_and_gives_no_value(cast, hidden, settings):
    phase, runs = hidden
    notify_submission(submission_id=runs["worse"].pk, event="scored")
    notification = Notification.objects.get(user=cast.participant, submission=runs["worse"])
    body = notification_render(notification, now=timezone.now()).body
    assert f"Not better than your shown run #{runs['first'].number}" in body
    assert _shown(WORSE, cast.competition.decimals) not in body and "nDCG@10" not in body


def test_a_run_that_climbs_is_shown_then(cast, hidden):
    phase, runs = hidden
    clear = _scored(phase, cast.team_a, CLEAR, minutes_ago=10)
    leaderboard_update(phase=phase, submission=clear)
    status = _logged_in(cast.participant).get(reverse("submissions:status", args=[clear.pk])).json()
    assert status["shown"] == "everything" and status["averages"]
    first = _logged_in(cast.participant).get(reverse("submissions:status", args=[runs["first"].pk])).json()
    assert first["shown"] == "ladder", "replaced: no longer the run the board shows"


def test_organizers_always_and_the_team_once_the_judgments_are_public(cast, hidden):
    phase, runs = hidden
    organizer = _logged_in(cast.organizer).get(reverse("submissions:status", args=[runs["worse"].pk])).json()
    assert organizer["averages"] and organizer["shown"] == "everything"
    phase.hidden_qrels = False
    phase.save()
    team = _logged_in(cast.participant).get(reverse("submissions:status", args=[runs["worse"].pk])).json()
    assert team["averages"] and team["shown"] == "everything"


def test_the_rules_page_says_so(cast, hidden):
    rule = next(line for line in ranking_rules(cast.competition) if line.startswith(hidden[0].name))
    assert "the team itself sees only what the Ladder releases" in rule and "not better than your shown run" in rule
