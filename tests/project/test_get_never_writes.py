"""GET never writes: the pages that used to publish due audit events (commitments, audit
log) or to ask for a leaderboard refresh now only read; the beat tasks do that work.

Checked at the moments the old code wrote: commitments and a reveal due but not yet
written, and a leaderboard computed before a surprise group's reveal.
"""
from datetime import timedelta
from unittest import mock

import pytest
import time_machine
from celery.app.task import Task
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from kombu import Producer

from cupboard.audit.models import AuditEvent
from cupboard.leaderboards.services import leaderboard_refresh
from tests.factories import make_qrels_release
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import personas  # noqa: F401

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE", "FOR UPDATE", "FOR NO KEY UPDATE")
JUDGMENTS = {"sw": {"1": {"d1": 1}}, "te": {"2": {"d3": 1}}, "yo": {"3": {"d4": 1}}}


def _urls(cup) -> list[str]:
    return [reverse("competitions:commitments", args=[cup.slug]), reverse("audit:log", args=[cup.slug]),
            reverse("leaderboards:phase", args=[cup.slug, "dev"]),
            reverse("leaderboards:export_json", args=[cup.slug, "dev"]),
            reverse("leaderboards:export_csv", args=[cup.slug, "dev"]), reverse("competitions:feed", args=[cup.slug])]


def _writes_of_gets(personas, urls) -> list[str]:
    """The writing SQL statements and sent tasks of GETs of `urls` by each persona."""
    clients = [personas.client_for(getattr(personas, name)) for name in ("anonymous", "participant", "organizer")]
    # Every message to a broker goes through kombu's Producer.publish, whatever sends it.
    with CaptureQueriesContext(connection) as queries, mock.patch.object(Producer, "publish") as sent, \
            mock.patch.object(Task, "apply_async") as applied:
        for client in clients:
            for url in urls:
                assert client.get(url).status_code == 200, url
    statements = [q["sql"] for q in queries.captured_queries]
    return ([s for s in statements if any(w in s.upper() for w in WRITES)]
            + [str(c) for c in sent.call_args_list + applied.call_args_list])


def test_it_writes_nothing_while_events_and_a_refresh_are_due(personas):
    cup = personas.competition
    dev = cup.phases.get(slug="dev")
    make_scored(dev, team=personas.team_a, scores=ndcg(sw=0.8, te=0.8, yo=0.0))
    leaderboard_refresh(phase=dev)
    make_qrels_release(cup.phases.get(slug="test-b"), JUDGMENTS)
    AuditEvent.objects.filter(competition=cup).delete()  # the commitment is due again, unwritten
    reveal = cup.groups.get(name="surprise").reveal_at

    with time_machine.travel(reveal + timedelta(minutes=1), tick=False):
        assert _writes_of_gets(personas, _urls(cup)) == []
    assert not AuditEvent.objects.filter(competition=cup).exists()


def test_the_beat_tasks_do_the_work_instead(personas):
    from cupboard.flows.tasks import publish_due_events_task
    from cupboard.leaderboards.tasks import refresh_stale_leaderboards

    cup = personas.competition
    dev = cup.phases.get(slug="dev")
    make_scored(dev, team=personas.team_a, scores=ndcg(sw=0.8, te=0.8, yo=0.0))
    leaderboard_refresh(phase=dev)
    with time_machine.travel(cup.groups.get(name="surprise").reveal_at + timedelta(minutes=1), tick=False):
        make_qrels_release(cup.phases.get(slug="test-b"), JUDGMENTS)
        AuditEvent.objects.filter(competition=cup).delete()
        assert publish_due_events_task.run() == 1
        assert refresh_stale_leaderboards.run() == [dev.pk]
