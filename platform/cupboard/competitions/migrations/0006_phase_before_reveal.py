from django.db import migrations, models


def from_visibility(apps, schema_editor):
    """Hidden phases showed participants no score before the reveal: keep that as "status"."""
    Phase = apps.get_model("competitions", "Phase")
    Phase.objects.filter(visibility="hidden").update(before_reveal="status")


class Migration(migrations.Migration):
    dependencies = [("competitions", "0005_competition_pages")]

    operations = [
        migrations.AddField(
            model_name="phase",
            name="before_reveal",
            field=models.CharField(
                choices=[("everything", "Everything: each team's scores, per-query values and charts as they come"),
                         ("own", "Own scores: each team sees its own scores, nobody else's (baselines' neither)"),
                         ("status", "Status only: 'valid and scored', no score, rank, per-query value or chart")],
                default="own", help_text="What participants see of runs before the reveal (live phases: everything)",
                max_length=10),
        ),
        migrations.RunPython(from_visibility, migrations.RunPython.noop),
    ]
