"""Submissions: a team's set of run files for one phase, and what they scored.

The row is the truth about a submission's state; Celery messages only nudge workers.
Lifecycle (see `Submission.Status`). Run files are validated in the upload request, before
any row exists: a refused upload stores nothing, so there is no "received" or "validating"
row. A submission is born queued:

    queued -> scoring -> scored
      ^          |  |
      |          |  +-> rejected  a stored run no longer validates (e.g. the topics changed)
      |          +----> failed    the platform failed CUPBOARD_MAX_ATTEMPTS times
      +-- scoring again: a silent worker's work swept up, judgments still missing, a re-score
"""
from django.conf import settings
from django.db import connections, models
from django.db.models import F
from django.db.models.functions import Coalesce
from django.db.models.sql import UpdateQuery
from django.urls import reverse

from cupboard.bidi import isolate
from cupboard.bulk_writes import TellingQuerySet
from cupboard.competitions.models import private_storage
from cupboard.jobs.models import JobRow

MAX_PRIORITY = 9  # judging priorities run 1 (judge first) to this


class SubmissionQuerySet(TellingQuerySet):
    def update(self, **fields):
        """Every update bumps the rows' `version`, bulk ones too (a worker's claim, a status
        written by the scoring); what it changes is told as every bulk write's is
        (cupboard/bulk_writes.py: with the rows' teams, `TOLD_WITH`)."""
        fields.setdefault("version", F("version") + 1)
        return super().update(**fields)


class Submission(JobRow):
    class Status(models.TextChoices):
        QUEUED = "queued"
        SCORING = "scoring"
        SCORED = "scored"
        REJECTED = "rejected"
        FAILED = "failed"

    # States a worker may still move forward; the sweeper looks at these.
    PENDING = (Status.QUEUED, Status.SCORING)
    # Rejected and failed-by-the-platform submissions cost no quota.
    COUNTS_TOWARD_LIMIT = (Status.QUEUED, Status.SCORING, Status.SCORED)
    # The reason a queued submission shows while its phase has no judgments yet: it waits for
    # them, not for a worker (queue.py leaves it out of the line).
    WAITING_FOR_JUDGMENTS = "Waiting for judgments."

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="submissions")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.CASCADE, related_name="submissions")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    # Who was in the team when it was made: each of them carries it against the limits of any
    # team they are in later (quota.py), so leaving a team does not reset its usage.
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="submissions_as_member")
    is_baseline = models.BooleanField(default=False)
    number = models.PositiveIntegerField(help_text="1, 2, ... per team (or per baseline set) and phase")
    method_name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    paper_url = models.URLField(blank=True)
    code_url = models.URLField(blank=True)
    # {field name: value} for the competition's run_metadata fields, as given at upload and
    # never rewritten: a new YAML version changes what is asked, not what was answered.
    metadata = models.JSONField(default=dict, blank=True)
    # Said by the team at upload (issue 34): the order in which its runs' documents are worth
    # judging (1 first, as TREC's run priority; pools can be built per priority: judging/pools.py),
    # and the fields of the phase's topics the run used (title, description, narrative; query,
    # question: as the topics file names them; submissions/topic_fields.py).
    judging_priority = models.PositiveSmallIntegerField(null=True, blank=True,
                                                        help_text="1 = judge first; empty = not said (last)")
    topic_fields = models.JSONField(default=list, blank=True, help_text="The topic fields the run used, as named "
                                                                        "by the topics file; empty = not said")

    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    status_reason = models.TextField(blank=True, help_text="Why it was rejected or failed, for its team")
    waiting_since = models.DateTimeField(null=True, blank=True,
                                         help_text="When it last joined the queue (upload, re-score); its place in line")
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent done while scoring")
    qrels_release = models.ForeignKey("competitions.QrelsRelease", null=True, blank=True,
                                      on_delete=models.SET_NULL, related_name="+",
                                      help_text="The judgments its scores come from")
    selected_for_final = models.BooleanField(default=False)
    release_consent = models.BooleanField(
        default=False, help_text="The team agrees to this run being in the phase's results archive "
                                 "(leaderboards/archive.py); changeable until the reveal (`consent_fixed_at`)")
    disqualified = models.BooleanField(default=False)
    disqualified_reason = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    scored_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=0, editable=False,
                                          help_text="Bumped by every save and update of the row (kept_pages.py)")

    objects = SubmissionQuerySet.as_manager()
    # What the scoring writes, beside a job's bookkeeping: shown by a team's kept pages (keyed on
    # `version`, which every update bumps) and the boards (keyed on the leaderboard version),
    # never by a page kept for everyone: a bulk update of these alone tells no page.
    QUIET_FIELDS = (*JobRow.QUIET_FIELDS, "status", "status_reason", "progress", "qrels_release", "scored_at",
                    "waiting_since", "version")
    # Every update is told, quiet or not, with the teams its rows were in: their runs changed
    # (kept_pages.py `runs_written`).
    TOLD_WITH = ("team_id",)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "team", "number"], name="unique_submission_number_per_team",
                                    condition=models.Q(team__isnull=False)),
        ]
        indexes = [
            # sweep_stale and _claim: scoring rows whose worker went silent (null heartbeat: claimed
            # before heartbeats existed).
            models.Index("status", Coalesce("heartbeat_at", "claimed_at"), name="submission_status_heartbeat"),
            # quota checks and the team page: a team's submissions in a phase, newest first.
            models.Index(fields=["team", "phase", "created_at"], name="submission_team_phase"),
            # queue.py: the queued submissions ahead of one, in the order they joined the queue.
            models.Index(fields=["status", "waiting_since"], name="submission_queue"),
        ]

    # Not a column: True on the existing submission `submission_create` returns for files sent again.
    is_repeat = False

    def __str__(self):
        """"Team #3: method", each name isolated (cupboard/bidi.py): a run's one name, in sentences,
        mails, its charts, Compare, the per-topic CSV's columns and the verification's lines."""
        owner = isolate(self.team.name) if self.team_id else "baseline"
        return f"{owner} #{self.number}: {isolate(self.method_name)}"

    def get_absolute_url(self):
        return reverse("submissions:detail", args=[self.pk])

    def save(self, *args, **kwargs):
        """A save bumps `version` in the database (not from this copy's value, which an update
        since it was read has left behind); `_do_update` reads the bumped value back."""
        if self._state.adding:
            return super().save(*args, **kwargs)
        self.version = F("version") + 1
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "version"}
        super().save(*args, **kwargs)

    def _do_update(self, base_qs, using, pk_val, values, update_fields, forced_update):
        """Django's UPDATE of a save, with `RETURNING version` (PostgreSQL and SQLite alike):
        the copy holds the version its own statement wrote, which counts every update committed
        before it (the row is locked while it runs), and reading it costs no second query."""
        query = base_qs.filter(pk=pk_val).query.chain(UpdateQuery)
        query.add_update_fields(values)
        sql, params = query.get_compiler(using).as_sql()
        with connections[using].cursor() as cursor:
            cursor.execute(f"{sql} RETURNING {connections[using].ops.quote_name('version')}", params)
            row = cursor.fetchone()
        if row is None:  # no such row: save() inserts it, or refuses a forced update
            return False
        self.version = row[0]
        return True

    @property
    def is_pending(self) -> bool:
        return self.status in self.PENDING


