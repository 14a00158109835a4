from pathlib import Path

from django.core.management.base import BaseCommand

from cupboard.demo.data import SHARED_DATA
from cupboard.demo.services import demo_load


class Command(BaseCommand):
    help = "Load the demo: accounts, teams and six competitions with scored runs (a second run changes nothing)."

    def add_arguments(self, parser):
        parser.add_argument("--data", type=Path, default=SHARED_DATA,
                            help=f"folder with MIRACL/Mr. TyDi files (default {SHARED_DATA}; absent = samples)")
        parser.add_argument("--scale", type=float, default=1.0, help="shrink (<1) or grow the queries per phase")

    def handle(self, *args, **options):
        loaded = demo_load(data_dir=options["data"], scale=options["scale"], log=self.stdout.write)
        self.stdout.write(self.style.SUCCESS(f"demo loaded: {', '.join(loaded) or 'nothing new'}"))
