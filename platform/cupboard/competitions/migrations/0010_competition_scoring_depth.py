from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("competitions", "0009_competition_significance"),
    ]

    operations = [
        migrations.AddField(
            model_name="competition",
            name="scoring_depth",
            field=models.PositiveIntegerField(
                blank=True, null=True,
                help_text="Documents per query scored (trec_eval -M); empty = derived from the metrics and "
                          "max_run_depth (scored_depth)"),
        ),
    ]
