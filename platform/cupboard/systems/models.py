"""Systems phases: the images teams upload, and each execution of one on the phase's topics.

A `System` is software, kept as the team sent it (an OCI image tar, `docker save`), named by
its SHA-256. An `Execution` is one run of it in the sandbox (systems/sandbox.py), a job of the
engine (cupboard.jobs) on the runner hosts' queue; its record says what ran (image, command,
limits, topics), what it used and what came out (the output's hash, the submission it became),
so an organizer can run it again and compare. Lifecycle:

    queued -> running -> done      its output is a submission (scored as any upload), or was
      ^          |                 only compared (a determinism check)
      |          +----> refused    its output failed the run validation an upload gets
      |          +----> stopped    it hit a limit or exited with an error (the team sees why)
      |          +----> failed     the image was refused, or the platform gave up
      +-- its runner went silent (killed): run again from the start
"""
from django.conf import settings
from django.db import models
from django.urls import reverse

from cupboard.bidi import isolate
from cupboard.bulk_writes import TellingQuerySet
from cupboard.competitions.models import private_storage
from cupboard.jobs.models import JobRow


class System(models.Model):
    phase = models.ForeignKey("competitions.Phase", on_delete=models.CASCADE, related_name="systems")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.CASCADE, related_name="systems",
                             help_text="Empty: an organizers' system, whose runs are baselines")
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    number = models.PositiveIntegerField(help_text="1, 2, ... per team (or the organizers) and phase")
    method_name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    image = models.FileField(storage=private_storage, upload_to="systems/%Y/")
    original_name = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64, help_text="Of the image tar as uploaded")
    size = models.PositiveBigIntegerField()
    release_consent = models.BooleanField(
        default=False, help_text="The team agrees to the image itself being in the phase's results archive "
                                 "(its SHA-256 and execution records are there regardless)")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TellingQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["phase", "team", "number"], name="unique_system_number")]

    def __str__(self):
        owner = isolate(self.team.name) if self.team_id else "organizers"
        return f"{owner} system #{self.number}: {isolate(self.method_name)}"

    def get_absolute_url(self):
        return reverse("systems:detail", args=[self.pk])


class Execution(JobRow):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        REFUSED = "refused"
        STOPPED = "stopped"
        FAILED = "failed"

    class Reason(models.TextChoices):
        UPLOAD = "upload", "The team uploaded it"
        RERUN = "rerun", "An organizer ran it again"
        DETERMINISM = "determinism", "A determinism check (run twice, outputs compared)"

    PENDING = (Status.QUEUED, Status.RUNNING)

    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="executions")
    reason = models.CharField(max_length=12, choices=Reason.choices, default=Reason.UPLOAD)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    compared_with = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                      help_text="A determinism check's first execution, for the second")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    status_reason = models.TextField(blank=True, help_text="What the team reads: why it stopped or was refused")
    submission = models.OneToOneField("submissions.Submission", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="execution", help_text="The run its output became")
    # The record: what ran, on what, with what limits, and what it used and wrote.
    image_sha256 = models.CharField(max_length=64, blank=True)
    command = models.JSONField(default=list, blank=True, help_text="The image's declared command, as run")
    limits = models.JSONField(default=dict, blank=True, help_text="cpu_seconds, memory_bytes, output_bytes, "
                                                                   "processes, wall_seconds")
    topics = models.JSONField(default=dict, blank=True, help_text="{subset code: SHA-256 of the topics file given}")
    exit_code = models.IntegerField(null=True, blank=True)
    stopped_for = models.CharField(max_length=12, blank=True,
                                   help_text="The limit it hit: time, memory, output, processes, wall")
    cpu_seconds = models.FloatField(null=True, blank=True)
    max_rss_bytes = models.PositiveBigIntegerField(null=True, blank=True)
    wall_seconds = models.FloatField(null=True, blank=True)
    log_tail = models.TextField(blank=True, help_text="The end of its output, bounded, the topics redacted")
    output_files = models.JSONField(default=dict, blank=True, help_text="{file name: SHA-256} of /output")
    output_sha256 = models.CharField(max_length=64, blank=True, help_text="Of the output files, by name")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.system} execution {self.pk} ({self.status})"

    @property
    def is_pending(self) -> bool:
        return self.status in self.PENDING