class RunFile(models.Model):
    """One uploaded run file, for one subset. Stored privately (gzipped, see runfiles.py); served to its
    team and organizers. `file` is empty once the retention rule removed it (retention.py); sha256 and
    size are those of the uploaded bytes."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="run_files")
    subset = models.ForeignKey("competitions.Subset", on_delete=models.PROTECT, related_name="+")
    file = models.FileField(storage=private_storage, upload_to="runs/%Y/%m/")
    original_name = models.CharField(max_length=255)
    compressed = models.BooleanField(default=False, help_text="Stored gzipped by cupboard; downloads inflate it")
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField()
    lines = models.PositiveIntegerField(default=0)
    queries = models.PositiveIntegerField(default=0)

    objects = TellingQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["submission", "subset"], name="one_run_per_subset")]

    def __str__(self):
        return f"{self.submission} [{self.subset.code}]"


# The share of each query's top JUDGED_DEPTH documents that has a judgment: computed with the
# scores (scoring_jobs.py), kept apart from them by the judging app (judging/judged.py).
JUDGED_DEPTH = 10
JUDGED_METRIC = f"Judged@{JUDGED_DEPTH}"


class Score(models.Model):
    """A submission's mean value of one metric on one subset (group averages are derived)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="scores")
    subset = models.ForeignKey("competitions.Subset", on_delete=models.CASCADE, related_name="+")
    metric = models.CharField(max_length=40)
    value = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["submission", "subset", "metric"], name="unique_score")]

    def __str__(self):
        return f"{self.submission} {self.subset.code} {self.metric}={self.value:.4f}"


