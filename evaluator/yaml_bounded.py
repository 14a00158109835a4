"""A competition definition's YAML read with bounds, by libyaml (the C loader) where installed.

A definition is a few hundred lines nested a few levels deep, but anyone who may edit one can
send any text: `x: [[[...]]]` nested thousands deep made the pure-Python parse quadratic and
every later walk (the schema, the diff, the key lines) recursive until RecursionError, and
`version:` with 5,000 digits made the int constructor raise ValueError, each a 500. Here the
parser's events are checked first, front to back without recursion, and the text is refused at
the line of the first nesting past MAX_DEPTH, the first alias (a file needs none, and a few nested
ones make a walk visit billions of items), the first number longer than MAX_NUMBER_CHARS
(a sexagesimal `1:2:3:...` costs big-integer arithmetic per part), the first value longer than
MAX_SCALAR_CHARS (a 10 MB string would be carried through the schema, the diff and the page
shown back) or, given `max_chars`, whatever starts past that many characters; only then is it
built, and a value the constructor cannot build (a date `2024-13-45`) is refused at its line too.
"""
from __future__ import annotations

from typing import Any

import yaml
from yaml.resolver import Resolver

MAX_DEPTH = 32  # mappings and lists inside each other; a definition needs under ten
MAX_NUMBER_CHARS = 100  # characters of one int or float written out
MAX_SCALAR_CHARS = 100_000  # characters of one value: the longest of the shipped definitions' pages has ~800

LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NUMBERS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
_RESOLVER = Resolver()


class YamlRefused(yaml.MarkedYAMLError):  # type: ignore[misc]
    """A text past a bound, or a value that cannot be built, at its mark; `code` says which."""

    def __init__(self, code: str, problem: str, mark: Any):
        super().__init__(problem=problem, problem_mark=mark)
        self.code = code


class _BoundedLoader(LOADER):  # type: ignore[misc]
    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError) as error:
            raise YamlRefused("bad-yaml", f"{str(node.value)[:40]!r} cannot be read: {error}", node.start_mark) from error


def yaml_bounded_load(text: str, *, max_chars: int | None = None) -> Any:
    """The data of `text`; YamlRefused (a yaml.MarkedYAMLError) at the line of what is refused."""
    yaml_bounds_check(text, max_chars=max_chars)
    return yaml.load(text, Loader=_BoundedLoader)


def yaml_bounds_check(text: str, *, max_chars: int | None = None) -> None:
    """YamlRefused at the first event past a bound; yaml.YAMLError if it is not YAML. The events
    come one at a time from the C parser, so a refusal costs the reading up to it only."""
    depth = 0
    for event in yaml.parse(text, Loader=LOADER):
        if max_chars is not None and event.start_mark.index > max_chars:
            raise YamlRefused("too-long", f"the text goes on past {max_chars:,} characters here; "
                              f"a definition may have {max_chars:,}", _mark_at(text, max_chars))
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlRefused("yaml-too-deep", f"nested more than {MAX_DEPTH} deep", event.start_mark)
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            raise YamlRefused("yaml-alias", f"aliases (*{event.anchor}) are not read here; write the value out",
                              event.start_mark)
        elif isinstance(event, yaml.ScalarEvent) and _too_long_number(event):
            raise YamlRefused("yaml-long-number", f"a number of {len(event.value):,} characters; "
                              f"one may have {MAX_NUMBER_CHARS}", event.start_mark)
        elif isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_SCALAR_CHARS:
            raise YamlRefused("yaml-long-text", f"a value of {len(event.value):,} characters; "
                              f"one may have {MAX_SCALAR_CHARS:,}", event.start_mark)


def _mark_at(text: str, index: int) -> Any:
    """The mark of character `index` (the event after it may start lines later)."""
    line_start = text.rfind("\n", 0, index) + 1
    return yaml.Mark("<text>", index, text.count("\n", 0, index), index - line_start, None, None)


def _too_long_number(event: Any) -> bool:
    return (len(event.value) > MAX_NUMBER_CHARS and event.implicit[0]
            and _RESOLVER.resolve(yaml.ScalarNode, event.value, (True, False)) in _NUMBERS)
