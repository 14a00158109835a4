from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cupboard.operations.backup import site_backup


class Command(BaseCommand):
    help = "Write one archive of the site while it runs: every row (one snapshot), every stored file, a manifest."

    def add_arguments(self, parser):
        parser.add_argument("archive", type=Path, help="the tar file to write (gzipped when it ends in .gz)")

    def handle(self, *args, **options):
        archive = options["archive"]
        if archive.exists():
            raise CommandError(f"{archive} exists: name a new file (a backup never overwrites one)")
        site_backup(archive_path=archive, log=self.stdout.write)
        self.stdout.write(self.style.SUCCESS(f"backed up to {archive}"))
