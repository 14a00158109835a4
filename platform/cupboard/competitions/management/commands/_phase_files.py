"""What `import_topics` and `import_qrels` share: the phase lookup and reading file arguments."""
from collections.abc import Callable
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase
from cupboard.competitions.published_files import files_by_subset


class PhaseFilesCommand(BaseCommand):
    prefix = ""  # "topics." or "qrels."

    def add_arguments(self, parser):
        parser.add_argument("--competition", required=True, help="competition slug")
        parser.add_argument("--phase", required=True, help="phase slug")
        parser.add_argument("paths", nargs="+", help="folders, files, or CODE=PATH")

    def phase_files(self, options) -> tuple[Phase, dict[str, Path]]:
        phase = self.phase(options)
        return phase, self.found(phase, lambda codes: files_by_subset(options["paths"], prefix=self.prefix,
                                                                      codes=codes))

    def phase(self, options) -> Phase:
        try:
            return Phase.objects.select_related("competition").get(
                competition__slug=options["competition"], slug=options["phase"])
        except Phase.DoesNotExist:
            raise CommandError(f"no phase {options['phase']!r} in competition {options['competition']!r}") from None

    def found(self, phase: Phase, finder: Callable[[list[str]], tuple[dict, list[str]]]) -> dict:
        """The files `finder` (files_by_subset or files_by_variant) finds for the phase's subsets."""
        codes = list(phase.competition.subsets.values_list("code", flat=True))
        try:
            files, skipped = finder(codes)
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        for name in skipped:
            self.stderr.write(f"skipped {name}: it names no subset of {phase.competition.slug}")
        if not files:
            raise CommandError(f"no {self.prefix}* file for a subset of {phase.competition.slug} was found")
        return files
