"""What a new version of a competition's definition changes: one line per key path, old and new.

The old side is read from the database (`definition_current`), in the shape of
`definition_values`, so the diff is of what the competition *is*, whatever file or admin edit
put it there, and needs no copy of the previous YAML. Lists of named things (groups, subsets,
phases) are compared by name, so reordering is a `position` change, not a rewrite.

Which changes anyone may read: dates, limits and metrics (`Change.public`), as the competition
page shows them anyway; everything else, and anything about a subset (its code may name a
surprise language before its reveal), is for the organizers only.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from cupboard.competitions.definition import PHASE_BOARD_RULES, PhaseDef, SignificanceDef
from cupboard.competitions.models import Competition
from evaluator import schema

# Keys (the last part of a path) whose changes are public: dates, limits, metrics.
_DATES = {"starts_at", "entry_deadline", "opens_at", "closes_at", "reveal_at", "freeze_at"}
_LIMITS = {"daily_limit", "total_limit", "final_selection_max", "team_size_max", "max_run_depth", "scoring_depth"}
_METRICS = {"metrics", "primary_metric"}
# What each public key means to a team, for the mail that tells them (`Change.words`).
_WORDS = {"starts_at": "the competition starts", "entry_deadline": "teams can form until",
          "opens_at": "uploads open", "closes_at": "uploads close", "reveal_at": "results are revealed",
          "freeze_at": "the leaderboard freezes", "daily_limit": "uploads per team per UTC day",
          "total_limit": "uploads per team in all", "final_selection_max": "runs a team may select",
          "team_size_max": "members a team may have", "max_run_depth": "documents per query a run may hold",
          "scoring_depth": "documents per query scored", "metrics": "measures",
          "primary_metric": "the measure that ranks"}
_UNLIMITED = {"daily_limit", "total_limit"}  # none: no limit
# What the definition's version moves on every load; it is said once, not as a change.
UNCOMPARED = {"config_version"}


@dataclass(frozen=True)
class Change:
    path: str  # e.g. phases.test-b.closes_at
    old: object
    new: object

    @property
    def key(self) -> str:
        return self.path.rsplit(".", 1)[-1]

    @property
    def public(self) -> bool:
        return not self.path.startswith(("subsets.", "organizers")) and self.key in _DATES | _LIMITS | _METRICS

    @property
    def tells_teams(self) -> bool:
        """A deadline or a limit moved: what a team plans its submissions by, so it is mailed."""
        return self.key in _DATES | _LIMITS

    def line(self) -> str:
        return f"{self.path}: {shown(self.old)} -> {shown(self.new)}"

    def words(self, names: dict[str, str]) -> str:
        """The change as a team reads it, with the phase's or group's name from `names` (by
        slug or name) instead of the YAML's key path: "Test B (final): uploads close
        2027-02-08 00:00 UTC (was 2027-02-07 00:00 UTC)"."""
        parts = self.path.split(".")
        where = f"{names.get(parts[1], parts[1])}: " if len(parts) == 3 else ""
        what = "announced" if parts[0] == "groups" and self.key == "reveal_at" else \
            _WORDS.get(self.key, self.key.replace("_", " "))

        def value(v: object) -> str:
            return "no limit" if v is None and self.key in _UNLIMITED else shown(v)

        text = f"{what} {value(self.new)} (was {value(self.old)})"
        return where + text if where else text[0].upper() + text[1:]

    def data(self) -> dict:
        """For the audit log's details (JSON)."""
        return {"path": self.path, "old": shown(self.old), "new": shown(self.new)}


def shown(value: object) -> str:
    """A value as the diff prints it: instants in UTC to the minute (to the second when it has
    one); a long text (a page) by its start, since the line is for seeing *that* it changed."""
    if value is None:
        return "none"
    if isinstance(value, datetime):
        value = value.astimezone(UTC)
        return f"{value:%Y-%m-%d %H:%M:%S} UTC" if value.second else f"{value:%Y-%m-%d %H:%M} UTC"
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    text = str(value)
    start = text.strip().split("\n", 1)[0]
    return text if len(text) <= 60 and start == text else f"{start[:50]}… ({len(text)} characters)"


