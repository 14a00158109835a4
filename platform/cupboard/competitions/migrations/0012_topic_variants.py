from django.db import migrations, models


class Migration(migrations.Migration):
    """Several topics files per subset (competitions/topic_variants.py). Existing competitions
    declare no variants and keep working unchanged: every stored TopicSet is given the one
    variant, `default` (the AddField default fills the existing rows), and the unique key
    becomes (phase, subset, variant)."""

    dependencies = [
        ("competitions", "0011_phase_freeze_ladder"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="topicset",
            name="unique_topics_per_phase_subset",
        ),
        migrations.AddField(
            model_name="competition",
            name="topic_variants",
            field=models.JSONField(
                blank=True, default=list,
                help_text='The ways its topics are written, the default first, e.g. [{"code": "en", "name": '
                          '"English queries"}]; empty = one, "default" (competitions/topic_variants.py)'),
        ),
        migrations.AddField(
            model_name="topicset",
            name="variant",
            field=models.SlugField(default="default", max_length=40,
                                   help_text="A code of the competition's topic_variants; default when it declares none"),
        ),
        migrations.AddConstraint(
            model_name="topicset",
            constraint=models.UniqueConstraint(fields=("phase", "subset", "variant"),
                                               name="unique_topics_per_phase_subset_variant"),
        ),
    ]
