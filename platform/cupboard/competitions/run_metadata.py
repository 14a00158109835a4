"""Run metadata: what an organizer asks of every submission (run type, training data, model
name and size, ...) so a leaderboard can be read and filtered ("zero-shot runs only").

The fields are defined in the competition's YAML under `run_metadata` (declared and checked
by `MetadataFieldDef` in definition_metadata.py, stored as plain data on `Competition.run_metadata`),
each with a `type`:

    choice   one of `choices` (values, or {value, label} mappings)   filterable
    boolean  yes / no                                                 filterable
    text     one line, at most 200 characters
    integer  a whole number, 0 or more
    url      an http(s) address

The upload form, the JSON API and `evaluator submit --meta NAME=VALUE` all send the values as
`meta_<name>` fields, and all are checked by `metadata_clean`, which reports every problem by
field name and changes nothing. On a leaderboard `?meta_<name>=<value>` keeps the rows whose
counted submission carries that value (`filters_from_query`, `matches`).

A new version of the YAML may change the fields; stored submissions keep the values they
were given (`Submission.metadata` is never rewritten). A field no longer defined is no longer
shown on pages or leaderboards but stays in the organizers' export; a field that became
required is required of new uploads only: older submissions show it as not given and match
no filter on it; a stored value that is no longer one of the choices is shown as stored.

One field is not the YAML's own: with two or more `topic_variants`, `topics` (a required
choice among them) says which topics a run answered (competitions/topic_variants.py).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

from cupboard.competitions.topic_variants import variant_field

TYPES = ("choice", "boolean", "text", "integer", "url")
FILTERABLE = ("choice", "boolean")
PREFIX = "meta_"  # the form/API field and the leaderboard's query parameter: meta_<name>
NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
TEXT_MAX = 200
# How yes and no may be spelled, here and by the upload's own yes/no fields (submissions/forms.py).
YES, NO = frozenset({"yes", "true", "1", "on"}), frozenset({"no", "false", "0", "off"})


@dataclass(frozen=True, slots=True)
class MetadataField:
    """One field as the YAML defines it (see the module docstring)."""

    name: str
    label: str
    type: str
    required: bool = False
    help: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    leaderboard: bool = True  # a column on the leaderboard and its exports

    @property
    def param(self) -> str:
        """Its name in forms, the API and leaderboard query strings."""
        return PREFIX + self.name

    @property
    def filterable(self) -> bool:
        return self.type in FILTERABLE

    @property
    def options(self) -> tuple[tuple[str, str], ...]:
        """(value, label) of a choice or boolean field, as forms and filters list them."""
        return (("yes", "yes"), ("no", "no")) if self.type == "boolean" else self.choices

    def display(self, value) -> str:
        """A stored value in words; "" when not given. A value no longer among the choices is shown as stored."""
        if value is None or value == "":
            return ""
        if self.type == "boolean" and isinstance(value, bool):
            return "yes" if value else "no"
        return dict(self.choices).get(value, str(value)) if self.type == "choice" else str(value)

    def query_value(self, value) -> str | None:
        """A stored value as a filter spells it (booleans as yes/no), None when not given."""
        if value is None or value == "":
            return None
        if self.type == "boolean" and isinstance(value, bool):
            return "yes" if value else "no"
        return str(value)


def metadata_fields(competition) -> list[MetadataField]:
    """The fields a competition asks for now, in the YAML's order; first, with two or more
    topic variants, `topics`: which of them the run used (competitions/topic_variants.py)."""
    asked = [spec for spec in (variant_field(competition),) if spec] + list(competition.run_metadata or [])
    return [MetadataField(**{**spec, "choices": tuple(tuple(c) for c in spec.get("choices", ()))}) for spec in asked]


# --- values ------------------------------------------------------------------------------------
class MetadataError(ValueError):
    """Values that do not fit the fields: `problems` as (field name, message), every one at once."""

    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems
        super().__init__("; ".join(f"{name}: {message}" for name, message in problems))


def metadata_clean(fields: list[MetadataField], raw: Mapping[str, object], *, required: bool = True) -> dict:
    """{name: value} checked against `fields`: choices as their value, booleans as True/False,
    integers as int, text and URLs stripped; empty values left out. Takes the strings a form
    or the API sends and already clean values alike (cleaning twice changes nothing).
    `required=False` (baselines) lets required fields stay empty. Raises `MetadataError`."""
    known = {f.name: f for f in fields}
    problems = [(name, f"no such field; this competition asks for {', '.join(known) or 'none'}")
                for name in raw if name not in known]
    values = {}
    for field in fields:
        value = raw.get(field.name)
        if isinstance(value, str):
            value = value.strip()
        if value is None or value == "":
            if required and field.required:
                problems.append((field.name, f"{field.label} is required" + _one_of(field)))
            continue
        try:
            values[field.name] = _value(field, value)
        except ValueError as error:
            problems.append((field.name, str(error)))
    if problems:
        raise MetadataError(problems)
    return values


def _one_of(field: MetadataField) -> str:
    return f" (one of {', '.join(v for v, _ in field.options)})" if field.options else ""


def _value(field: MetadataField, value):
    if field.type == "choice":
        if value not in dict(field.choices):
            raise ValueError(f"must be one of {', '.join(v for v, _ in field.choices)}, not {value!r}")
        return value
    if field.type == "boolean":
        if isinstance(value, bool):
            return value
        if str(value).lower() in YES | NO:
            return str(value).lower() in YES
        raise ValueError(f"say yes or no, not {value!r}")
    if field.type == "integer":
        if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and value.isascii() and value.isdigit())):
            raise ValueError(f"must be a whole number (0 or more), not {value!r}")
        if int(value) < 0 or int(value) > 10 ** 15:
            raise ValueError(f"must be a whole number from 0 to 10^15, not {value!r}")
        return int(value)
    text = str(value)
    if "\n" in text or "\r" in text or len(text) > TEXT_MAX:
        raise ValueError(f"must be one line of at most {TEXT_MAX} characters")
    if field.type == "url":
        try:
            URLValidator(schemes=["http", "https"])(text)
        except ValidationError:
            raise ValueError(f"must be an http(s) address like https://github.com/me/run, not {text!r}") from None
    return text


# --- leaderboard filters -------------------------------------------------------------------------
def filters_from_query(fields: list[MetadataField], query: Mapping[str, str]) -> dict[str, str]:
    """{name: value} of the `meta_<name>=<value>` parameters that name a filterable field and
    one of its options, in the fields' order. Anything else is dropped, so a cache holds one
    entry per real filter, never one per made-up parameter."""
    found = {}
    for field in fields:
        value = query.get(field.param)
        if field.filterable and field.leaderboard and value in dict(field.options):
            found[field.name] = value
    return found


def matches(fields: list[MetadataField], filters: Mapping[str, str], metadata: Mapping) -> bool:
    """Whether a submission's stored metadata has every filtered value (not given: no match)."""
    by_name = {f.name: f for f in fields}
    return all(by_name[name].query_value(metadata.get(name)) == value for name, value in filters.items())


def filter_query(filters: Mapping[str, str]) -> str:
    """The filter as a query string (`meta_training=zero-shot`), "" for none."""
    return urlencode({PREFIX + name: value for name, value in filters.items()})


def metadata_shown(fields: list[MetadataField], metadata: Mapping) -> list[tuple[MetadataField, str]]:
    """(field, value in words) for every field asked now, "" where the submission gave none
    (e.g. a field added after it was made); values of fields no longer asked are left out."""
    return [(field, field.display(metadata.get(field.name))) for field in fields]


def metadata_current(fields: Sequence[MetadataField], metadata: Mapping) -> dict:
    """The stored values of the fields asked now, as JSON exports and the API give them."""
    return {field.name: metadata[field.name] for field in fields if metadata.get(field.name) not in (None, "")}
