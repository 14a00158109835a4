"""The judging cycle: how much of each run the judgments cover, the pools sent to assessors,
and how a new qrels version moved the leaderboard.

- `JudgedShare`: Judged@10 of a submission on a subset, computed when it is scored.
- `PoolExport`: one build of "what to judge next" for a phase (built in the worker, with
  progress), and the pool-contribution table computed from the same top documents.
- `ReleaseStandings`: the leaderboard as it stood when a qrels release replaced the one
  before it, and the judgments the release added, flipped and dropped: the "before" of its
  "what changed".
- Judging in the browser (judging/assessment.py, judgments.py): `Corpus` (the pooled passages'
  text, private), `JudgingRound` (a pool dealt out as tasks), `Assignment` (one assessor's task in
  one subset), `JudgingItem` (a passage to judge and its label), `Resolution` (the organizer's
  final label where two assessors differ).
"""
from django.conf import settings
from django.db import models
from django.urls import reverse

from cupboard.bulk_writes import TellingQuerySet
from cupboard.competitions.models import private_storage
from cupboard.jobs.models import JobRow
from cupboard.submissions.models import JUDGED_METRIC


class JudgedShare(models.Model):
    """Judged@10 of one submission on one subset (the mean over the subset's judged queries;
    a query the run leaves out counts 0). Kept apart from `Score`: it says how far a score can
    be trusted, it is not a score, and it reveals judgments on phases that hide them."""

    submission = models.ForeignKey("submissions.Submission", on_delete=models.CASCADE, related_name="judged_shares")
    subset = models.ForeignKey("competitions.Subset", on_delete=models.CASCADE, related_name="+")
    value = models.FloatField()

    objects = TellingQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["submission", "subset"], name="unique_judged_share")]

    def __str__(self):
        return f"{self.submission} {self.subset.code} {JUDGED_METRIC}={self.value:.3f}"


class PoolExport(JobRow):
    """A pool for the assessors: per subset, the union of the top `depth` documents of the
    chosen submissions that have no judgment yet. The row is created by the organizer's
    request and built by a worker (`judging.tasks`); `submission_ids` freezes the choice."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        BUILDING = "building"
        DONE = "done"
        FAILED = "failed"

    class Selection(models.TextChoices):
        SELECTED = "selected", "Every team's counted run and every run it selected for the final"
        TOP = "top", "The counted runs of the top N teams"
        PRIORITY = "priority", "Every counted run by the judging priority its team gave it, each priority to its depth"

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="pool_exports")
    number = models.PositiveIntegerField(help_text="Its number in the phase (pool #1, #2, ...): in its name and "
                                                   "addresses, so assessors and pages of one competition never "
                                                   "see another's count")
    depth = models.PositiveSmallIntegerField(default=10, help_text="Top k documents of each run per query")
    selection = models.CharField(max_length=10, choices=Selection.choices, default=Selection.SELECTED)
    top_teams = models.PositiveSmallIntegerField(null=True, blank=True)
    with_baselines = models.BooleanField(default=True)
    submission_ids = models.JSONField(default=list)
    depths = models.JSONField(default=dict, blank=True,
                              help_text="{submission id: k} where a run is pooled to its own depth (by priority); "
                                        "else `depth`")
    priority_depths = models.JSONField(default=dict, blank=True,
                                       help_text="{judging priority: k} of a pool by priority, as asked")
    qrels_release = models.ForeignKey("competitions.QrelsRelease", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+", help_text="The judgments the pool leaves out")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    status_reason = models.TextField(blank=True)
    progress = models.PositiveSmallIntegerField(default=0)
    # The job engine's columns come from JobRow (cupboard.jobs).
    counts = models.JSONField(default=list, help_text='[{"code", "runs", "queries", "documents"}] per subset')
    contributions = models.JSONField(default=list,
                                     help_text='[{"code", "group", "relevant", "unique"}]: per subset and team, the '
                                               "relevant documents its runs found in their top k, and those only it found")
    file = models.FileField(storage=private_storage, upload_to="pools/%Y/", blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # the pool page: a phase's exports, newest first.
            models.Index(fields=["phase", "-created_at"], name="pool_export_phase_created"),
        ]
        constraints = [models.UniqueConstraint(fields=["phase", "number"], name="unique_pool_number_per_phase")]

    def __str__(self):
        return f"{self.phase} pool #{self.number} (top {self.depth})"

    def get_absolute_url(self):
        return reverse("judging:pool", args=[self.phase.competition.slug, self.phase.slug]) + f"#export-{self.number}"

    @property
    def is_pending(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.BUILDING)


class ReleaseStandings(models.Model):
    """The phase's leaderboard rows as they stood when `release` replaced the release before
    it (every row on the primary metric: per subset and the average, with its rank), and
    per subset how many (query, document) pairs the release judged that the one before had
    not, and how many it judged differently or no longer. Written in the release's transaction, before its re-scoring starts."""

    release = models.OneToOneField("competitions.QrelsRelease", on_delete=models.CASCADE, related_name="standings")
    rows = models.JSONField(default=list)
    new_judgments = models.JSONField(default=dict)
    judgment_changes = models.JSONField(default=dict, help_text='{code: {"new": n, "flipped": {"0->1": n}, '
                                                                '"dropped": n}}; empty for releases made before it was kept')
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    def __str__(self):
        return f"standings before {self.release}"


