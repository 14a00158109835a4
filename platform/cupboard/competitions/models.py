"""What a competition is: its subsets (languages, pairs, test sets), groups, phases and data.

A competition runs one benchmark from `evaluator.benchmarks` (MIRACL, Mr. TyDi, ...).
Its leaderboard columns are *subsets*; a MIRACL language is one kind of subset, a
CLIRMatrix language pair or a DuReader test set another. Subsets belong to a group
(known / surprise); a group may stay hidden until `reveal_at`.
"""
from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst

from cupboard.bulk_writes import TellingQuerySet


def private_storage():
    """The storage for files nobody may fetch directly (see STORAGES['private'])."""
    from django.core.files.storage import storages

    return storages["private"]


# The columns a kept page's key reads (competitions/page_cache.py `_read`), the instants last in
# this order: a bulk update of these alone tells no one (cupboard/bulk_writes.py).
COMPETITION_KEYED = ("is_published", "starts_at", "entry_deadline")
PHASE_KEYED = ("visibility", "hidden_qrels", "leaderboard_version", "opens_at", "closes_at", "reveal_at", "freeze_at")


class Competition(models.Model):
    class MissingSubset(models.TextChoices):
        ZERO = "zero", "Count a missing subset as 0"
        INCOMPLETE = "incomplete", "Mark the average incomplete"

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    benchmark = models.CharField(max_length=40, help_text="A key of evaluator.benchmarks.BENCHMARKS")
    config_version = models.PositiveIntegerField(default=1, help_text="Version of the YAML file it was loaded from")
    organizers = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="organized_competitions", blank=True)
    assessors = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="assessed_competitions", blank=True,
                                       help_text="People the organizers named to judge pools; never a member of a "
                                                 "team of this competition (competitions/assessors.py)")
    judging_labels = models.JSONField(default=list, blank=True,
                                      help_text='The labels assessors give: [{"value": 0, "name", "description"}], '
                                                "from the YAML's judging_labels; empty = not relevant (0) / "
                                                "relevant (1) (competitions/assessors.py)")
    metrics = models.JSONField(default=list, help_text='Metric names, e.g. ["nDCG@10", "R@100"]')
    primary_metric = models.CharField(max_length=40, default="nDCG@10")
    relevance_level = models.PositiveSmallIntegerField(default=1, help_text="Label at or above which a document is relevant")
    missing_subset = models.CharField(max_length=12, choices=MissingSubset.choices, default=MissingSubset.ZERO)
    final_selection_max = models.PositiveSmallIntegerField(default=2)
    decimals = models.PositiveSmallIntegerField(default=3, help_text="Rounding of scores shown to participants")
    max_run_depth = models.PositiveIntegerField(default=1000)
    scoring_depth = models.PositiveIntegerField(null=True, blank=True,
                                                help_text="Documents per query scored (trec_eval -M); empty = "
                                                          "derived from the metrics and max_run_depth (scored_depth)")
    starts_at = models.DateTimeField(default=timezone.now, help_text="Hidden qrels are committed (SHA-256) from here on")
    is_published = models.BooleanField(default=True)
    entry_deadline = models.DateTimeField(null=True, blank=True,
                                          help_text="No team is created or joined from here on; "
                                                    "empty = when the final phase opens")
    team_size_max = models.PositiveSmallIntegerField(default=10, help_text="Members a team may have")
    pages = models.JSONField(default=dict, blank=True,
                             help_text="The organizer's own pages in Markdown, by name: overview, rules, data, "
                                       "evaluation, faq (competitions/pages.py)")
    run_metadata = models.JSONField(default=list, blank=True,
                                    help_text="The fields every submission is asked for (run type, training data, "
                                              "...): specs from the YAML's run_metadata (competitions/run_metadata.py)")
    topic_variants = models.JSONField(default=list, blank=True,
                                      help_text='The ways its topics are written, the default first, e.g. [{"code": '
                                                '"en", "name": "English queries"}]; empty = one, "default" '
                                                "(competitions/topic_variants.py)")
    significance = models.JSONField(default=dict, blank=True,
                                    help_text='How leaderboards mark tied teams: {"test": "randomization" or "t-test", '
                                              '"correction": "holm", "bonferroni" or "none", "alpha": 0.05}')
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()
    QUIET_FIELDS = COMPETITION_KEYED

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("competitions:detail", args=[self.slug])

    @property
    def named_benchmark(self) -> str:
        """The benchmark a page names (miracl), or "" for a collection of the organizers' own
        (`generic` is the evaluator's reading of any TREC files, not a collection)."""
        from evaluator.benchmarks import BENCHMARKS

        spec = BENCHMARKS.get(self.benchmark)
        return "" if spec is not None and spec.open_subsets else self.benchmark

    def scored_depth(self) -> int:
        """How many documents of each query are scored: `scoring_depth` when set, else the
        deepest cutoff of the metrics, or `max_run_depth` when one has none (AP, uncut nDCG),
        as `trec_eval -c` on runs of that depth. The evaluator's rule, shared with its CLI."""
        from evaluator.measures import parse_metric, scoring_depth

        return scoring_depth(map(parse_metric, self.metrics), max_depth=self.max_run_depth, depth=self.scoring_depth)

    def entry_closes_at(self):
        """When teams stop forming: the entry deadline, else when the (first) final phase opens, else never."""
        if self.entry_deadline is not None:
            return self.entry_deadline
        return min((p.opens_at for p in self.phases.all() if p.is_final), default=None)

    def is_organizer(self, user) -> bool:
        """For services checking an actor; the rule itself is `Viewer.is_organizer`."""
        from cupboard.competitions.viewer import Viewer

        return Viewer(user, self).is_organizer


