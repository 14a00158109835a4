"""A collection's document list: the docids a run may name, so a run naming a document the
collection does not hold is refused at its line (issue 34: such a run scored 0.9657 and took
a leaderboard row before anyone noticed).

The list is kept as the sorted 64-bit hashes of its docids (`validation_fast.docid_hashes`,
the hashes the run readers compute anyway for their duplicate check), 8 bytes a document:
MS MARCO's 8.8 M passages are 70 MB, and checking a run is one sort of its block's hashes and
one `searchsorted` over the list, which stays cache-friendly because the keys are sorted. A
hash names a docid with a false match chance of about n / 2^64 per unknown docid (5e-13
for MS MARCO), so an unknown document is refused for certain only up to that chance.

It is read from an id file (one docid per line; the first whitespace-separated field, so a
TSV corpus `docid<TAB>title<TAB>text` reads as one, its `docid` header skipped; `#` lines
and blank lines skipped), a JSON-lines corpus (`{"docid": ...}` per line, as
`io/corpus.py`), or the `.npy` file `save` writes, which loads in milliseconds (mapped).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, BinaryIO, cast

import numpy as np

from ..records import InputError, Problem
from .sources import GZIP_MAGIC, Source, iter_blocks, source_name
from .texts import Texts
from .validation import ProblemLog
from .validation_fast import docid_hashes

NPY_MAGIC = b"\x93NUMPY"
_SEPARATORS = (9, 10, 13, 32)  # tab, LF, CR, space: the end of a line's first field


class DocumentList:
    """The sorted, distinct docid hashes of a collection (see the module docstring)."""

    __slots__ = ("hashes", "name")

    def __init__(self, hashes: np.ndarray, name: str = "documents"):
        self.hashes, self.name = hashes, name

    @classmethod
    def from_ids(cls, ids: list[str], name: str = "documents") -> DocumentList:
        return cls(_distinct(docid_hashes(Texts.from_strings(ids))), name)

    def __len__(self) -> int:
        return len(self.hashes)

    def known(self, hashes: np.ndarray) -> np.ndarray:
        """For each docid hash, whether the list holds it."""
        if not len(self.hashes):
            return np.zeros(len(hashes), dtype=bool)
        order = np.argsort(hashes)
        at = np.searchsorted(self.hashes, hashes[order])  # sorted keys: each search starts where the last ended
        found = np.zeros(len(hashes), dtype=bool)
        found[order] = self.hashes[np.minimum(at, len(self.hashes) - 1)] == hashes[order]
        return found

    def save(self, target: str | Path | BinaryIO) -> None:
        """The list as a `.npy` file (a path or an open binary file) `read_documents` maps back in milliseconds."""
        if isinstance(target, (str, Path)):
            with open(target, "wb") as handle:
                np.save(handle, self.hashes, allow_pickle=False)
        else:
            np.save(target, self.hashes, allow_pickle=False)


def read_documents(source: Source, *, name: str | None = None) -> DocumentList:
    """A document list from an id file, a corpus or a saved `.npy` (see the module docstring).
    Raises InputError naming the file (and line) when it holds no docid or a JSON line is bad."""
    file = source_name(source, name)
    head = _head(source)
    if head.startswith(NPY_MAGIC):
        hashes = np.load(source, mmap_mode="r", allow_pickle=False) if isinstance(source, (str, Path)) else \
            np.load(source, allow_pickle=False)
        if hashes.dtype != np.uint64 or hashes.ndim != 1:
            raise InputError([Problem("bad-documents", "a .npy document list holds one column of uint64 hashes",
                                      file)])
        return DocumentList(hashes, file)
    parts, line = [], 1
    for block in iter_blocks(source, file=file):
        if line == 1 and block.lstrip()[:1] == b"{":
            return _from_json_lines(source, file)
        parts.append(_block_hashes(block, line == 1))
        line += block.count(b"\n")
    hashes = _distinct(np.concatenate(parts)) if parts else np.zeros(0, np.uint64)
    if not len(hashes):
        raise InputError([Problem("empty", "the document list holds no docid", file)])
    return DocumentList(hashes, file)


def _distinct(hashes: np.ndarray) -> np.ndarray:
    """Sorted and distinct, in place (np.unique's hash table is much slower than a sort on millions of ids)."""
    hashes.sort()
    return hashes[np.concatenate(([True], hashes[1:] != hashes[:-1]))] if hashes.size else hashes


def _head(source: Source) -> bytes:
    if not hasattr(source, "read"):
        try:
            with open(source, "rb") as handle:  # a path
                return handle.read(len(NPY_MAGIC))
        except OSError:
            return b""  # reading it says why
    source = cast(BinaryIO, source)
    position = source.tell()
    head = source.read(len(NPY_MAGIC))
    source.seek(position)
    return bytes(head) if head[:2] != GZIP_MAGIC else b""


def _block_hashes(block: bytes, first: bool) -> np.ndarray:
    """The hashes of the first field of every line of one block (all in numpy)."""
    data = np.frombuffer(block, np.uint8)
    ends_of_lines = np.flatnonzero(data == 10)
    starts = np.concatenate(([0], ends_of_lines + 1)).astype(np.int64)
    seps = np.flatnonzero(np.isin(data, _SEPARATORS))
    ends = np.append(seps, data.size)[np.searchsorted(seps, starts)]
    keep = (ends > starts) & (starts < data.size)
    keep[keep] &= data[starts[keep]] != ord("#")
    starts, ends = starts[keep], ends[keep]
    if first and starts.size and block[starts[0]:ends[0]] == b"docid":
        starts, ends = starts[1:], ends[1:]  # a TSV corpus's header
    return docid_hashes(Texts(starts, ends, data))


def _from_json_lines(source: Source, file: str) -> DocumentList:
    ids, number = [], 0
    for block in iter_blocks(source, file=file):
        for raw in block.split(b"\n"):
            number += 1
            if not raw.strip():
                continue
            try:
                docid = json.loads(raw).get("docid")
            except (ValueError, AttributeError):
                docid = None
            if not isinstance(docid, str) or not docid:
                raise InputError([Problem("bad-json", "expected a JSON object with a \"docid\" string", file, number)])
            ids.append(docid)
        number -= 1  # the split's last piece is the next block's first line
    return DocumentList.from_ids(ids, file)


class DocumentCheck:
    """A run's docids checked against a document list block by block as the reader parses
    them: each unknown docid an error at its line (`refuse`), or one warning counting them
    (`warn`, a phase that only wants to know)."""

    __slots__ = ("documents", "refuse", "unknown", "first")

    def __init__(self, documents: DocumentList, *, refuse: bool = True):
        self.documents, self.refuse = documents, refuse
        self.unknown, self.first = 0, 0  # how many, and the line of the first

    def rows(self, hashes: np.ndarray, lines: np.ndarray, docids: Any, log: ProblemLog) -> None:
        """Check one block's rows (their docid hashes, line numbers and docids)."""
        unknown = np.flatnonzero(~self.documents.known(hashes))
        if not unknown.size:
            return
        self.first = self.first or int(lines[unknown[0]])
        self.unknown += int(unknown.size)
        if self.refuse:
            from .texts import arrow, take_rows

            shown = unknown[: max(0, log.max_problems - len(log.errors))]
            for row, docid in zip(shown.tolist(), arrow(take_rows(docids, shown)).to_pylist(), strict=True):
                log.error("unknown-docid", f"docid {docid!r} is not in the collection's document list "
                                           f"({self.documents.name})", int(lines[row]), 3)

    def finish(self, log: ProblemLog) -> None:
        if self.unknown and not self.refuse:
            log.warn("unknown-docid", f"{self.unknown} lines name a docid that is not in the collection's document "
                                      f"list ({self.documents.name}), the first on line {self.first}; they can "
                                      "never be relevant", self.first, 3)


_LOADED: dict[str, DocumentList] = {}


def document_list(path: str) -> DocumentList:
    """The list at `path`, read once per process (forked workers inherit it: read it in the
    parent first, as the command line does)."""
    if path not in _LOADED:
        _LOADED[path] = read_documents(path)
    return _LOADED[path]
