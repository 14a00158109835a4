"""Django's JSON serialization with every microsecond kept, for backups (`dumpdata --format`).

DjangoJSONEncoder cuts datetimes to milliseconds: a restored site then shows other instants
on its audit log and may order events of the same millisecond differently. The standard JSON
deserializer reads the full ISO form, so only the writing side differs."""
import datetime
from typing import Any

from django.core.serializers import json
from django.core.serializers.json import DjangoJSONEncoder

Deserializer = json.Deserializer


class ExactJSONEncoder(DjangoJSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, datetime.datetime) or (isinstance(o, datetime.time) and o.utcoffset() is None):
            return o.isoformat()
        return super().default(o)


class Serializer(json.Serializer):
    def _init_options(self) -> None:
        super()._init_options()
        self.json_kwargs["cls"] = ExactJSONEncoder
