from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("competitions", "0010_competition_scoring_depth"),
    ]

    operations = [
        migrations.AddField(
            model_name="phase",
            name="freeze_at",
            field=models.DateTimeField(
                blank=True, null=True,
                help_text="The public leaderboard stands still from here until the phase closes (or its later "
                          "reveal); teams see their own later scores, organizers the live board. Empty = never frozen"),
        ),
        migrations.AddField(
            model_name="phase",
            name="ladder",
            field=models.BooleanField(
                default=False,
                help_text="The Ladder (leaderboards/ladder.py): a team's shown best changes only when a run beats it "
                          "by more than the standard error of their per-query differences"),
        ),
    ]
