from django.core.management.base import CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.services import qrels_release_create

from ._phase_files import PhaseFilesCommand


class Command(PhaseFilesCommand):
    help = "Release a new qrels version for a phase from files by their published names (qrels.miracl-v1.0-sw-dev.tsv, ...)."
    prefix = "qrels."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--note", default="", help="why this version (shown in the audit log)")

    def handle(self, *args, **options):
        phase, files = self.phase_files(options)
        try:
            release = qrels_release_create(phase=phase, files=files, actor=None, note=options["note"],
                                           names={code: path.name for code, path in files.items()},
                                           progress=lambda code, n, total: self.stdout.write(
                                               f"[{n}/{total}] {code}: checked"),
                                           warn=lambda message: self.stderr.write(self.style.WARNING(message)))
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        for qrels_file in release.files.select_related("subset").order_by("subset__position"):
            self.stdout.write(f"{qrels_file.subset.code}: {qrels_file.judged_queries} queries, "
                              f"{qrels_file.judgments} judgments, sha256 {qrels_file.sha256}")
        self.stdout.write(self.style.SUCCESS(f"{phase} now uses qrels v{release.number}"))
