"""A stored competition written back as its definition's YAML, so the browser and files stay
one source of truth: what the organizer area downloads, loaded again, gives the competition
it came from (no change, the same digest).

It is built from `changes.definition_current`, the competition as stored in the shape the
loader applies, and checked the way it will be read: the groups and subsets are written as
briefly as reads back the same (the benchmark's own, subsets without a group for a
single-average board, or every group and subset spelled out)."""
from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import yaml

from cupboard.competitions.changes import definition_current
from cupboard.competitions.definition import (
    SCHEMA_VERSION,
    PhaseDef,
    SignificanceDef,
    definition_read,
    definition_values,
)
from cupboard.competitions.models import Competition, Phase, Subset
from evaluator.schema import keys

# Competition keys written when set, in the order a file gives them.
_SCALARS = (("title", "title"), ("description", "description"), ("benchmark", "benchmark"),
            ("metrics", "metrics"), ("primary_metric", "primary_metric"), ("relevance_level", "relevance_level"),
            ("missing_subset", "missing_subset"), ("final_selection_max", "final_selection_max"),
            ("decimals", "decimals"), ("max_run_depth", "max_run_depth"), ("scoring_depth", "scoring_depth"),
            ("starts_at", "starts_at"), ("published", "is_published"), ("entry_deadline", "entry_deadline"),
            ("team_size_max", "team_size_max"))
_PHASE_DEFAULTS = {k.name: k.default for k in keys(PhaseDef) if not k.required}


def definition_data(competition: Competition, *, version: int | None = None, listed: bool = False) -> dict:
    """The competition as the YAML data of its definition (`version`: another version number,
    as an edit starts from the current one plus one; `listed`: its subsets listed even where
    they are the benchmark's, as the editor's rows show them)."""
    current = definition_current(competition)
    fields = current["competition"]
    data: dict = {"schema": SCHEMA_VERSION, "version": version or fields["config_version"], "slug": fields["slug"]}
    data |= {key: _plain(fields[name]) for key, name in _SCALARS if fields[name] not in (None, "")}
    if current["organizers"]:
        data["organizers"] = current["organizers"]
    if pages := {name: text for name, text in (fields["pages"] or {}).items() if text}:
        data["pages"] = pages
    if fields["run_metadata"]:
        data["run_metadata"] = [_metadata_field(spec) for spec in fields["run_metadata"]]
    if fields.get("topic_variants"):
        data["topic_variants"] = [{"code": v["code"], "name": v["name"]} for v in fields["topic_variants"]]
    if fields.get("judging_labels"):
        data["judging_labels"] = [dict(label) for label in fields["judging_labels"]]
    if fields["significance"] and fields["significance"] != dataclasses.asdict(SignificanceDef()):
        data["significance"] = dict(fields["significance"])
    data |= _structure(data, current, listed=listed)
    data["phases"] = [_phase(spec) for spec in current["phases"]]
    return data


def definition_yaml(competition: Competition, *, version: int | None = None) -> str:
    """`definition_data` as YAML text."""
    return yaml_text(definition_data(competition, version=version))


def yaml_text(data: dict) -> str:
    """Definition data as YAML text, keys in the order given, pages as literal blocks."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def _plain(value):
    return instant_text(value) if isinstance(value, datetime) else value


def instant_text(value: datetime) -> str:
    """An instant as the file writes it (ISO 8601 in UTC, `Z`, microseconds only when it has them)."""
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _metadata_field(spec: dict) -> dict:
    field = {"name": spec["name"], "type": spec["type"]}
    if spec["label"] != spec["name"]:
        field["label"] = spec["label"]
    if spec["required"]:
        field["required"] = True
    if spec["help"]:
        field["help"] = spec["help"]
    if spec["type"] == "choice":
        field["choices"] = [value if label == value else {"value": value, "label": label}
                            for value, label in spec["choices"]]
    if not spec["leaderboard"]:
        field["leaderboard"] = False
    return field


def _structure(data: dict, current: dict, *, listed: bool) -> dict:
    """`groups` and `subsets`, as briefly as reads back the same (with `listed`, never the
    benchmark's by leaving both out)."""
    def subset(spec: dict, *, group: bool) -> dict:
        item = {"code": spec["code"], "name": spec["name"]}
        if group:
            item["group"] = spec["group"]
        return item | ({"kind": spec["kind"]} if spec["kind"] != Subset.Kind.LANGUAGE else {})

    groups = [{"name": g["name"], "label": g["label"]} | ({"reveal_at": _plain(g["reveal_at"])} if g["reveal_at"] else {})
              for g in current["groups"]]
    candidates = [{}, {"subsets": [subset(s, group=False) for s in current["subsets"]]},
                  {"groups": groups, "subsets": [subset(s, group=True) for s in current["subsets"]]}]
    for candidate in candidates[1:] if listed else candidates:
        if _reads_back(data | candidate | {"phases": [_phase(p) for p in current["phases"]]}, current):
            return candidate
    return candidates[-1]


def _reads_back(data: dict, current: dict) -> bool:
    try:
        values = definition_values(definition_read(data))
    except Exception:  # noqa: BLE001 - a candidate that does not even read is simply not the one
        return False
    return all(values[part] == current[part] for part in ("groups", "subsets"))


def _phase(spec: dict) -> dict:
    """A phase's keys that differ from their default (its ranking: from the one it would get)."""
    item = {"slug": spec["slug"], "name": spec["name"], "opens_at": _plain(spec["opens_at"]),
            "closes_at": _plain(spec["closes_at"])}
    implied = Phase.Ranking.SELECTED if spec["is_final"] else Phase.Ranking.BEST
    for name, default in _PHASE_DEFAULTS.items():
        value = spec.get(name, default)
        if name in item or name == "freeze_days" or value == default or (name == "ranking" and value == implied):
            continue
        item[name] = _plain(value)
    return item


class _Dumper(yaml.SafeDumper):
    """Multi-line text (a page, a description) as a literal block, as an organizer writes it;
    a value met twice written out twice, never as an alias (which the browser refuses)."""

    def ignore_aliases(self, data) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, value: str):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)
