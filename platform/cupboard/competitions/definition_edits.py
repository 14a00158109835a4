"""A competition's definition created or edited in the browser, through the one loader.

The organizer area's forms (structured fields, a YAML text area, an uploaded file) all end as
YAML data handed to `competition_load_changes`, exactly as `manage.py load_competition` hands
it a file: the same checks, the same diff (competitions/changes.py), the same audit entries
and teams' mail. What this module adds is what a page needs around it: reading a text with
each problem at its line, keeping a page's edit to its own competition, and who may create one.
"""
from __future__ import annotations

import re

import yaml
from django.contrib.auth.models import User

from cupboard.competitions.changes import Change
from cupboard.competitions.definition import definition_read
from cupboard.competitions.definition_lines import located
from cupboard.competitions.errors import CompetitionError, DefinitionError
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load_changes
from evaluator.yaml_bounded import YamlRefused, yaml_bounded_load

CREATE_PERMISSION = "competitions.add_competition"
MAX_TEXT = 1_000_000  # characters of a definition typed or uploaded (the Cup's, pages and all: ~12,000)
# "phases[1].closes_at: must be after opens_at": a problem that starts with its key path.
_PATH = re.compile(r"^(?P<path>[A-Za-z_][\w.\[\]-]*): (?P<message>.*)$", re.S)


def may_create_competition(user) -> bool:
    """Staff, and any account given the permission to add competitions (in the admin: a user's
    or a group's permissions, "competitions | competition | Can add competition")."""
    return user.is_authenticated and (user.is_staff or user.has_perm(CREATE_PERMISSION))


def definition_text_read(text: str, *, name: str) -> dict:
    """The YAML data of a definition's text, checked against the schema; DefinitionError with
    every problem as `name:line: key.path: message` otherwise. Read with bounds (nesting,
    aliases, numbers' and values' length, MAX_TEXT in all: evaluator/yaml_bounded.py), so that no
    text costs a web process more than its reading or answers anything but a refusal at its line."""
    try:
        data = yaml_bounded_load(text, max_chars=MAX_TEXT)
    except YamlRefused as error:
        raise DefinitionError([f"{name}:{error.problem_mark.line + 1}: {error.problem}"], code=error.code) from error
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{name}:{mark.line + 1}" if mark is not None else name
        problem = getattr(error, "problem", None) or str(error)
        raise DefinitionError([f"{where}: not YAML: {problem}"], code="bad-yaml") from error
    definition_read(data, source=name, text=text)
    return data


def competition_save(*, data: dict, actor: User, competition: Competition | None, dry_run: bool,
                     text: str | None = None, name: str = "definition.yaml") -> tuple[Competition, list[Change] | None]:
    """Create (`competition` None) or update `competition` from definition data, as
    `load_competition` does; with `dry_run`, only what it would change (None: it would be
    created). The data must name the page's competition: an edit of one competition never
    writes another, and a new one never takes an existing slug. With `text` (what `data` was
    read from), each refusal names its line."""
    try:
        if competition is not None and data.get("slug") != competition.slug:
            raise DefinitionError([f"slug: this page edits {competition.slug!r}, not {data.get('slug')!r}; "
                                   "a new slug is a new competition"], code="other-competition")
        return competition_load_changes(data=data, actor=actor, dry_run=dry_run, create_only=competition is None)
    except DefinitionError as error:
        if text is None:
            raise
        raise _at_lines(error, text=text, name=name) from error


def problem_paths(error: CompetitionError) -> list[tuple[str, str]]:
    """Each problem as (key path, message): "" for the path of one that names none."""
    found = []
    for problem in error.problems:
        match = _PATH.match(str(problem))
        found.append((match["path"], match["message"]) if match else ("", str(problem)))
    return found


def _at_lines(error: DefinitionError, *, text: str, name: str) -> DefinitionError:
    """The loader's refusals (an unknown organizer, a version not raised, a public date moved
    back) with the file's line of their key, as the schema's own problems have."""
    if any(str(p).startswith(f"{name}:") for p in error.problems):
        return error  # already located by definition_text_read
    return DefinitionError(located(problem_paths(error), source=name, text=text), code=error.code,
                           message=error.message)
