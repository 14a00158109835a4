"""What `/metrics` tells Prometheus: read at each scrape, never kept in a process.

Numbers about submissions, the queue and mails are read from the database at the scrape, so
every web process answers the same and they equal what the database holds. Counts of events
(HTTP answers, throttled requests, leaderboard refreshes) come from the tallies every process
adds to in the cache (cupboard/tallies.py).

Distributions over a recent window are gauge histograms (Prometheus' type for a histogram that
may go down): the time from joining the queue to scored of the submissions scored in the last
`WINDOW`; and the median scoring time per subset over the same window.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime, timedelta

from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeHistogramMetricFamily, GaugeMetricFamily, Metric

from cupboard.notifications.models import Notification
from cupboard.submissions.models import QueryScores, Submission
from cupboard.submissions.queue import in_line, live_workers
from cupboard.tallies import STATUS_CLASSES, tallies

WINDOW = timedelta(hours=24)
WAIT_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600)


def _submissions() -> Metric:
    family = GaugeMetricFamily("cupboard_submissions", "Submissions by status", labels=["status"])
    counts = dict(Submission.objects.order_by().values_list("status").annotate(n=Count("pk")))
    for status in Submission.Status.values:
        family.add_metric([status], counts.get(status, 0))
    return family


def _queue(now: datetime) -> Iterator[Metric]:
    depth = GaugeMetricFamily("cupboard_queue_depth", "Submissions waiting for a worker, per phase",
                              labels=["competition", "phase"])
    oldest = GaugeMetricFamily("cupboard_queue_oldest_seconds", "How long the longest-waiting submission has waited",
                               labels=["competition", "phase"])
    rows = (in_line().order_by().values("phase__competition__slug", "phase__slug")
            .annotate(n=Count("pk"), since=Min("waiting_since")))
    for row in sorted(rows, key=lambda r: (r["phase__competition__slug"], r["phase__slug"])):
        labels = [row["phase__competition__slug"], row["phase__slug"]]
        depth.add_metric(labels, row["n"])
        if row["since"] is not None:
            oldest.add_metric(labels, round((now - row["since"]).total_seconds(), 3))
    yield depth
    yield oldest
    yield GaugeMetricFamily("cupboard_workers_live", "Worker processes scoring now or seen scoring in the last "
                            "10 minutes", value=live_workers(now))


def _upload_to_scored(now: datetime) -> Metric:
    pairs = Submission.objects.filter(status=Submission.Status.SCORED, scored_at__gte=now - WINDOW,
                                      waiting_since__isnull=False).values_list("waiting_since", "scored_at")
    waits = [(scored - since).total_seconds() for since, scored in pairs]
    buckets = [(str(float(bound)), sum(1 for w in waits if w <= bound)) for bound in WAIT_BUCKETS]
    return GaugeHistogramMetricFamily(
        "cupboard_upload_to_scored_seconds", "From joining the queue (upload, re-score) to scored, of the "
        "submissions scored in the last 24 h", buckets=[*buckets, ("+Inf", len(waits))], gsum_value=sum(waits))


def _scoring_time(now: datetime) -> Metric:
    family = GaugeMetricFamily("cupboard_scoring_seconds_median", "Median seconds to score one subset's run, "
                               "over the last 24 h", labels=["competition", "subset"])
    timings = defaultdict(list)
    rows = QueryScores.objects.filter(seconds__isnull=False, submission__scored_at__gte=now - WINDOW).values_list(
        "submission__phase__competition__slug", "subset__code", "seconds")
    for competition, subset, seconds in rows:
        timings[competition, subset].append(seconds)
    for (competition, subset), seconds in sorted(timings.items()):
        family.add_metric([competition, subset], round(statistics.median(seconds), 4))
    return family


def _mails() -> Metric:
    family = GaugeMetricFamily("cupboard_mails_pending", "Mails neither sent nor skipped yet; failing: tried and "
                               "refused at least once", labels=["state"])
    pending = Notification.objects.filter(sent_at__isnull=True, skipped="")
    family.add_metric(["waiting"], pending.filter(last_error="").count())
    family.add_metric(["failing"], pending.exclude(last_error="").count())
    return family


def _tallies() -> Iterator[Metric]:
    counts = tallies()
    http = CounterMetricFamily("cupboard_http_responses", "HTTP answers by status class", labels=["class"])
    for status_class in STATUS_CLASSES:
        http.add_metric([status_class], counts[f"http_{status_class}"])
    yield http
    yield CounterMetricFamily("cupboard_http_throttled", "HTTP answers 429 Too Many Requests",
                              value=counts["http_throttled"])
    for what, many in (("refresh", "refreshes"), ("update", "updates")):
        yield CounterMetricFamily(f"cupboard_leaderboard_{many}", f"Leaderboard {many} finished",
                                  value=counts[f"leaderboard_{many}"])
        yield CounterMetricFamily(f"cupboard_leaderboard_{what}_seconds", f"Seconds spent in leaderboard {many}",
                                  value=counts[f"leaderboard_{what}_ms"] / 1000)


class SiteCollector:
    """Every family above, read afresh at each `collect` (a scrape)."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        yield _submissions()
        yield from _queue(now)
        yield _upload_to_scored(now)
        yield _scoring_time(now)
        yield _mails()
        yield from _tallies()


def metrics_text() -> bytes:
    """The Prometheus text exposition of the site's metrics now."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SiteCollector())
    return generate_latest(registry)
