"""Submissions record who was in their team; existing ones get the team's members of today
(the best record there is: earlier team changes were not kept)."""

from django.conf import settings
from django.db import migrations, models


def record_members(apps, schema_editor):
    Submission = apps.get_model("submissions", "Submission")
    Membership = apps.get_model("teams", "Membership")
    Through = Submission.members.through
    members: dict[int, list[int]] = {}
    for team_id, user_id in Membership.objects.values_list("team_id", "user_id"):
        members.setdefault(team_id, []).append(user_id)
    rows = [Through(submission_id=pk, user_id=user_id)
            for pk, team_id in Submission.objects.filter(team__isnull=False).values_list("pk", "team_id")
            for user_id in members.get(team_id, ())]
    Through.objects.bulk_create(rows, batch_size=1000)


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0003_submission_heartbeat_at'),
        ('teams', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='submission',
            name='members',
            field=models.ManyToManyField(blank=True, related_name='submissions_as_member', to=settings.AUTH_USER_MODEL),
        ),
        migrations.RunPython(record_members, migrations.RunPython.noop),
    ]
