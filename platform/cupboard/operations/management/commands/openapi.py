import json

from django.core.management.base import BaseCommand

from cupboard.operations.openapi import openapi_document


class Command(BaseCommand):
    help = ("Print the JSON API's OpenAPI 3.1 document (docs/openapi.json), joined from the apps' parts, each "
            "generated from its code.")

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n", ending="")