class SubsetGroup(models.Model):
    """A named set of subsets with its own average column (known -> K.Avg, surprise -> S.Avg)."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="groups")
    name = models.SlugField(max_length=40)
    label = models.CharField(max_length=40, help_text="Column heading of its average, e.g. K.Avg")
    reveal_at = models.DateTimeField(null=True, blank=True, help_text="Hidden until this instant; empty = visible")
    position = models.PositiveSmallIntegerField(default=0)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["position", "name"]
        constraints = [models.UniqueConstraint(fields=["competition", "name"], name="unique_group_name")]

    def __str__(self):
        return f"{self.competition.slug}/{self.name}"

    def is_revealed(self, now=None) -> bool:
        return self.reveal_at is None or (now or timezone.now()) >= self.reveal_at

    @property
    def heading(self) -> str:
        """The group in words, naming it once: "XQuAD-R" (its label spells its name: not
        "Xquad-r (XQuAD-R)"), "Known (K.Avg)", "From ar (ar.Avg)" (not "From-ar")."""
        if self.label.lower() == self.name.lower():
            return self.label
        return f"{capfirst(self.name.replace('-', ' '))} ({self.label})"


class Subset(models.Model):
    """One leaderboard column: a language (sw), a language pair (en-zh) or a test set (cmedqa)."""

    class Kind(models.TextChoices):
        LANGUAGE = "language"
        PAIR = "pair"
        TEST_SET = "test_set"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="subsets")
    group = models.ForeignKey(SubsetGroup, on_delete=models.PROTECT, related_name="subsets")
    code = models.CharField(max_length=40, help_text="As it appears in file names, e.g. sw or en-zh")
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.LANGUAGE)
    position = models.PositiveSmallIntegerField(default=0)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["position", "code"]
        constraints = [models.UniqueConstraint(fields=["competition", "code"], name="unique_subset_code")]

    def __str__(self):
        return self.code


class Phase(models.Model):
    """A stage with its own window, topics, hidden qrels, limits and leaderboard visibility."""

    class Kind(models.TextChoices):
        """What teams hand in (cupboard/systems/): their runs, or software the platform runs on
        topics the teams never see (a blind phase)."""

        RUNS = "runs", "Runs: teams upload the runs they made"
        SYSTEMS = "systems", "Systems: teams upload an image, the platform runs it on hidden topics"

    class Visibility(models.TextChoices):
        LIVE = "live", "Live: scores shown as they come"
        PRIVATE = "private", "Private until the reveal instant"
        HIDDEN = "hidden", "Hidden from participants"

    class Ranking(models.TextChoices):
        """Which of a team's scored submissions its leaderboard row shows (leaderboards.ranking)."""

        BEST = "best", "Best scored submission"
        LAST = "last", "Last scored submission"
        SELECTED = "selected", "Submissions the team selected"
        RUNS = "runs", "Every scored submission, each its own row (as a TREC overview lists runs)"

    class BeforeReveal(models.TextChoices):
        """What participants see of the phase's runs before its reveal (see competitions/viewer.py)."""

        EVERYTHING = "everything", "Everything: each team's scores, per-query values and charts as they come"
        OWN = "own", "Own scores: each team sees its own scores, nobody else's (baselines' neither)"
        STATUS = "status", "Status only: 'valid and scored', no score, rank, per-query value or chart"

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="phases")
    slug = models.SlugField(max_length=40)
    name = models.CharField(max_length=80)
    position = models.PositiveSmallIntegerField(default=0)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.RUNS,
                            help_text="systems: teams upload an OCI image, its topics and corpus are never "
                                      "shown to them (cupboard/systems/)")
    opens_at = models.DateTimeField()
    closes_at = models.DateTimeField()
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.LIVE)
    reveal_at = models.DateTimeField(null=True, blank=True, help_text="When a private leaderboard becomes public")
    hidden_qrels = models.BooleanField(default=False, help_text="Qrels never served; only aggregates shown")
    before_reveal = models.CharField(max_length=10, choices=BeforeReveal.choices, default=BeforeReveal.OWN,
                                     help_text="What participants see of runs before the reveal (live phases: everything)")
    per_query_visible = models.BooleanField(default=True, help_text="Participants may see their per-query values")
    daily_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Per team per UTC day; empty = no limit")
    total_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Per team for the phase; empty = no limit")
    is_final = models.BooleanField(default=False, help_text="The phase that decides the competition")
    official_results = models.BooleanField(
        default=False, help_text="Frozen official results, their verification and a results page at the reveal, as "
                                 "a final phase has them (each round of a campaign)")
    ranking = models.CharField(max_length=10, choices=Ranking.choices, default=Ranking.BEST,
                               help_text="Which run of a team counts: best on live phases, selected on the final one")
    freeze_at = models.DateTimeField(null=True, blank=True,
                                     help_text="The public leaderboard stands still from here until the phase closes "
                                               "(or its later reveal); teams see their own later scores, organizers "
                                               "the live board. Empty = never frozen")
    ladder = models.BooleanField(default=False,
                                 help_text="The Ladder (leaderboards/ladder.py): a team's shown best changes only when "
                                           "a run beats it by more than the standard error of their per-query "
                                           "differences")
    class UnknownDocuments(models.TextChoices):
        """What an upload naming a document outside the subset's document list gets."""

        REFUSE = "refuse", "Refused at the line that names it"
        WARN = "warn", "Accepted with a warning"

    unknown_documents = models.CharField(max_length=10, choices=UnknownDocuments.choices,
                                         default=UnknownDocuments.REFUSE,
                                         help_text="With a document list: a run naming another document is refused, "
                                                   "or accepted with a warning")
    assessor_fields = models.JSONField(null=True, blank=True, default=None,
                                       help_text="The topic fields assessors read beside the query (e.g. question, "
                                                 "narrative); empty = every field the topics file gives")
    residual_of = models.JSONField(null=True, blank=True, default=None,
                                   help_text="Slugs of earlier phases whose current judgments are removed from this "
                                             "phase's runs before scoring (a residual collection); empty = none")
    # Bumped by every leaderboard refresh or update and qrels release: the key of cached
    # leaderboard pages and exports (leaderboards/cache.py), and their Last-Modified.
    leaderboard_version = models.PositiveIntegerField(default=0, editable=False)
    leaderboard_changed_at = models.DateTimeField(null=True, editable=False)

    objects = TellingQuerySet.as_manager()
    # leaderboard_changed_at: read by the boards' keys (leaderboards/cache.py).
    QUIET_FIELDS = (*PHASE_KEYED, "leaderboard_changed_at")

    class Meta:
        ordering = ["competition", "position"]
        constraints = [
            models.UniqueConstraint(fields=["competition", "slug"], name="unique_phase_slug"),
            models.CheckConstraint(condition=models.Q(closes_at__gt=models.F("opens_at")), name="phase_closes_after_opening"),
        ]

    def __str__(self):
        return f"{self.competition.slug}/{self.slug}"

    def get_absolute_url(self):
        return reverse("leaderboards:phase", args=[self.competition.slug, self.slug])

    @property
    def is_systems(self) -> bool:
        """A blind phase: teams submit software, never see its topics (Viewer.sees_topics)."""
        return self.kind == self.Kind.SYSTEMS

    def is_open(self, now=None) -> bool:
        now = now or timezone.now()
        return self.opens_at <= now < self.closes_at

    @property
    def has_official_results(self) -> bool:
        """Frozen, verified official results at its reveal: a final phase, or a round that asks."""
        return self.is_final or self.official_results

    def is_revealed(self, now=None) -> bool:
        """Whether participants and the public may see the scores now."""
        if self.visibility == self.Visibility.LIVE:
            return True
        return self.reveal_at is not None and (now or timezone.now()) >= self.reveal_at

    def thaws_at(self):
        """When a frozen leaderboard shows everything again: the phase's end, or its reveal
        when that comes later (a freeze lasts at least until no run can be submitted)."""
        return max(self.closes_at, self.reveal_at or self.closes_at)

    def is_frozen(self, now=None) -> bool:
        """Whether the public leaderboard stands still at `freeze_at` now."""
        now = now or timezone.now()
        return self.freeze_at is not None and self.freeze_at <= now < self.thaws_at()

    def qrels_are_public(self, now=None) -> bool:
        """Whether anyone may download this phase's judgments: always for open qrels, and for
        hidden ones only from `reveal_at` on (no reveal instant = never)."""
        if not self.hidden_qrels:
            return True
        return self.reveal_at is not None and (now or timezone.now()) >= self.reveal_at