class QueryScores(models.Model):
    """Per-query values of every metric on one subset: {metric: {qid: value}}. Organizers only
    on phases with hidden qrels."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="query_scores")
    subset = models.ForeignKey("competitions.Subset", on_delete=models.CASCADE, related_name="+")
    values = models.JSONField()
    seconds = models.FloatField(null=True, blank=True, help_text="How long scoring this subset took (operators' metrics)")
    # A residual phase's run lost these documents before scoring: {qid: [docid, ...]}, score order.
    removed = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["submission", "subset"], name="unique_query_scores")]


class QuotaGrant(models.Model):
    """Extra submission slots an organizer gave a team: for one UTC day, or for the whole phase."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="quota_grants")
    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="quota_grants")
    extra = models.PositiveIntegerField()
    day = models.DateField(null=True, blank=True, help_text="The UTC day it applies to; empty = phase total")
    reason = models.CharField(max_length=200)
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    def __str__(self):
        return f"+{self.extra} for {self.team} in {self.phase}"


class Verification(JobRow):
    """One recomputation of a phase's official scores by a second engine (pytrec_eval), from
    the stored run files and the phase's current judgments, compared with the stored Score
    rows (submissions/verification.py). Asked by an organizer, or by the final reveal
    (`reason` reveal: at most one per phase, and its audit event is public)."""

    class Reason(models.TextChoices):
        REVEAL = "reveal", "The final results were revealed"
        ORGANIZER = "organizer", "Asked by an organizer"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        PASSED = "passed"
        FAILED = "failed"

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="verifications")
    reason = models.CharField(max_length=10, choices=Reason.choices)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    total = models.PositiveIntegerField(default=0, help_text="Submissions to recompute")
    done = models.PositiveIntegerField(default=0, help_text="Submissions recomputed so far")
    scores = models.PositiveIntegerField(default=0, help_text="Stored scores compared")
    max_difference = models.FloatField(null=True, help_text="Largest |stored - pytrec_eval| among agreeing scores")
    float32_ties = models.PositiveIntegerField(default=0, help_text="Scores that differ only through float32 ties")
    differences = models.JSONField(default=list, blank=True, help_text="What disagreed (at most 50)")
    runs = models.JSONField(default=list, blank=True, help_text="One line per counted run checked: submission, "
                                                                "who, scores, differences, max_difference")
    qrels_release_number = models.PositiveIntegerField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The job engine's columns come from JobRow (cupboard.jobs); `claimed_at` is when it started.
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            # The reveal asks once per phase, however often the beat task runs.
            models.UniqueConstraint(fields=["phase"], condition=models.Q(reason="reveal"),
                                    name="one_reveal_verification_per_phase"),
        ]

    def __str__(self):
        return f"{self.phase} verification {self.pk} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def percent(self) -> int:
        return 100 if not self.total else self.done * 100 // self.total


def consent_fixed_at(phase):
    """When a run's release consent stops changing: the phase's reveal (its results are then
    public, and the archive may be built from them), or its close when it has none."""
    return phase.reveal_at or phase.closes_at



class RescoreStep(models.Model):
    """One re-scoring of a phase's runs (a qrels version, a topics change, an organizer's
    "score again"), as one step: while it is open the phase's leaderboard, history, exports,
    mails, frozen results, archives and verifications keep showing the scores from before it
    (leaderboards/rescoring.py), and they switch at once when its last run is finished (scored,
    rejected or failed). `number` is the phase's scoring version once the step is published;
    a step a newer re-score replaced before it finished is closed as superseded and never shown."""

    class Outcome(models.TextChoices):
        PUBLISHED = "published"
        SUPERSEDED = "superseded"

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="rescore_steps")
    number = models.PositiveIntegerField(help_text="1, 2, ... per phase: its scoring version once published")
    reason = models.CharField(max_length=200, blank=True, help_text="What asked for it, in words")
    submission_ids = models.JSONField(default=list, help_text="The runs it scores again")
    total = models.PositiveIntegerField(default=0)
    opened_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=12, choices=Outcome.choices, blank=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["phase", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["phase", "number"], name="unique_rescore_step_number"),
            # One open step per phase: a new re-score supersedes the open one first.
            models.UniqueConstraint(fields=["phase"], condition=models.Q(closed_at__isnull=True),
                                    name="one_open_rescore_step_per_phase"),
        ]

    def __str__(self):
        return f"{self.phase} re-score {self.number} ({self.outcome or 'open'})"

    @property
    def is_open(self) -> bool:
        return self.closed_at is None
