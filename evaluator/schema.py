"""A YAML schema declared once, as frozen dataclasses, and read, written and described from it.

Each key of a file is a dataclass field made with `key()`: its type annotation is what the
file must hold (text, whole number, instant, a list of another schema, ...), its default is
what an absent key means, and `help`, `choices` and `minimum` say the rest. From that one
declaration:

- `read` checks a loaded document and builds the dataclasses, collecting every problem with
  its key path (`phases[1].closes_at: must be after opens_at`) so a file is fixed in one go;
  an unknown key is named with the closest known one;
- `dump` writes the dataclasses back as the keys the file gave (plus any that differ from
  their default), so a definition round-trips;
- `rows` lists every key, its type, default and help for the generated reference.

A schema class may define `check(self, fail)` for rules across its keys; it runs after its
keys were read, and a key that failed holds None there, so a check skips what is None.

Nothing here knows Django or the competition, so both readers of a competition definition use
it: the command line's `--definition FILE` (evaluator/definition.py declares the keys that
decide scoring) and the platform's loader (cupboard/competitions/definition.py extends those
declarations with the rest of the file), and one file reads the same way on both sides.
"""
from __future__ import annotations

import dataclasses
import difflib
import types
import typing
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

REQUIRED = dataclasses.MISSING
Fail = Callable[[str, str], None]


def key(default: Any = REQUIRED, *, help: str, choices: tuple[Any, ...] | Callable[[], tuple[Any, ...]] = (), minimum: int | None = None,
        shown_default: str = "", scalar: bool = False) -> Any:
    """One key of a schema. `choices` may be a function, so a list owned elsewhere is read
    when needed; `shown_default` words a default the reference cannot print (e.g. "the
    benchmark's"); `scalar` marks the key a plain value stands for (`- zero-shot` for
    `- {value: zero-shot}`)."""
    metadata = {"help": help, "choices": choices, "minimum": minimum, "shown_default": shown_default,
                "scalar": scalar}
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True, slots=True)
class Key:
    """A schema key as `read`, `dump` and `rows` use it."""

    name: str
    type: Any
    default: Any
    help: str
    choices: tuple[Any, ...]
    minimum: int | None
    shown_default: str
    scalar: bool

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


def keys(cls: Any) -> list[Key]:
    """The keys of a schema class, in declaration order (the order a file and the reference use),
    or in the order of its `KEY_ORDER` when it has one: a schema extending another's keys
    places the inherited ones where its file has them."""
    hints = typing.get_type_hints(cls)
    found = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        meta = f.metadata
        choices = meta.get("choices", ())
        found.append(Key(f.name, hints[f.name], f.default, meta.get("help", ""),
                         tuple(choices() if callable(choices) else choices), meta.get("minimum"),
                         meta.get("shown_default", ""), meta.get("scalar", False)))
    order = getattr(cls, "KEY_ORDER", None)
    return sorted(found, key=lambda k: order.index(k.name)) if order else found


def given(obj: Any) -> frozenset[str]:
    """The keys a file gave for `obj` (read keeps them so `dump` writes them back)."""
    return getattr(obj, "_given", frozenset())


# --- reading -----------------------------------------------------------------------------------
def read(cls: Any, value: Any, path: str, fail: Fail) -> Any:
    """An instance of schema `cls` from loaded YAML data; problems go to `fail(path, message)`.
    Returns None when `value` is not even a mapping; otherwise an instance whose faulty
    keys hold None (the caller raises once it has collected every problem)."""
    known = keys(cls)
    scalar = next((k for k in known if k.scalar), None)
    if scalar is not None and not isinstance(value, dict):
        value = {scalar.name: value}
        at = {scalar.name: path}  # a plain value's problem is the item's, not a key the file never wrote
    else:
        at = {}
    if not isinstance(value, dict):
        fail(path, "must be a mapping")
        return None
    names = [k.name for k in known]
    for name in value:
        if name not in names:
            fail(_join(path, str(name)), _unknown(str(name), names))
    values = {}
    for k in known:
        where = at.get(k.name) or _join(path, k.name)
        raw = value.get(k.name)
        if raw is None:
            if k.required:
                fail(where, "is required")
            values[k.name] = None if k.required else k.default
            continue
        values[k.name] = _value(k, raw, where, fail)
    obj = cls(**values)
    object.__setattr__(obj, "_given", frozenset(name for name in names if value.get(name) is not None))
    if hasattr(obj, "check"):
        obj.check(lambda where, message: fail(_join(path, where), message))
    return obj


def _unknown(name: str, names: list[str]) -> str:
    """A mistyped key is named with the closest known one, not reported as a missing one."""
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    return "unknown key" + (f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(names)})")


def _join(path: str, name: str) -> str:
    if not name:
        return path
    if not path:
        return name
    return f"{path}{name}" if name.startswith("[") else f"{path}.{name}"


def _value(k: Key, raw: Any, where: str, fail: Fail) -> Any:
    value = _typed(_inner(k.type), raw, where, fail)
    if value is None:
        return None
    if k.choices and value not in k.choices:
        fail(where, f"must be one of {', '.join(map(str, k.choices))}, not {value!r}")
        return None
    if k.minimum is not None and value < k.minimum:
        fail(where, f"must be at least {k.minimum}")
        return None
    return value


