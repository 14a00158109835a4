from django.core.management.base import CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.published_files import files_by_variant
from cupboard.competitions.services import topics_import_files
from cupboard.competitions.topic_variants import variants

from ._phase_files import PhaseFilesCommand


class Command(PhaseFilesCommand):
    help = ("Import a phase's topics from files by their published names (topics.miracl-v1.0-sw-dev.tsv, ...); "
            "with topic variants, each file's variant from its name (topics.ha.native.tsv) or --variant.")
    prefix = "topics."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--variant", default="", help="the topic variant of files whose name says none "
                                                          "(default: the competition's first)")

    def handle(self, *args, **options):
        phase = self.phase(options)
        known = [v.code for v in variants(phase.competition)]
        if options["variant"] and options["variant"] not in known:
            raise CommandError(f"--variant {options['variant']}: {phase.competition.slug} has the topic variants "
                               f"{', '.join(known)}")
        files = self.found(phase, lambda codes: files_by_variant(
            options["paths"], prefix=self.prefix, codes=codes, variants=known if len(known) > 1 else (),
            variant=options["variant"], default=known[0]))
        try:
            # All or none: the variants of a subset are compared with each other before any is stored.
            stored = topics_import_files(phase=phase, files=files, names={key: path.name for key, path in files.items()})
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        for done, topic_set in enumerate(stored, start=1):
            which = f" ({topic_set.variant})" if len(known) > 1 else ""
            self.stdout.write(f"[{done}/{len(stored)}] {topic_set.subset.code}{which}: {topic_set.query_count} "
                              f"queries from {topic_set.original_name}")
