"""Finding a subset's file among the files a benchmark publishes, by their published names
(`topics.miracl-v1.0-sw-dev.tsv`, `qrels.mrtydi-v1.1-sw.test.txt`, ...), so organizers point
the import commands at a release folder instead of naming each language."""
from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from cupboard.competitions.errors import CompetitionError


def files_by_subset(args: list[str], *, prefix: str, codes: Collection[str]) -> tuple[dict[str, Path], list[str]]:
    """{subset code: path} from folders, files or `CODE=PATH` arguments, and the names skipped.

    In a folder only files starting with `prefix` ("topics." or "qrels.") count; a file whose
    name names no subset of the competition (e.g. a language it does not run) is skipped and
    reported, never guessed. Two files for one subset is an error (`duplicate-subset`)."""
    from evaluator.io.naming import split_assignment, subset_from_filename

    found: dict[str, Path] = {}
    skipped: list[str] = []
    for arg in args:
        code, raw = split_assignment(arg)
        path = Path(raw)
        if code is not None and code not in codes:
            raise CompetitionError("unknown-subset", f"{arg}: {code!r} is not a subset of this competition")
        if not path.exists():
            raise CompetitionError("no-such-file", f"{raw}: no such file or folder")
        candidates = sorted(p for p in path.iterdir() if p.is_file() and p.name.startswith(prefix)) \
            if path.is_dir() else [path]
        for candidate in candidates:
            subset = code or subset_from_filename(candidate.name, codes)
            if subset is None:
                skipped.append(candidate.name)
                continue
            if subset in found:
                raise CompetitionError("duplicate-subset",
                                       f"{found[subset].name} and {candidate.name} are both files for {subset}")
            found[subset] = candidate
    return found, skipped