def _typed(kind: Any, raw: Any, where: str, fail: Fail) -> Any:
    if typing.get_origin(kind) is list:
        if not isinstance(raw, list):
            fail(where, f"must be a list, not {raw!r}")
            return None
        item = typing.get_args(kind)[0]
        found = [_typed(item, value, f"{where}[{index}]", fail) for index, value in enumerate(raw)]
        return found  # an item that is no mapping stays None: later items keep their index
    if dataclasses.is_dataclass(kind):
        return read(kind, raw, where, fail)
    if kind is datetime:
        return _instant(raw, where, fail)
    if kind is float and isinstance(raw, int) and not isinstance(raw, bool):
        return float(raw)
    if not isinstance(raw, kind) or (kind is int and isinstance(raw, bool)):
        hint = " (quote yes, no, on, off and numbers meant as text)" if kind is str and isinstance(raw, int | float) else ""
        fail(where, f"must be {TYPE_WORDS[kind]}, not {raw!r}{hint}")
        return None
    return raw


def _instant(value: Any, where: str, fail: Fail) -> datetime | None:
    """An aware datetime: a competition's deadline must not depend on the server's zone."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            fail(where, f"is not an ISO 8601 instant: {value!r}")
            return None
    if not isinstance(value, datetime):
        fail(where, f"must be an instant like 2023-01-19T23:59:59Z, not {value!r}")
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        fail(where, "must carry a UTC offset, e.g. 2023-01-19T23:59:59Z")
        return None
    return value


def _inner(kind: Any) -> Any:
    """`X | None` -> X: an optional key is one whose absence has a meaning (its default)."""
    if isinstance(kind, types.UnionType) or typing.get_origin(kind) is typing.Union:
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        return args[0]
    return kind


TYPE_WORDS = {str: "text", int: "a whole number", float: "a number", bool: "true or false",
              datetime: "an instant"}


# --- writing -----------------------------------------------------------------------------------
def dump(obj: Any) -> Any:
    """`obj` as YAML data: the keys its file gave, and any that differ from their default."""
    if isinstance(obj, list):
        return [dump(item) for item in obj]
    if not dataclasses.is_dataclass(obj):
        return obj
    known = keys(type(obj))
    written = {k.name: dump(getattr(obj, k.name)) for k in known
               if k.name in given(obj) or (not k.required and getattr(obj, k.name) != k.default)}
    scalar = next((k.name for k in known if k.scalar), None)
    if scalar is not None and list(written) == [scalar]:
        return written[scalar]
    return written


def with_instants(obj: Any, move: Callable[[datetime], datetime]) -> Any:
    """`obj` with every instant in it moved by `move`, keeping what its file gave (the demo
    dates a file's whole schedule from now, whichever keys hold instants)."""
    if isinstance(obj, list):
        return [with_instants(item, move) for item in obj]
    if isinstance(obj, datetime):
        return move(obj)
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return obj
    moved = dataclasses.replace(obj, **{k.name: with_instants(getattr(obj, k.name), move) for k in keys(type(obj))})
    object.__setattr__(moved, "_given", given(obj))
    return moved


# --- describing --------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class Row:
    path: str
    type: str
    default: str
    help: str


def sections(cls: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, schema class) of `cls` and every schema nested in it, depth first."""
    yield path, cls
    for k in keys(cls):
        kind = _inner(k.type)
        item = typing.get_args(kind)[0] if typing.get_origin(kind) is list else kind
        if dataclasses.is_dataclass(item):
            yield from sections(item, _join(path, k.name) + ("[]" if item is not kind else ""))


def rows(cls: Any) -> list[Row]:
    """One row per key of `cls`, for the reference page."""
    return [Row(k.name, type_words(k), _default_words(k), k.help) for k in keys(cls)]


def type_words(k: Key) -> str:
    kind = _inner(k.type)
    if typing.get_origin(kind) is list:
        item = typing.get_args(kind)[0]
        words = "list of " + ("mappings" if dataclasses.is_dataclass(item) else _words(item))
    else:
        words = _words(kind)
    if k.choices:
        words = "one of " + ", ".join(f"`{c}`" for c in k.choices)
    if k.minimum is not None:
        words += f", at least {k.minimum}"
    return words


def _words(kind: Any) -> str:
    if dataclasses.is_dataclass(kind):
        return "mapping"
    return {str: "text", int: "whole number", float: "number", bool: "true/false",
            datetime: "instant with a UTC offset"}[kind]


def _default_words(k: Key) -> str:
    if k.required:
        return "required"
    if k.shown_default:
        return k.shown_default
    if k.default is None:
        return "none"
    if isinstance(k.default, bool):
        return "`true`" if k.default else "`false`"
    if isinstance(k.default, str) and not k.default:
        return "empty"
    return f"`{k.default}`"


# --- rules across items ------------------------------------------------------------------------
def unique(items: Any, path: str, name: str, message: str, fail: Fail) -> None:
    """Each item's `name` key once in a list (`message` formats the repeated value)."""
    seen = set()
    for index, item in enumerate(items or ()):
        value = getattr(item, name, None)
        if value is None:
            continue
        if value in seen:
            fail(f"{path}[{index}].{name}", message.format(value))
        seen.add(value)
