"""/metrics: Prometheus' scrape, token-protected, its numbers equal to the database's after a
burst of uploads, refusals and throttled requests (issue 26)."""
from collections import Counter
from datetime import timedelta

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from cupboard.accounts.services import api_token_create
from cupboard.notifications.models import Notification
from cupboard.submissions.models import Submission
from cupboard.submissions.queue import in_line
from cupboard.submissions.scoring import submission_score
from tests.submissions.conftest import _worlds, good_sw, run_bytes, upload, world  # noqa: F401 - world is a fixture

TOKEN = "scrape-me"
pytestmark = pytest.mark.django_db


def scrape() -> dict[tuple[str, tuple], float]:
    """{(sample name, sorted labels): value} of one scrape."""
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.content.decode()) for sample in family.samples}


def test_no_metrics_without_a_token_configured_nor_without_the_right_one(settings):
    settings.CUPBOARD_METRICS_TOKEN = ""
    assert Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 404
    settings.CUPBOARD_METRICS_TOKEN = TOKEN
    assert Client().get("/metrics").status_code == 401
    wrong = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-you")
    assert wrong.status_code == 401 and wrong["WWW-Authenticate"].startswith("Bearer")
    assert Client().get("/metrics", HTTP_AUTHORIZATION=f"bearer  {TOKEN}").status_code == 200


@override_settings(CUPBOARD_METRICS_TOKEN=TOKEN, CUPBOARD_RATES={"api-token": "6/m"})
def test_after_a_burst_the_counts_equal_the_database_s(world):
    before = scrape()
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=world.participant)}")
    url = reverse("submissions:api_upload", args=[world.competition.slug, "dev"])
    statuses = Counter()
    for i in range(9):  # six fit the limit: a few are stored, one is refused as invalid, the rest throttled
        content = run_bytes(good_sw(), tag=f"burst{i}") if i != 2 else b"1 Q0 bad-doc 1 1.0 t\n"
        statuses[api.post(url, {"method_name": f"run {i}", "files": [upload("run.sw.txt", content)]}).status_code] += 1
    assert statuses[429] > 0 and statuses[400] == 1
    stored = list(Submission.objects.order_by("pk"))
    submission_score(submission_id=stored[0].pk)  # one scored: a leaderboard update, a mail waiting
    Submission.objects.filter(pk=stored[1].pk).update(waiting_since=timezone.now() - timedelta(seconds=90))
    after = scrape()

    by_status = Counter(Submission.objects.values_list("status", flat=True))
    for status in Submission.Status.values:
        assert after["cupboard_submissions", (("status", status),)] == by_status[status]
    queue = (("competition", world.competition.slug), ("phase", "dev"))
    assert after["cupboard_queue_depth", queue] == in_line().filter(phase=world.dev).count() == len(stored) - 1
    assert 90 <= after["cupboard_queue_oldest_seconds", queue] < 120
    assert after["cupboard_mails_pending", (("state", "waiting"),)] == Notification.objects.filter(
        sent_at__isnull=True, skipped="", last_error="").count()

    def grew(name, labels=()):
        return after[name, labels] - before.get((name, labels), 0)
    assert grew("cupboard_http_throttled_total") == statuses[429]
    assert grew("cupboard_http_responses_total", (("class", "4xx"),)) >= statuses[400] + statuses[429]
    assert grew("cupboard_http_responses_total", (("class", "2xx"),)) >= statuses[201]
    assert grew("cupboard_leaderboard_updates_total") == 1 and grew("cupboard_leaderboard_update_seconds_total") > 0
    assert after["cupboard_upload_to_scored_seconds_gcount", ()] == 1
    assert after["cupboard_scoring_seconds_median", (("competition", world.competition.slug), ("subset", "sw"))] > 0
