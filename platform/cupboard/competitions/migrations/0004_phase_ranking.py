"""Ranking policy per phase instead of per competition.

A competition's `ranking: selected` used to apply to every phase, so on Dev and Test A a
team's latest run counted and a test upload scoring 0 wiped its standing. Each phase now
has its own policy: a final phase keeps the competition's, the others keep it too unless
it was `selected` (teams only select runs on the final phase), which becomes `best`.
"""
from django.db import migrations, models


def _from_competition(apps, schema_editor):
    Phase = apps.get_model("competitions", "Phase")
    for phase in Phase.objects.select_related("competition"):
        policy = phase.competition.ranking
        phase.ranking = policy if phase.is_final or policy != "selected" else "best"
        phase.save(update_fields=["ranking"])


def _to_competition(apps, schema_editor):
    Competition = apps.get_model("competitions", "Competition")
    for competition in Competition.objects.all():
        final = competition.phases.filter(is_final=True).first()
        competition.ranking = final.ranking if final else "best"
        competition.save(update_fields=["ranking"])


class Migration(migrations.Migration):

    dependencies = [
        ("competitions", "0003_entry_deadline_team_size"),
    ]

    operations = [
        migrations.AddField(
            model_name="phase",
            name="ranking",
            field=models.CharField(choices=[("best", "Best scored submission"), ("last", "Last scored submission"),
                                            ("selected", "Submissions the team selected")],
                                   default="best", max_length=10,
                                   help_text="Which run of a team counts: best on live phases, selected on the final one"),
        ),
        migrations.AlterField(
            model_name="phase",
            name="is_final",
            field=models.BooleanField(default=False, help_text="The phase that decides the competition"),
        ),
        migrations.RunPython(_from_competition, _to_competition),
        migrations.RemoveField(model_name="competition", name="ranking"),
    ]
