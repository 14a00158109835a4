"""Precomputed leaderboards: rebuilt when scores change, read on every request."""
from django.conf import settings
from django.db import models

from cupboard.bulk_writes import TellingQuerySet
from cupboard.competitions.models import private_storage
from cupboard.jobs.models import JobRow


class LeaderboardRow(models.Model):
    """One ranked line of a phase's leaderboard: a team's counted submission, or a baseline.

    `values` holds {subset_code: {metric: value}}, `averages` {group_name: {metric: value or None}}
    (None = incomplete). Values are stored unrounded; views round for who is looking.
    `standings` holds, per column key (a subset code, a group name, "all"), the primary metric's
    rank band, tier and bootstrap interval (leaderboards/standings.py): {"low", "high", "tier",
    "ci": [low, high]}; empty where untested.
    """

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="leaderboard_rows")
    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    is_baseline = models.BooleanField(default=False)
    rank = models.PositiveIntegerField(null=True, help_text="Empty for baselines, which are shown unranked")
    primary_value = models.FloatField(null=True)
    values = models.JSONField(default=dict)
    averages = models.JSONField(default=dict)
    standings = models.JSONField(default=dict, blank=True)
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


class LeaderboardHistory(models.Model):
    """A leaderboard row as one refresh or update left it, written only when it changed (a
    new submission counted, another rank or value, another qrels version) or went away
    (`removed`). A row stays what it was until the next history row of its key (its team,
    or the baseline submission): folding a phase's rows up to an instant gives the
    leaderboard as it stood then (leaderboards/history.py). Never updated."""

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="leaderboard_history")
    changed_at = models.DateTimeField()
    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    is_baseline = models.BooleanField(default=False)
    removed = models.BooleanField(default=False, help_text="The key left the leaderboard here")
    rank = models.PositiveIntegerField(null=True)
    primary_value = models.FloatField(null=True)
    values = models.JSONField(default=dict)
    averages = models.JSONField(default=dict)
    qrels_release_number = models.PositiveIntegerField(null=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["phase", "changed_at", "pk"]
        indexes = [
            # "as of" and the history chart: one phase's changes in time order.
            models.Index(fields=["phase", "changed_at"], name="leaderboard_history_time"),
        ]

    def __str__(self):
        return f"{self.phase} {self.changed_at:%Y-%m-%d %H:%M:%S} #{self.rank} {self.submission_id}"

    @property
    def key(self) -> tuple:
        return ("baseline", self.submission_id) if self.is_baseline else ("team", self.team_id)


class FrozenSnapshot(models.Model):
    """The official results of a final phase as published at its reveal: the ranked table
    as CSV and JSON (the public's view, built by leaderboards/exports.py), with their
    SHA-256 in the public audit log. One per phase; written once, never changed: later
    re-scorings change the live leaderboard beside it (leaderboards/snapshots.py)."""

    phase = models.OneToOneField("competitions.Phase", on_delete=models.CASCADE, related_name="frozen_snapshot")
    frozen_at = models.DateTimeField()
    qrels_release_number = models.PositiveIntegerField(null=True)
    scoring_version = models.PositiveIntegerField(
        default=0, help_text="The phase's published re-scoring step it was built from (0: the first scoring); "
                             "never frozen while a step is open (leaderboards/rescoring.py)")
    csv = models.TextField()
    json = models.TextField()
    csv_sha256 = models.CharField(max_length=64)
    json_sha256 = models.CharField(max_length=64)
    per_query = models.TextField(blank=True, help_text="JSON: the primary metric per query of each row, for the "
                                                       "paper's marks (leaderboards/frozen_queries.py); never served")

    objects = TellingQuerySet.as_manager()

    def __str__(self):
        return f"{self.phase} frozen {self.frozen_at:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise ValueError("a frozen snapshot is never changed")
        super().save(*args, **kwargs)


class SnapshotMarks(models.Model):
    """The paper tables' marks of a frozen snapshot (leaderboards/paper_marks.py): a function
    of the snapshot alone, computed once (by the beat task after the freeze, or the first
    request) and kept, since testing every run against every baseline takes seconds.
    `marks`: {row index: {column: [k-th baseline, ...]}}."""

    snapshot = models.OneToOneField(FrozenSnapshot, on_delete=models.CASCADE, related_name="marks")
    marks = models.JSONField(default=dict)
    computed_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    def __str__(self):
        return f"marks of {self.snapshot}"


class ResultsArchive(JobRow):
    """One build of a final phase's results archive (leaderboards/archive.py): a zip of its
    qrels versions, topics, released runs, official results, paper tables and a manifest of
    SHA-256s. Numbered per phase; a done archive is never changed, so its number, address
    and hash can be cited. Built by a worker (a job kind of cupboard.jobs)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        BUILDING = "building"
        DONE = "done"
        FAILED = "failed"

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="results_archives")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    status_reason = models.TextField(blank=True)
    progress = models.PositiveSmallIntegerField(default=0)
    # The job engine's columns come from JobRow (cupboard.jobs).
    file = models.FileField(storage=private_storage, upload_to="archives/%Y/", blank=True)
    size = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True, help_text="Of the zip; in the public audit log")
    manifest_sha256 = models.CharField(max_length=64, blank=True, help_text="Of its MANIFEST.sha256")
    files = models.PositiveIntegerField(default=0, help_text="Files listed in the manifest")
    runs = models.PositiveIntegerField(default=0, help_text="Runs released in it")
    scoring_version = models.PositiveIntegerField(null=True, blank=True,
                                                  help_text="The phase's scoring version its runs' scores are from")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["phase", "-number"]
        constraints = [models.UniqueConstraint(fields=["phase", "number"], name="unique_results_archive_number")]

    def __str__(self):
        return f"{self.phase} results archive v{self.number}"

    @property
    def filename(self) -> str:
        return f"{self.phase.competition.slug}-{self.phase.slug}-results-v{self.number}.zip"


class BandsJob(JobRow):
    """A phase's rank bands, recomputed by a worker once per burst of board writes
    (leaderboards/bands.py): one row per phase, a job of cupboard.jobs. Every board write
    after a scoring adds one to `wanted`; a computation that lands sets `landed` to the
    `wanted` it started from. The bands shown are stale ("being updated") while landed < wanted."""

    class Status(models.TextChoices):
        WAITING = "waiting"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"  # out of attempts; the next board write sends it again

    phase = models.OneToOneField("competitions.Phase", on_delete=models.CASCADE, related_name="bands_job")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.DONE)
    wanted = models.PositiveIntegerField(default=0, help_text="Board writes that asked for new bands so far")
    landed = models.PositiveIntegerField(default=0, help_text="The `wanted` the stored bands were computed for")
    landed_at = models.DateTimeField(null=True, blank=True)
    problem = models.TextField(blank=True)
    # The job engine's columns come from JobRow (cupboard.jobs).
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"bands of {self.phase} ({self.status}, {self.landed}/{self.wanted})"
