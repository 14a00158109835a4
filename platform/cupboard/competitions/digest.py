"""A definition's digest: the SHA-256 of what it holds, the same from a file or from the rows.

It is derived, never stored. A stored digest is only true until something changes the rows
without the loader: a schedule, reveal or board-rules edit in the organizer area, an edit in
the admin, the demo closing a phase. Derived from `definition_current`, it says what the
competition *is* whichever path moved it, so the loader needs no work-around to tell a file
that says what the competition is (no change) from one that says something else (refused at
the same version, a diff at a higher one).

The form hashed makes equal what the diff (competitions/changes.py) calls the same: the
version left out (it is checked on its own), a key without a value as good as an absent one,
instants in UTC, organizers in any order. Lists keep their order: moving a group is a change.
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime

from cupboard.competitions.changes import UNCOMPARED, definition_current
from cupboard.competitions.models import Competition


def definition_digest(definition: dict) -> str:
    """The digest of a definition in `definition_values` shape (a file's or the rows')."""
    held = _canonical(definition | {
        "competition": {k: v for k, v in definition["competition"].items() if k not in UNCOMPARED},
        "organizers": sorted(definition["organizers"])})
    return hashlib.sha256(json.dumps(held, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def competition_digest(competition: Competition) -> str:
    """The digest of what the competition holds now (five queries: `definition_current`)."""
    return definition_digest(definition_current(competition))


def _canonical(value: object) -> object:
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)  # a choices member (Phase.Ranking): its value
