import json

from django.core.management.base import BaseCommand

from cupboard.submissions.openapi import openapi_document


class Command(BaseCommand):
    help = "Print the JSON API's OpenAPI 3.1 document (docs/openapi.json), generated from the contract and forms."

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n", ending="")
