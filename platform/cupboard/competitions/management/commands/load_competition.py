from django.core.management.base import BaseCommand, CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.services import competition_load


class Command(BaseCommand):
    help = "Create or update a competition from its versioned YAML definition."

    def add_arguments(self, parser):
        parser.add_argument("path", help="the competition's YAML file")

    def handle(self, *args, **options):
        try:
            competition = competition_load(data=options["path"], actor=None)
        except FileNotFoundError as error:
            raise CommandError(f"{options['path']}: no such file") from error
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(self.style.SUCCESS(
            f"{competition.slug} at definition version {competition.config_version}: "
            f"{competition.subsets.count()} subsets, {competition.phases.count()} phases"))
