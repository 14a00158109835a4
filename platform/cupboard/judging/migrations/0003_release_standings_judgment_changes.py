from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('judging', '0002_pool_export_job_columns'),
    ]

    operations = [
        migrations.AddField(
            model_name='releasestandings',
            name='judgment_changes',
            field=models.JSONField(default=dict, help_text='{code: {"new": n, "flipped": {"0->1": n}, "dropped": n}}; empty for releases made before it was kept'),
        ),
    ]