class TopicSet(models.Model):
    """The queries of one subset in one phase, written one way (public once the subset is
    revealed). A subset may have one per variant of the competition (English and native
    queries: competitions/topic_variants.py); the variants share their query ids."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="topic_sets")
    subset = models.ForeignKey(Subset, on_delete=models.CASCADE, related_name="topic_sets")
    variant = models.SlugField(max_length=40, default="default",
                               help_text="A code of the competition's topic_variants; default when it declares none")
    file = models.FileField(storage=private_storage, upload_to="topics/%Y/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    query_count = models.PositiveIntegerField()
    version = models.PositiveIntegerField(default=1, help_text="1 for a subset's first topics, one more for each "
                                                                 "file that replaced them (downloads name it)")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["phase", "subset", "variant"],
                                               name="unique_topics_per_phase_subset_variant")]

    def __str__(self):
        suffix = "" if self.variant == "default" else f" ({self.variant})"
        return f"{self.phase}/{self.subset.code} topics{suffix}"


class TopicsVersion(models.Model):
    """One change of a phase's topics (an upload that stored something), numbered per phase as
    qrels releases are: the files it stored are kept (`TopicsFile`) after later changes replace
    them, so what a run was checked and scored against can still be read; `changes` is what it
    did to the queries, per subset. Each file's own version is `TopicSet.version`."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="topics_versions")
    number = models.PositiveIntegerField()
    changes = models.JSONField(default=list, blank=True,
                               help_text="[{subset, variant, added, removed, changed, kept}] (competitions/topics_changes.py)")
    rescored = models.BooleanField(default=False, help_text="Whether the phase's runs were scored again for it")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["phase", "-number"]
        constraints = [models.UniqueConstraint(fields=["phase", "number"], name="unique_topics_version_number")]

    def __str__(self):
        return f"{self.phase} topics v{self.number}"


