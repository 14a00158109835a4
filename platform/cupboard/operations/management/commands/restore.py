from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from cupboard.operations.restore import RestoreRefused, site_restore


class Command(BaseCommand):
    help = ("Restore an archive of `backup` onto an empty, migrated database and an empty storage, "
            "after checking every member's SHA-256.")

    def add_arguments(self, parser):
        parser.add_argument("archive", type=Path, help="a file written by `manage.py backup`")
        parser.add_argument("--force", action="store_true",
                            help="ERASE every row and stored file of this site first, then restore")

    def handle(self, *args, **options):
        archive = options["archive"]
        if not archive.is_file():
            raise CommandError(f"{archive}: no such file")
        try:
            manifest = site_restore(archive_path=archive, force=options["force"], log=self.stdout.write)
        except RestoreRefused as refusal:
            raise CommandError(str(refusal)) from refusal
        self.stdout.write(self.style.SUCCESS(f"restored {archive} (backed up by cupboard {manifest['cupboard_version']})"))
