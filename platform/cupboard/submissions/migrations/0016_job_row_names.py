"""The job engine's columns under one name in every job row (jobs/models.py JobRow): a
verification's claim instant `started_at` is `claimed_at`, its last send `nudged_at` is
`queued_at`. Renamed in place, values kept."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("submissions", "0015_rescore_step")]

    operations = [
        migrations.RenameField("verification", "started_at", "claimed_at"),
        migrations.RenameField("verification", "nudged_at", "queued_at"),
    ]
