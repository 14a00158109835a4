from django.core.management.base import BaseCommand, CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.services import competition_load_changes


class Command(BaseCommand):
    help = ("Create or update a competition from its versioned YAML definition; an update prints what it "
            "changes (--dry-run: prints it and changes nothing).")

    def add_arguments(self, parser):
        parser.add_argument("path", help="the competition's YAML file")
        parser.add_argument("--dry-run", action="store_true",
                            help="check the file and print what it would change, without applying it")

    def handle(self, *args, **options):
        try:
            competition, changes = competition_load_changes(data=options["path"], dry_run=options["dry_run"])
        except FileNotFoundError as error:
            raise CommandError(f"{options['path']}: no such file") from error
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        self._changes(competition, changes, dry_run=options["dry_run"])
        if not options["dry_run"]:
            self.stdout.write(self.style.SUCCESS(
                f"{competition.slug} at definition version {competition.config_version}: "
                f"{competition.subsets.count()} subsets, {competition.phases.count()} phases"))

    def _changes(self, competition, changes, *, dry_run: bool) -> None:
        """The diff, one key path a line, `*` marking what is public (audit log, feed, the teams' mail)."""
        would = "would " if dry_run else ""
        if changes is None:
            self.stdout.write(f"{competition.slug}: {would}create it at definition version {competition.config_version}")
        elif not changes:
            self.stdout.write(f"{competition.slug}: nothing {'would change' if dry_run else 'changed'} "
                              f"(definition version {competition.config_version})")
        else:
            self.stdout.write(f"{competition.slug}: version {competition.config_version} {would}change "
                              f"(* public: audit log, feed, teams' mail for deadlines and limits):")
            for change in changes:
                self.stdout.write(f"  {'*' if change.public else ' '} {change.line()}")
