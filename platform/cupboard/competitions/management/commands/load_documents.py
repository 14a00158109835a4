from django.core.management.base import BaseCommand, CommandError

from cupboard.competitions.document_lists import document_list_create
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Competition


class Command(BaseCommand):
    help = ("Store a subset's document list (an id file, one docid per line, or a TSV / JSON-lines corpus): "
            "runs naming another document are refused at their line, or warned, as each phase's "
            "`unknown_documents` says.")

    def add_arguments(self, parser):
        parser.add_argument("competition", help="the competition's slug")
        parser.add_argument("subset", help="the subset's code, e.g. sw")
        parser.add_argument("path", help="the id file or corpus (plain or gzip)")

    def handle(self, *args, **options):
        competition = Competition.objects.filter(slug=options["competition"]).first()
        if competition is None:
            raise CommandError(f"no competition {options['competition']!r}")
        subset = competition.subsets.filter(code=options["subset"]).first()
        if subset is None:
            codes = ", ".join(competition.subsets.values_list("code", flat=True))
            raise CommandError(f"{competition.slug} has no subset {options['subset']!r} (it has {codes})")
        try:
            row = document_list_create(competition=competition, subset=subset, path=options["path"])
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(self.style.SUCCESS(f"{competition.slug}/{subset.code}: {row.documents:,} documents "
                                             f"(sha256 {row.sha256})"))
