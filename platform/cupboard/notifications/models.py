"""E-mail notifications: what each person wants to hear about, and every mail owed to someone.

A `Notification` row is written when something happens (a submission scored, a phase about to
close, surprise languages revealed) and is the truth about that mail: the worker renders and
sends it after COMMIT (`services.notifications_send`) and stamps `sent_at`; a row still unsent
after a while is sent by the beat task, so a lost message or a failed SMTP connection delays a
mail and never loses one, and never touches the submission whose news it carries. `key` is
unique per person, so writing the same news twice (a re-run task, the beat task every few
seconds) makes one mail.
"""
from django.conf import settings
from django.db import models

from cupboard.jobs.models import JobRow


class Kind(models.TextChoices):
    """What a mail is about; each can be turned off on the profile page and by its unsubscribe link."""

    SUBMISSION = "submission", "A submission of my team is scored, rejected or failed"
    DEADLINE = "deadline", "A phase my team submitted to closes in 24 hours"
    REVEAL = "reveal", "Surprise languages of my competition are revealed"
    MESSAGE = "message", "The organizers of my competition write to every team"
    CHANGE = "change", "A deadline, a limit or the topics of my competition change"


class MailPreference(models.Model):
    """The kinds a person turned off (no row: every kind on)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_preference")
    submission = models.BooleanField(default=True)
    deadline = models.BooleanField(default=True)
    reveal = models.BooleanField(default=True)
    message = models.BooleanField(default=True)
    change = models.BooleanField(default=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.user} mail preferences"

    def wants(self, kind: str) -> bool:
        return getattr(self, Kind(kind).value)


class Notification(JobRow):
    """One mail to one person. `event` says what happened to its subject (the submission's
    `scored`, `rejected`, `failed`; `closing`; `revealed`; `message`; `changed`, `topics`); the foreign keys
    name the subject. An organizers' message keeps its own `subject` and `text`; a change its
    public diff lines in `text`."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    event = models.CharField(max_length=12)
    key = models.CharField(max_length=120, help_text="What it is about, e.g. submission:12:scored:r3; one mail per key")
    competition = models.ForeignKey("competitions.Competition", on_delete=models.CASCADE, related_name="+")
    submission = models.ForeignKey("submissions.Submission", null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="+")
    phase = models.ForeignKey("competitions.Phase", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    team = models.ForeignKey("teams.Team", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    group = models.ForeignKey("competitions.SubsetGroup", null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+")
    subject = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The job engine's columns come from JobRow (cupboard.jobs): claimed while a worker sends it.
    sent_at = models.DateTimeField(null=True, blank=True)
    skipped = models.CharField(max_length=100, blank=True,
                               help_text="Why it was not sent (turned off since, no address); final like sent_at")
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="one_notification_per_key")]
        indexes = [
            # notifications_sweep: rows neither sent nor skipped, oldest first.
            models.Index(fields=["sent_at", "created_at"], name="notification_unsent",
                         condition=models.Q(sent_at__isnull=True, skipped="")),
        ]

    def __str__(self):
        return f"{self.key} to {self.user}"
