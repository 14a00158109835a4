"""A follow-up's event (a dataclass, cupboard/events.py) as JSON: rows by their model and id,
read again when it runs.

A follow-up runs after the commit, perhaps in another process: it must see the rows as they are
then, not the sender's copies, so a model instance is stored as its model and id and fetched
again. Dataclasses (a definition's `Change`), datetimes, lists, tuples, dicts with string keys
and JSON's own values are kept; anything else is refused when the follow-up is recorded, in the
sender's transaction, so a value that cannot be stored is a loud error, never a lost follow-up.
"""
from __future__ import annotations

import dataclasses
from datetime import date, datetime
from typing import Any

from django.apps import apps
from django.db import models
from django.utils.module_loading import import_string


class Gone(LookupError):
    """A row the follow-up names no longer exists (deleted since): nothing is left to do."""


def encode(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, models.Model):
        return {"$row": value._meta.label, "pk": value.pk}
    if isinstance(value, datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, date):
        return {"$date": value.isoformat()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        return {"$dataclass": f"{kind.__module__}.{kind.__qualname__}",
                "fields": {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}}
    if isinstance(value, list | tuple | set | frozenset):
        return [encode(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) and not key.startswith("$") for key in value):
        return {key: encode(item) for key, item in value.items()}
    raise TypeError(f"a follow-up cannot store {type(value).__name__} {value!r:.80}")


def decode(value: Any) -> Any:
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "$row" in value:
        model = apps.get_model(value["$row"])
        row = model.objects.filter(pk=value["pk"]).first()
        if row is None:
            raise Gone(f"{value['$row']} {value['pk']} no longer exists")
        return row
    if "$datetime" in value:
        return datetime.fromisoformat(value["$datetime"])
    if "$date" in value:
        return date.fromisoformat(value["$date"])
    if "$dataclass" in value:
        return import_string(value["$dataclass"])(**{k: decode(v) for k, v in value["fields"].items()})
    return {key: decode(item) for key, item in value.items()}
