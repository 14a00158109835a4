"""Finding a subset's file among the files a benchmark publishes, by their published names
(`topics.miracl-v1.0-sw-dev.tsv`, `qrels.mrtydi-v1.1-sw.test.txt`, ...), so organizers point
the import commands at a release folder instead of naming each language. Topics files may
also carry a topic variant in their name (`topics.ciral-ha-test.native.tsv`: topic_variants.py)."""
from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from cupboard.competitions.errors import CompetitionError


def files_by_subset(args: list[str], *, prefix: str, codes: Collection[str]) -> tuple[dict[str, Path], list[str]]:
    """{subset code: path} from folders, files or `CODE=PATH` arguments, and the names skipped.

    In a folder only files starting with `prefix` ("topics." or "qrels.") count; a file whose
    name names no subset of the competition (e.g. a language it does not run) is skipped and
    reported, never guessed. Two files for one subset is an error (`duplicate-subset`)."""
    found, skipped = files_by_variant(args, prefix=prefix, codes=codes)
    return {code: path for (code, _), path in found.items()}, skipped


def files_by_variant(args: list[str], *, prefix: str, codes: Collection[str], variants: Collection[str] = (),
                     variant: str = "", default: str = "") -> tuple[dict[tuple[str, str], Path], list[str]]:
    """{(subset code, variant code): path}, as `files_by_subset`, for a competition with topic
    `variants`: a file is for `variant` when given (`--variant`), else for the one variant its
    name carries, else for `default`. A name carrying another variant than the one given is an
    error, as are two files for one subset and variant."""
    from evaluator.io.naming import split_assignment, subset_from_filename

    found: dict[tuple[str, str], Path] = {}
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
            key = (subset, _variant(candidate.name, variants, given=variant) or default)
            if key in found:
                which = f"{subset} ({key[1]})" if key[1] else subset
                raise CompetitionError("duplicate-subset",
                                       f"{found[key].name} and {candidate.name} are both files for {which}")
            found[key] = candidate
    return found, skipped


def _variant(name: str, variants: Collection[str], *, given: str) -> str:
    from cupboard.competitions.topic_variants import variant_from_filename

    named = variant_from_filename(name, variants)
    if named and given and named != given:
        raise CompetitionError("variant-mismatch", f"{name}: its name says topic variant {named!r}, "
                                                   f"not {given!r} as given")
    return named or given
