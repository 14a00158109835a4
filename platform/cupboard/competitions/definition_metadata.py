"""The `run_metadata` section of the competition definition: the questions an organizer asks
of every submission, declared as schema (definition.py holds the rest of the file), and their
stored form, which competitions/run_metadata.py reads."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cupboard.competitions.definition_lines import located
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.run_metadata import NAME as METADATA_NAME
from cupboard.competitions.run_metadata import TYPES as METADATA_TYPES
from evaluator import schema
from evaluator.schema import Fail, key


@dataclass(frozen=True, kw_only=True)
class ChoiceDef:
    """One choice of a choice field: a plain value (`- zero-shot`) or a value with a label.
    Quote values YAML would read otherwise (yes, no, on, off, numbers)."""

    value: str = key(help="what is stored and filtered on, at most 60 characters", scalar=True)
    label: str | None = key(None, help="shown on forms and pages", shown_default="the value")

    def check(self, fail: Fail) -> None:
        if self.value is not None and not (self.value.strip() and len(self.value) <= 60):
            fail("", f"must be text of at most 60 characters, not {self.value!r}")


@dataclass(frozen=True, kw_only=True)
class MetadataFieldDef:
    """A question asked of every submission (run type, training data, model, ...): on the upload
    form, the API (`meta_<name>`) and `evaluator submit --meta NAME=VALUE`; shown on the run's
    page, as a leaderboard column and in exports. Choice and boolean fields filter leaderboards.
    A new version may change the fields; stored answers stay as given (competitions/run_metadata.py)."""

    name: str = key(help="lowercase letters, digits and _, starting with a letter, at most 40")
    type: str = key(choices=METADATA_TYPES, help="choice: one of `choices`; boolean: yes/no; text: one line; "
                                                 "integer: 0 or more; url: an http(s) address")
    label: str | None = key(None, help="shown on forms and pages", shown_default="the name")
    required: bool = key(False, help="every new upload must answer it")
    help: str = key("", help="a sentence under the question on the form")
    choices: list[ChoiceDef] | None = key(None, help="the choices of a choice field (and only of one)")
    leaderboard: bool = key(True, help="a column on the leaderboard and its exports")

    def check(self, fail: Fail) -> None:
        if self.name is not None and not METADATA_NAME.fullmatch(self.name):
            fail("name", f"must be lowercase letters, digits and _ (starting with a letter, at most 40), "
                         f"not {self.name!r}")
        if self.label is not None and not self.label.strip():
            fail("label", f"must be text, not {self.label!r}")
        if self.type != "choice" and self.choices is not None:
            fail("choices", "only a field of type choice has choices")
        elif self.type == "choice" and not self.choices:
            fail("choices", "a choice field needs a non-empty list of choices")
        elif self.choices and None not in self.choices:
            values = [c.value.strip() for c in self.choices if c.value]
            if len(set(values)) != len(values):
                fail("choices", "lists a value twice")


def run_metadata_specs(items: Sequence[MetadataFieldDef | dict]) -> list[dict]:
    """`run_metadata` as stored on Competition.run_metadata (plain data: run_metadata.py reads it).
    Takes the schema's fields or their YAML data (checked: DefinitionError)."""
    problems: list[tuple[str, str]] = []
    fields: list[MetadataFieldDef] = [
        item if isinstance(item, MetadataFieldDef) else
        schema.read(MetadataFieldDef, item, f"run_metadata[{i}]", lambda p, m: problems.append((p, m)))
        for i, item in enumerate(items)]
    if problems:
        raise DefinitionError(located(problems))
    return [{"name": f.name, "label": (f.label or f.name).strip(), "type": f.type, "required": f.required,
             "help": f.help, "choices": [[c.value.strip(), (c.label or c.value).strip() or c.value.strip()]
                                         for c in f.choices or ()],
             "leaderboard": f.leaderboard} for f in fields]
