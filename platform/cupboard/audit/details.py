"""Audit details as people read them: `key: value` lines instead of a Python dict, names
instead of ids, a SHA-256 shortened for the eye (the page keeps the full value in its title).

Details keep the ids code looks rows up by (`team`, `phase_id`, `release_id`...): the audit
log knows no app, and an entry outlives a renamed team. Where an entry is written, a row's
name goes beside its id as `<key>_name` (`team_name`: "Harbor seals", `submission_name`:
"Harbor seals #12: BM25", `phase_name`: "Test B"); the page shows that name under the key and
leaves the id out, as it leaves out the `<key>_id` references whose row the entry also names.
An entry written before names were kept shows its id as "id 17".
"""
from __future__ import annotations

import re

_SHA256 = re.compile(r"[0-9a-f]{64}")
NAME_SUFFIX, ID_SUFFIX = "_name", "_id"
# Keys that held a row's id in entries written before its name was kept beside it.
_ID_KEYS = frozenset({"team", "merged_team", "submission", "phase", "verification", "user"})


def named(key: str, pk: int | str, name: str) -> dict[str, object]:
    """A row for the details: its id (or slug) under `key`, its name beside it: named("team", 7, "Harbor")."""
    return {key: pk, key + NAME_SUFFIX: name}


# The rows an entry names come first, in this order; other keys follow alphabetically. Not the
# stored order: PostgreSQL's jsonb keeps none (it sorts keys by length), SQLite keeps the written one.
_ROW_ORDER = ("submission", "team", "merged_team", "phase", "verification", "user")


def _place(key: str, details: dict) -> tuple:
    if key in _ROW_ORDER:
        return (0, _ROW_ORDER.index(key), key)
    return (0, len(_ROW_ORDER), key) if key + NAME_SUFFIX in details else (1, 0, key)


def readable_details(details: dict) -> list[dict]:
    """[{"key", "text", "full"}], the rows named first (`_ROW_ORDER`): `text` is the value in
    words (a row's name for its id, lists and nested objects joined, SHA-256 cut to 12 hex
    digits), `full` the value uncut."""
    details = details or {}
    rows = []
    for key in sorted(details, key=lambda k: _place(k, details)):
        value = details[key]
        if key.endswith(ID_SUFFIX) or (key.endswith(NAME_SUFFIX) and key[:-len(NAME_SUFFIX)] in details):
            continue  # a reference for code, or a name shown under its own key
        shown = details.get(key + NAME_SUFFIX, value)
        if shown is value and key in _ID_KEYS and isinstance(value, int) and not isinstance(value, bool):
            shown = f"id {value}"  # written before names were kept
        rows.append({"key": key.replace("_", " "), "text": _text(shown, short=True), "full": _text(shown, short=False)})
    return rows


def _text(value, *, short: bool) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v, short=short)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(_text(v, short=short) for v in value) or "none"
    text = str(value)
    return text[:12] + "…" if short and _SHA256.fullmatch(text) else text