def definition_current(competition: Competition) -> dict:
    """The competition as stored, in the shape `definition_values` gives a file (the old side of a diff)."""
    phase_keys = ["name", "position"] + [k.name for k in schema.keys(PhaseDef)
                                         if k.name != "slug" and k.name not in PHASE_BOARD_RULES]
    fields = ["slug", "title", "description", "benchmark", "config_version", "metrics", "primary_metric",
              "relevance_level", "missing_subset", "final_selection_max", "decimals", "max_run_depth", "starts_at",
              "is_published", "scoring_depth", "entry_deadline", "team_size_max", "pages", "run_metadata",
              "significance"]
    # Only when declared, as definition_values gives it (a file without the key has none).
    variants = {"topic_variants": competition.topic_variants} if competition.topic_variants else {}
    labels = {"judging_labels": competition.judging_labels} if competition.judging_labels else {}
    # Rank bands as the board uses them: a competition made without a file stores none (the defaults).
    bands = {"significance": _significance(competition.significance)}
    return {
        "competition": {name: getattr(competition, name) for name in fields} | variants | labels | bands,
        "organizers": sorted(competition.organizers.values_list("username", flat=True)),
        "groups": [{"name": g.name, "label": g.label, "reveal_at": g.reveal_at}
                   for g in competition.groups.order_by("position", "name")],
        "subsets": [{"code": s.code, "name": s.name, "kind": s.kind, "group": s.group.name}
                    for s in competition.subsets.select_related("group").order_by("position", "code")],
        # A phase's position as a file gives it, its place in the order: the admin may number them 0, 5, 9.
        "phases": [{"slug": p.slug} | {k: getattr(p, k) for k in phase_keys} | {"position": place} | _board_rules(p)
                   for place, p in enumerate(competition.phases.order_by("position", "pk"))],
    }


def _significance(stored: dict | None) -> dict:
    return dataclasses.asdict(SignificanceDef()) | {k: v for k, v in (stored or {}).items() if v is not None}


def _board_rules(phase) -> dict:
    """A phase's freeze and ladder as `definition_values` gives them: only when set."""
    return {name: getattr(phase, name) for name in ("freeze_at", "ladder")
            if getattr(phase, name) != PHASE_BOARD_RULES[name]}


def definition_changes(before: dict, after: dict) -> list[Change]:
    """Every key path whose value differs between two definitions (`definition_values` shape)."""
    changes = _compared("", before["competition"], after["competition"])
    if sorted(before["organizers"]) != sorted(after["organizers"]):
        changes.append(Change("organizers", sorted(before["organizers"]), sorted(after["organizers"])))
    for part, name in (("groups", "name"), ("subsets", "code"), ("phases", "slug")):
        changes += _named(part, name, before[part], after[part])
    return changes


def _named(part: str, name: str, before: list[dict], after: list[dict]) -> list[Change]:
    old = {item[name]: item for item in before}
    new = {item[name]: item for item in after}
    changes = []
    for key in [*old, *(k for k in new if k not in old)]:
        if key not in new:
            changes.append(Change(f"{part}.{key}", "listed", None))
        elif key not in old:
            changes.append(Change(f"{part}.{key}", None, "listed"))
        else:
            changes += _compared(f"{part}.{key}.", old[key], new[key])
    return changes


def _compared(prefix: str, before: dict, after: dict) -> list[Change]:
    changes = []
    for key in [*before, *(k for k in after if k not in before)]:
        if key in UNCOMPARED:
            continue
        old, new = before.get(key), after.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            changes += _compared(f"{prefix}{key}.", old, new)
        elif not _same(old, new):
            changes.append(Change(f"{prefix}{key}", old, new))
    return changes


def _same(old: object, new: object) -> bool:
    """Equal, or equal once stored: a JSON field gives back lists where the file had tuples."""
    return old == new or json.dumps(old, sort_keys=True, default=str) == json.dumps(new, sort_keys=True, default=str)
