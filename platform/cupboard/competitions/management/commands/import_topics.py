from django.core.management.base import CommandError

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.published_files import files_by_variant
from cupboard.competitions.topic_files import topics_import_files, topics_preview
from cupboard.competitions.topic_variants import variants
from cupboard.competitions.topics_changes import REFUSE, RESCORE

from ._phase_files import PhaseFilesCommand


class Command(PhaseFilesCommand):
    help = ("Import a phase's topics from files by their published names (topics.miracl-v1.0-sw-dev.tsv, ...); "
            "with topic variants, each file's variant from its name (topics.ha.native.tsv) or --variant.")
    prefix = "topics."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--variant", default="", help="the topic variant of files whose name says none "
                                                          "(default: the competition's first)")
        parser.add_argument("--dry-run", action="store_true",
                            help="show the queries the files add, remove and change, and the runs affected; store nothing")
        parser.add_argument("--when-runs", choices=(REFUSE, RESCORE), default=REFUSE,
                            help="when runs were checked against queries the files change: refuse the change "
                                 "(default), or rescore: store it and score the phase's runs again")

    def handle(self, *args, **options):
        phase = self.phase(options)
        known = [v.code for v in variants(phase.competition)]
        if options["variant"] and options["variant"] not in known:
            raise CommandError(f"--variant {options['variant']}: {phase.competition.slug} has the topic variants "
                               f"{', '.join(known)}")
        files = self.found(phase, lambda codes: files_by_variant(
            options["paths"], prefix=self.prefix, codes=codes, variants=known if len(known) > 1 else (),
            variant=options["variant"], default=known[0]))
        names = {key: path.name for key, path in files.items()}
        try:
            change = topics_preview(phase=phase, files=files, names=names)
            for line in change.lines(variants=len(known) > 1):
                self.stdout.write(line)
            if change.runs:
                self.stdout.write(f"{change.runs} run(s) were checked against the queries this changes "
                                  f"(--when-runs {options['when_runs']})")
            if options["dry_run"]:
                self.stdout.write("dry run: nothing stored")
                return
            # All or none: the variants of a subset are compared with each other before any is stored.
            stored = topics_import_files(phase=phase, files=files, names=names, when_runs=options["when_runs"])
        except CompetitionError as error:
            raise CommandError(str(error)) from error
        for done, topic_set in enumerate(stored, start=1):
            which = f" ({topic_set.variant})" if len(known) > 1 else ""
            self.stdout.write(f"[{done}/{len(stored)}] {topic_set.subset.code}{which}: {topic_set.query_count} "
                              f"queries from {topic_set.original_name} (topics v{topic_set.version})")