class TopicsFile(models.Model):
    """A topics file as one version stored it (the current one is also its `TopicSet`'s file)."""

    version = models.ForeignKey(TopicsVersion, on_delete=models.CASCADE, related_name="files")
    subset = models.ForeignKey(Subset, on_delete=models.CASCADE, related_name="+")
    variant = models.SlugField(max_length=40, default="default")
    file = models.FileField(storage=private_storage, upload_to="topics/%Y/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    query_count = models.PositiveIntegerField()

    objects = TellingQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["version", "subset", "variant"],
                                               name="unique_topics_file_per_version")]

    def __str__(self):
        return f"{self.version}/{self.subset.code}"


class QrelsRelease(models.Model):
    """One version of a phase's judgments: a file per subset. The highest number is current."""

    phase = models.ForeignKey(Phase, on_delete=models.CASCADE, related_name="qrels_releases")
    number = models.PositiveIntegerField()
    note = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["phase", "-number"]
        constraints = [models.UniqueConstraint(fields=["phase", "number"], name="unique_qrels_release_number")]

    def __str__(self):
        return f"{self.phase} qrels v{self.number}"


class QrelsFile(models.Model):
    """Hidden judgments of one subset. Served to nobody while the phase hides them."""

    release = models.ForeignKey(QrelsRelease, on_delete=models.CASCADE, related_name="files")
    subset = models.ForeignKey(Subset, on_delete=models.CASCADE, related_name="qrels_files")
    file = models.FileField(storage=private_storage, upload_to="qrels/%Y/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, help_text="Published as a commitment at the competition's start")
    judged_queries = models.PositiveIntegerField()
    judgments = models.PositiveIntegerField()

    objects = TellingQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["release", "subset"], name="unique_qrels_per_release_subset")]

    def __str__(self):
        return f"{self.release}/{self.subset.code}"


class DocumentList(models.Model):
    """The docids of one subset's collection, so a run naming another document is refused at
    its line (or warned, as the phase says: `Phase.unknown_documents`). Kept as the sorted
    64-bit hashes of the docids, a .npy file (evaluator/io/documents.py): 8 bytes a document.
    The newest of a subset is the one uploads and scoring check against."""

    competition = models.ForeignKey(Competition, on_delete=models.CASCADE, related_name="document_lists")
    subset = models.ForeignKey(Subset, on_delete=models.CASCADE, related_name="document_lists")
    file = models.FileField(storage=private_storage, upload_to="documents/%Y/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, help_text="Of the file as given (an id file or a corpus)")
    documents = models.PositiveIntegerField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.competition.slug}/{self.subset.code} documents ({self.documents:,})"


class PageChange(models.Model):
    """One change to what a competition's pages show, appended in the transaction that made it
    (competitions/page_cache.py): the newest id is part of every cached page's key. Appended,
    never updated, and with no foreign key, so it takes no lock another transaction could wait on."""

    competition_id = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["competition_id", "id"], name="page_change_latest")]
