"""A follow-up's handler is called with its event (cupboard/events.py, typed events) instead of
keyword arguments. Rows still owed from before (waiting, running, or failed with attempts a
worker may be given again) keep their work: their keyword arguments, already stored as the codec
stores them, become the fields of the event their handler now takes, with what the handler never
read filled in."""
from django.db import migrations, models

SUBMISSIONS, COMPETITIONS = "cupboard.submissions.events", "cupboard.competitions.events"
# handler -> (its event's dataclass, the fields the old arguments lack and it never read)
EVENT_OF = {
    "cupboard.flows.run_scored.leaderboard_row_update": (f"{SUBMISSIONS}.RunScored", {}),
    "cupboard.flows.rescored.mail_unless_held": (f"{SUBMISSIONS}.RunFinished", {}),
    "cupboard.flows.rescored.step_settle": (f"{SUBMISSIONS}.RunFinished", {}),
    "cupboard.flows.team_changed.leaderboards_refresh": (f"{SUBMISSIONS}.RunsMoved", {}),
    "cupboard.flows.qrels_released._rescore": (f"{COMPETITIONS}.QrelsReleased", {"uploaded": [], "previous": None}),
    "cupboard.flows.topics_changed._rescore": (f"{COMPETITIONS}.TopicsChanged", {}),
    "cupboard.flows.topics_changed._tell_teams": (f"{COMPETITIONS}.TopicsChanged", {"actor": None, "rescore": False}),
    "cupboard.flows.definition_changed.tell_teams": (f"{COMPETITIONS}.DefinitionChanged", {}),
    "cupboard.flows.definition_changed.rescore": (f"{COMPETITIONS}.DefinitionChanged", {}),
}


def as_events(apps, schema_editor):
    FollowUp = apps.get_model("followups", "FollowUp")
    for row in FollowUp.objects.exclude(status="done").filter(handler__in=EVENT_OF):
        if "$dataclass" in row.arguments:
            continue
        dataclass, missing = EVENT_OF[row.handler]
        row.arguments = {"$dataclass": dataclass, "fields": {**missing, **row.arguments}}
        row.save(update_fields=["arguments"])


class Migration(migrations.Migration):

    dependencies = [
        ('followups', '0002_job_row_columns'),
    ]

    operations = [
        migrations.AlterField(
            model_name='followup',
            name='arguments',
            field=models.JSONField(default=dict, help_text='The event its handler is called with, its dataclass and fields (rows by their id), followups/codec.py'),
        ),
        migrations.RunPython(as_events, migrations.RunPython.noop),
    ]
