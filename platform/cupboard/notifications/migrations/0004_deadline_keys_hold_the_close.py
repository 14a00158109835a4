"""Reminders recorded before a reminder's key held its phase's close (deadline:<phase>:<team>)
get the close they were for, the phase's current one, so the beat task does not remind those
teams a second time of the same close after the upgrade."""
from django.db import migrations


def forwards(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    for row in Notification.objects.filter(kind="deadline", key__regex=r"^deadline:[0-9]+:[0-9]+$").select_related(
            "phase"):
        if row.phase is not None:
            row.key = f"{row.key}:{int(row.phase.closes_at.timestamp())}"
            row.save(update_fields=["key"])


class Migration(migrations.Migration):
    dependencies = [("notifications", "0003_change_mails")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
