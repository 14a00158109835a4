from django.core.management.base import CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.services import topics_import

from ._phase_files import PhaseFilesCommand


class Command(PhaseFilesCommand):
    help = "Import a phase's topics from files by their published names (topics.miracl-v1.0-sw-dev.tsv, ...)."
    prefix = "topics."

    def handle(self, *args, **options):
        phase, files = self.phase_files(options)
        for done, (code, path) in enumerate(sorted(files.items()), start=1):
            try:
                topic_set = topics_import(phase=phase, subset=code, file=path, name=path.name, actor=None)
            except CompetitionError as error:
                raise CommandError(str(error)) from error
            self.stdout.write(f"[{done}/{len(files)}] {code}: {topic_set.query_count} queries from {path.name}")
