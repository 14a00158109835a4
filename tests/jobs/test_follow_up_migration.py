"""Follow-ups owed from before typed events (followups migration 0003) keep their work: their
keyword arguments become the event their handler now takes, and a worker carries them out."""
import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from cupboard.followups.codec import decode
from cupboard.submissions.events import RunFinished

pytestmark = pytest.mark.django_db(transaction=True)


def _migrate(to: str):
    executor = MigrationExecutor(connection)
    targets = [(app, to if app == "followups" else name) for app, name in executor.loader.graph.leaf_nodes()]
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def test_rows_owed_from_before_become_their_handlers_events():
    FollowUp = _migrate("0002_job_row_columns").get_model("followups", "FollowUp")
    mail = FollowUp.objects.create(event="run finished", handler="cupboard.flows.rescored.mail_unless_held",
                                   what="the team's mail", arguments={"submission_id": 7, "status": "scored"})
    phase = {"$row": "competitions.Phase", "pk": 3}
    rescore = FollowUp.objects.create(event="qrels released", handler="cupboard.flows.qrels_released._rescore",
                                      what="the re-scoring", status="failed",
                                      arguments={"phase": phase, "release": {"$row": "competitions.QrelsRelease", "pk": 2},
                                                 "actor": None})
    done = FollowUp.objects.create(event="run finished", handler="cupboard.flows.rescored.step_settle", what="x",
                                   status="done", arguments={"submission_id": 7, "status": "scored"})
    try:
        FollowUp = _migrate("0003_event_as_arguments").get_model("followups", "FollowUp")
        assert decode(FollowUp.objects.get(pk=mail.pk).arguments) == RunFinished(submission_id=7, status="scored")
        assert FollowUp.objects.get(pk=rescore.pk).arguments == {
            "$dataclass": "cupboard.competitions.events.QrelsReleased",
            "fields": {"phase": phase, "release": {"$row": "competitions.QrelsRelease", "pk": 2}, "actor": None,
                       "uploaded": [], "previous": None}}
        assert FollowUp.objects.get(pk=done.pk).arguments == {"submission_id": 7, "status": "scored"}  # history
    finally:
        _migrate_latest()


def _migrate_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
