"""Teams get the key their names are compared by (look-alike names share it); existing teams
get theirs from their names before the uniqueness constraint is added."""
from django.db import migrations, models


def fill_name_keys(apps, schema_editor):
    from cupboard.accounts.lookalikes import name_key

    Team = apps.get_model("teams", "Team")
    for team in Team.objects.all():
        # A pair of existing look-alikes keeps both names: the later one gets a suffix in its key.
        key, taken = name_key(team.name), Team.objects.filter(competition_id=team.competition_id)
        if taken.filter(name_key=key).exclude(pk=team.pk).exists():
            key = f"{key[:70]}#{team.pk}"
        Team.objects.filter(pk=team.pk).update(name_key=key)


class Migration(migrations.Migration):

    dependencies = [
        ("teams", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="team",
            name="name_key",
            field=models.CharField(default="", help_text="The name as compared: look-alike names share it "
                                   "(cupboard.accounts.lookalikes)", max_length=80),
            preserve_default=False,
        ),
        migrations.RunPython(fill_name_keys, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="team",
            constraint=models.UniqueConstraint(fields=("competition", "name_key"), name="unique_team_name_key"),
        ),
    ]
