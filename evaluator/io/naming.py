"""Which subset (language, pair, test set) a file belongs to, from its name.

Published files carry the language between separators: `run.miracl.bm25.sw.dev.txt`,
`qrels.miracl-v1.0-sw-dev.tsv`, `topics.mrtydi-v1.1-ar.test.txt.gz`; a user may also
say it outright on the command line as `sw=PATH`.
"""
from __future__ import annotations

import os
import re
from collections.abc import Collection

_ASSIGNMENT = re.compile(r"([A-Za-z0-9][A-Za-z0-9_-]{0,39})=(.+)", re.S)


def subset_from_filename(filename: str, known: Collection[str]) -> str | None:
    """The one known code that appears in the file's base name between non-alphanumeric
    characters; None when none or several do. A code inside a longer matched code
    (`en` in `en-zh`) does not count separately."""
    base = os.path.basename(filename).lower()
    spans: list[tuple[int, int, str]] = []
    for code in known:
        pattern = rf"(?<![a-z0-9]){re.escape(code.lower())}(?![a-z0-9])"
        spans += [(m.start(), m.end(), code) for m in re.finditer(pattern, base)]
    outer = {code for start, end, code in spans
             if not any(s <= start and end <= e and (e - s) > (end - start) for s, e, _ in spans)}
    return outer.pop() if len(outer) == 1 else None


def split_assignment(arg: str) -> tuple[str | None, str]:
    """'sw=path' -> ('sw', 'path'); 'path' -> (None, 'path'). A left side with a path
    separator is part of a path, not a code."""
    match = _ASSIGNMENT.fullmatch(arg)
    if match and os.sep not in match.group(1) and "/" not in match.group(1):
        return match.group(1), match.group(2)
    return None, arg


def expand_inputs(args: Collection[str], known: Collection[str], *,
                  kind: str | None = None) -> list[tuple[str | None, str]]:
    """(subset code or None, file path) for command-line inputs: `LANG=PATH` or a PATH whose
    name says its subset; a directory stands for the files directly inside it (sorted,
    hidden files skipped; with `kind`, e.g. "topics", only the files whose names contain it,
    when any do). The code is None when it cannot be told."""
    out: list[tuple[str | None, str]] = []
    for arg in args:
        code, path = split_assignment(arg)
        if os.path.isdir(path):
            files = sorted(e.path for e in os.scandir(path) if e.is_file() and not e.name.startswith("."))
            named = [f for f in files if kind and kind.lower() in os.path.basename(f).lower()]
            files = named or files
        else:
            files = [path]
        out += [(code or subset_from_filename(f, known), f) for f in files]
    return out
