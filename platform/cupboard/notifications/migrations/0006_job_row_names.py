"""The job engine's columns under one name in every job row (jobs/models.py JobRow): a mail's
`tried_at`, both its sending worker's heartbeat and its last send, is `queued_at` (renamed in
place), and the heartbeat gets its own `heartbeat_at`, set from it."""
from django.db import migrations, models
from django.db.models import F


def heartbeat_from_last_try(apps, schema_editor):
    apps.get_model("notifications", "Notification").objects.update(heartbeat_at=F("queued_at"))


class Migration(migrations.Migration):
    dependencies = [("notifications", "0005_change_mails_topics")]

    operations = [
        migrations.RenameField("notification", "tried_at", "queued_at"),
        migrations.AddField("notification", "heartbeat_at", models.DateTimeField(null=True, blank=True)),
        migrations.RunPython(heartbeat_from_last_try, migrations.RunPython.noop),
    ]