class Corpus(models.Model):
    """The passages' text of one subset's pooled documents, uploaded by an organizer (JSONL or
    TSV, evaluator/io/corpus.py), stored privately: assessors read a passage on their judging
    page, never the file. The newest of a phase and subset is the one judging tasks read."""

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="corpora")
    subset = models.ForeignKey("competitions.Subset", on_delete=models.CASCADE, related_name="+")
    file = models.FileField(storage=private_storage, upload_to="corpora/%Y/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    documents = models.PositiveIntegerField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.phase}/{self.subset.code} corpus ({self.documents} passages)"


class JudgingRound(models.Model):
    """Judging tasks made from one pool export: per subset, its queries dealt out to the
    assessors named for it, an `overlap` percent of them judged by a second assessor. `seed`
    (secret) orders each assignment's passages, so the order says nothing of any run's rank.
    `qrels_release` is the version made from its judgments, once made."""

    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="judging_rounds")
    export = models.ForeignKey(PoolExport, on_delete=models.PROTECT, related_name="+")
    overlap = models.PositiveSmallIntegerField(default=10, help_text="Percent of queries judged by two assessors")
    seed = models.CharField(max_length=64)
    qrels_release = models.ForeignKey("competitions.QrelsRelease", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.phase} judging round #{self.pk}"


class Assignment(models.Model):
    """One assessor's share of a round in one subset: passages to judge, in `JudgingItem.position` order."""

    round = models.ForeignKey(JudgingRound, on_delete=models.CASCADE, related_name="assignments")
    subset = models.ForeignKey("competitions.Subset", on_delete=models.CASCADE, related_name="+")
    assessor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="judging_assignments")

    class Meta:
        ordering = ["round", "subset__position", "pk"]
        constraints = [models.UniqueConstraint(fields=["round", "subset", "assessor"], name="unique_assignment")]

    def __str__(self):
        return f"{self.round} {self.subset.code} for {self.assessor}"

    def get_absolute_url(self):
        return reverse("judging:judge", args=[self.round.phase.competition.slug, self.pk])


class JudgingItem(models.Model):
    """A passage to judge for a query: its text copied from the corpus when the round was
    made (what the assessor saw stays what they judged), its label once given, and the
    seconds the assessor spent on it. Nothing here says which run retrieved it."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField()
    qid = models.CharField(max_length=100)
    query = models.TextField()
    docid = models.CharField(max_length=100)
    title = models.TextField(blank=True)
    text = models.TextField()
    label = models.SmallIntegerField(null=True, blank=True)
    judged_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["assignment", "position"]
        constraints = [models.UniqueConstraint(fields=["assignment", "position"], name="unique_item_position")]

    def __str__(self):
        return f"{self.qid} {self.docid}"


class Resolution(models.Model):
    """The organizer's final label for a passage two assessors labelled differently."""

    round = models.ForeignKey(JudgingRound, on_delete=models.CASCADE, related_name="resolutions")
    subset = models.ForeignKey("competitions.Subset", on_delete=models.CASCADE, related_name="+")
    qid = models.CharField(max_length=100)
    docid = models.CharField(max_length=100)
    label = models.SmallIntegerField()
    resolved_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    resolved_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "subset", "qid", "docid"], name="unique_resolution")]

    def __str__(self):
        return f"{self.round} {self.subset.code} {self.qid} {self.docid} -> {self.label}"
