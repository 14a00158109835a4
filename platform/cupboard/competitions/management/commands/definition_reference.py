from django.core.management.base import BaseCommand

from cupboard.competitions.definition_reference import definition_reference


class Command(BaseCommand):
    help = "Print the competition YAML's reference page (docs/definition.md), generated from its schema."

    def handle(self, *args, **options):
        self.stdout.write(definition_reference(), ending="")
