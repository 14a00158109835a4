"""What the topics and qrels uploads share: the bytes of a file however it is given, the
subset a file is for, and how a list of query ids is named in a message."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO

from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase, Subset

IDS_SHOWN = 5  # query ids a message names before "and N more"

FileSource = str | Path | bytes | IO[bytes]


def read_source(file: FileSource) -> bytes:
    """The bytes of a path, an uploaded file or raw bytes, unchanged (the SHA-256 is of these)."""
    if isinstance(file, bytes):
        return file
    if isinstance(file, (str, Path)):
        return Path(file).read_bytes()
    if hasattr(file, "seek"):
        file.seek(0)
    return file.read()


def subset_of(phase: Phase, subset: Subset | str) -> Subset:
    if isinstance(subset, Subset):
        if subset.competition_id != phase.competition_id:
            raise CompetitionError("unknown-subset", f"{subset.code} is not a subset of {phase.competition.slug}")
        return subset
    try:
        return phase.competition.subsets.get(code=subset)
    except Subset.DoesNotExist:
        raise CompetitionError("unknown-subset", f"{phase.competition.slug} has no subset {subset!r}") from None


def ids_listed(qids: Sequence[str]) -> str:
    """The first few of `qids`, then how many more: a message stays readable for a whole file."""
    more = len(qids) - IDS_SHOWN
    return ", ".join(qids[:IDS_SHOWN]) + (f" and {more} more" if more > 0 else "")
