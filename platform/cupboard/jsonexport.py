"""JSON for downloads: every JSON export of participants' words (leaderboards, frozen results,
history, an archive's runs.json) is written here, so none carries markup as written.

JSON needs no escaping to stay JSON, but its strings travel on: into a page's `<script>` (where
`</script>` in a team name would end it), into a report an organizer's tool builds, into a
browser that guesses a type. `<`, `>` and `&` are written as \\u003C, \\u003E and \\u0026, as
Django's json_script writes them: the same data for every JSON reader, and no tag for anything else.
"""
from __future__ import annotations

import json

from django.core.serializers.json import DjangoJSONEncoder

_ESCAPES = {">": "\\u003E", "<": "\\u003C", "&": "\\u0026"}


def json_escaped(text: str) -> str:
    """JSON `text` with `<`, `>` and `&` escaped, by str.replace: on a 500-row board's charts
    str.translate with a dict took forty times as long (docs/benchmarks.md)."""
    for char, escape in _ESCAPES.items():
        text = text.replace(char, escape)
    return text


def json_text(value, *, indent: int | None = None) -> str:
    """`value` as JSON text (dates by Django's encoder, non-ASCII kept) with markup escaped."""
    return json_escaped(json.dumps(value, ensure_ascii=False, indent=indent, cls=DjangoJSONEncoder))
