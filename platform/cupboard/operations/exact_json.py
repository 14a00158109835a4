"""Django's JSON Lines serialization with every microsecond kept, for backups (`dumpdata --format`).

JSON Lines (one row a line) so that a restore reads the rows one at a time: Django's JSON
deserializer parses the whole document at once, and its memory grows with the database.
DjangoJSONEncoder cuts datetimes to milliseconds: a restored site then shows other instants
on its audit log and may order events of the same millisecond differently. The standard JSON
Lines deserializer reads the full ISO form, so only the writing side differs."""
import datetime
from typing import Any

from django.core.serializers import jsonl
from django.core.serializers.json import DjangoJSONEncoder

Deserializer = jsonl.Deserializer


class ExactJSONEncoder(DjangoJSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime) or (isinstance(o, datetime.time) and o.utcoffset() is None):
            return o.isoformat()
        return super().default(o)


class Serializer(jsonl.Serializer):
    def _init_options(self) -> None:
        super()._init_options()
        self.json_kwargs["cls"] = ExactJSONEncoder
