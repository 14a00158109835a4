from django.core.management.base import BaseCommand, CommandError

from cupboard.competitions.models import Phase
from cupboard.leaderboards.services import leaderboard_refresh


class Command(BaseCommand):
    help = ("Rebuild leaderboard rows from the stored scores (idempotent): after an upgrade that changes what is "
            "averaged or which run counts, rows computed by the old code are replaced.")

    def add_arguments(self, parser):
        parser.add_argument("--competition", help="only this competition's phases (its slug)")

    def handle(self, *args, **options):
        phases = Phase.objects.select_related("competition").order_by("competition__slug", "position")
        if options["competition"]:
            phases = phases.filter(competition__slug=options["competition"])
            if not phases.exists():
                raise CommandError(f"no competition {options['competition']!r} with phases")
        for phase in phases:
            rows = leaderboard_refresh(phase=phase)
            self.stdout.write(f"{phase}: {len(rows)} rows")
