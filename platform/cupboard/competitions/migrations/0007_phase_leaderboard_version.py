from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("competitions", "0006_phase_before_reveal")]

    operations = [
        migrations.AddField(model_name="phase", name="leaderboard_version",
                            field=models.PositiveIntegerField(default=0, editable=False)),
        migrations.AddField(model_name="phase", name="leaderboard_changed_at",
                            field=models.DateTimeField(editable=False, null=True)),
    ]
