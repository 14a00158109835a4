from django.conf import settings
from django.core.management.base import BaseCommand

from cupboard.submissions.retention import run_files_purge


class Command(BaseCommand):
    help = "Delete the run files of rejected and failed submissions older than CUPBOARD_RUN_FILE_RETENTION_DAYS."

    def handle(self, *args, **options):
        purged = run_files_purge()
        self.stdout.write(f"Freed {purged.bytes} bytes: {purged.files} run file(s) of rejected and failed "
                          f"submissions older than {settings.CUPBOARD_RUN_FILE_RETENTION_DAYS} days.")
