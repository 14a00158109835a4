"""Precomputed leaderboards: rebuilt when scores change, read on every request."""
from django.db import models


class LeaderboardRow(models.Model):
    """One ranked line of a phase's leaderboard: a team's counted submission, or a baseline.

    `values` holds {subset_code: {metric: value}}, `averages` {group_name: {metric: value or None}}
    (None = incomplete). Values are stored unrounded; views round for who is looking.
    """

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="leaderboard_rows")
    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    is_baseline = models.BooleanField(default=False)
    rank = models.PositiveIntegerField(null=True, help_text="Empty for baselines, which are shown unranked")
    primary_value = models.FloatField(null=True)
    values = models.JSONField(default=dict)
    averages = models.JSONField(default=dict)
    qrels_release_number = models.PositiveIntegerField(null=True)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["phase", "is_baseline", "rank"]
        indexes = [
            # leaderboard page: all rows of one phase in rank order.
            models.Index(fields=["phase", "is_baseline", "rank"], name="leaderboard_phase_rank"),
        ]

    def __str__(self):
        return f"{self.phase} #{self.rank} {self.submission}"
