"""A baseline run from the shell: what an organizer uploads on a phase's upload page (or the
API with is_baseline), for a site set up from the command line. Validated and queued like any
upload; the worker scores it and the leaderboard shows it unranked."""
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase
from cupboard.competitions.published_files import files_by_subset
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.services import submission_create


class Command(BaseCommand):
    help = "Upload a baseline run (one file per subset) to a phase, as one of its organizers."

    def add_arguments(self, parser):
        parser.add_argument("--competition", required=True, help="competition slug")
        parser.add_argument("--phase", required=True, help="phase slug")
        parser.add_argument("--method", required=True, help="the baseline's name on the leaderboard, e.g. BM25")
        parser.add_argument("--as", dest="username", help="an organizer's username (default: the first organizer)")
        parser.add_argument("paths", nargs="+", help="run files, CODE=PATH, or folders of run.* files")

    def handle(self, *, competition, phase, method, username, paths, **options):
        phase = self._phase(competition, phase)
        user = self._organizer(phase, username)
        codes = list(phase.competition.subsets.values_list("code", flat=True))
        try:
            found, skipped = files_by_subset(paths, prefix="run.", codes=codes)
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        for name in skipped:
            self.stderr.write(f"skipped {name}: it names no subset of {phase.competition.slug} (use CODE=PATH)")
        if not found:
            raise CommandError("no run file for a subset of the competition was given")
        handles = [open(path, "rb") for path in found.values()]
        try:
            files = [(File(handle, name=Path(path).name), code)
                     for handle, (code, path) in zip(handles, found.items(), strict=True)]
            submission = submission_create(phase=phase, team=None, user=user, files=files, method_name=method,
                                           is_baseline=True)
        except SubmissionRefused as refusal:
            problems = "".join(f"\n  {p.where}: {p.message}" for p in refusal.problems if p is not None)
            raise CommandError(f"{refusal.message}{problems}") from refusal
        finally:
            for handle in handles:
                handle.close()
        self.stdout.write(f"baseline {method!r}: submission #{submission.pk}, {submission.status} "
                          f"({', '.join(sorted(found))}); the worker scores it")

    def _phase(self, competition: str, phase: str) -> Phase:
        try:
            return Phase.objects.select_related("competition").get(competition__slug=competition, slug=phase)
        except Phase.DoesNotExist:
            raise CommandError(f"no phase {phase!r} in competition {competition!r}") from None

    def _organizer(self, phase: Phase, username: str | None):
        organizers = phase.competition.organizers.order_by("pk")
        if username:
            user = get_user_model().objects.filter(username=username).first()
            if user is None or not organizers.filter(pk=user.pk).exists():
                raise CommandError(f"{username!r} is not an organizer of {phase.competition.slug}")
            return user
        user = organizers.first()
        if user is None:
            raise CommandError(f"{phase.competition.slug} has no organizer: name one under `organizers:` in its YAML")
        return user
