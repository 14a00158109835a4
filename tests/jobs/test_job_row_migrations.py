"""The job rows' renames (jobs/models.py JobRow) are real migrations that keep the data: a
verification's started_at and nudged_at, a mail's tried_at, written before them, are its
claimed_at, queued_at (and heartbeat_at) after. Runs on SQLite and on PostgreSQL."""
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("submissions", "0015_rescore_step"), ("notifications", "0005_change_mails_topics")]
AFTER = [("submissions", "0016_job_row_names"), ("notifications", "0006_job_row_names")]
STARTED, NUDGED, TRIED = (datetime(2026, 1, day, 12, 0, tzinfo=UTC) for day in (1, 2, 3))


def _migrate(at):
    """The apps named in `at` at those migrations, every other app at its latest migration that
    needs none of their later ones (systems, say, came after them); the models as they were then."""
    executor = MigrationExecutor(connection)
    graph = executor.loader.graph
    later = {node for app, name in at for node in graph.nodes
             if node[0] == app and node not in graph.forwards_plan((app, name))}
    excluded = {needing for node in later for needing in graph.backwards_plan(node)}
    targets = []
    for app, leaf in graph.leaf_nodes():
        kept = [node for node in graph.forwards_plan((app, leaf)) if node[0] == app and node not in excluded]
        targets.append((app, kept[-1][1] if kept else None))
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state([t for t in targets if t[1]]).apps


def test_the_renamed_columns_keep_their_values():
    old = _migrate(BEFORE)
    Competition, Phase = old.get_model("competitions", "Competition"), old.get_model("competitions", "Phase")
    User = old.get_model(settings.AUTH_USER_MODEL)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    competition = Competition.objects.create(slug="old", title="Old", starts_at=now)
    phase = Phase.objects.create(competition=competition, slug="dev", name="Dev", opens_at=now,
                                 closes_at=now.replace(month=2))
    user = User.objects.create(username="someone", email="someone@example.org")
    verification = old.get_model("submissions", "Verification").objects.create(
        phase=phase, reason="organizer", status="running", started_at=STARTED, nudged_at=NUDGED)
    mail = old.get_model("notifications", "Notification").objects.create(
        user=user, kind="submission", event="scored", key="k", competition=competition, tried_at=TRIED)
    new = _migrate(AFTER)
    try:
        row = new.get_model("submissions", "Verification").objects.values("claimed_at", "queued_at").get(
            pk=verification.pk)
        assert row == {"claimed_at": STARTED, "queued_at": NUDGED}
        sent = new.get_model("notifications", "Notification").objects.values("queued_at", "heartbeat_at").get(pk=mail.pk)
        assert sent == {"queued_at": TRIED, "heartbeat_at": TRIED}
    finally:
        _migrate([])
