"""Teams: who submits together in a competition. A user is in at most one team per competition."""
import secrets

from django.conf import settings
from django.db import models
from django.urls import reverse

from cupboard.bulk_writes import TellingQuerySet


def new_invite_code() -> str:
    return secrets.token_urlsafe(16)


class Team(models.Model):
    competition = models.ForeignKey("competitions.Competition", on_delete=models.CASCADE, related_name="teams")
    name = models.CharField(max_length=80)
    name_key = models.CharField(max_length=80, help_text="The name as compared: look-alike names share it "
                                                        "(cupboard.accounts.lookalikes)")
    slug = models.SlugField(max_length=80)
    invite_code = models.CharField(max_length=40, unique=True, default=new_invite_code)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["competition", "name"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "slug"], name="unique_team_slug"),
            models.UniqueConstraint(fields=["competition", "name"], name="unique_team_name"),
            models.UniqueConstraint(fields=["competition", "name_key"], name="unique_team_name_key"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("teams:detail", args=[self.competition.slug, self.slug])


class Membership(models.Model):
    """`competition` repeats team.competition so the database enforces one team per user."""

    competition = models.ForeignKey("competitions.Competition", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    joined_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()
    TOLD_WITH = ("user_id",)  # a bulk write changes who they are (flows/rows_written.py)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["competition", "user"], name="one_team_per_user_per_competition")]

    def __str__(self):
        return f"{self.user} in {self.team}"
