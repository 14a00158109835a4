"""Where input bytes come from: a path or an open binary file, plain or gzip.

Every reader (runs, qrels, topics) goes through `iter_blocks`, so all of them get the
same gzip detection (by magic bytes, not by file name: uploads are often renamed) and the
same cap on decompressed size, enforced *while* reading so a gzip bomb never gets to
fill memory or disk.
"""
from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Union

from ..records import InputError, Problem

Source = Union[str, "os.PathLike[str]", BinaryIO]

GZIP_MAGIC = b"\x1f\x8b"
# A depth-1000 run for the largest MIRACL language is ~80 MB; 1 GiB leaves room for long
# docids while still stopping a bomb long before it hurts a worker.
DEFAULT_MAX_BYTES = 1 << 30
BLOCK_SIZE = 4 << 20
# Runs compress 4-7x (measured on synthetic depth-100 and 1000 runs, and on a run of
# sequential docids with constant scores); a gzip expanding more than 100x is a bomb, not
# a run. Checked once the output passes RATIO_FLOOR, so tiny files never trip it.
DEFAULT_MAX_RATIO = 100
RATIO_FLOOR = 4 << 20
_READ_SIZE = 1 << 20


def source_name(source: Source, name: str | None = None) -> str:
    """The name problems are reported under: `name`, else the path or the file object's name."""
    if name:
        return name
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return os.path.basename(str(getattr(source, "name", "") or "")) or "<upload>"


def plain_file_head(source: Source) -> tuple[bytes, int] | None:
    """A regular file's first two bytes (gzip's magic or not) and its size; None for anything
    else: a file object, a missing path, or a pipe such as bash's `<(...)`, whose bytes a peek
    would consume (the reader then found it empty)."""
    if not isinstance(source, (str, os.PathLike)):
        return None
    try:
        if not stat.S_ISREG(os.stat(source).st_mode):
            return None
        with open(source, "rb") as handle:
            return handle.read(2), os.fstat(handle.fileno()).st_size
    except OSError:
        return None  # unreadable: reading it will say so


@contextmanager
def _open(source: Source) -> Iterator[BinaryIO]:
    if isinstance(source, (str, os.PathLike)):
        try:
            handle = open(Path(source), "rb")
        except OSError as exc:
            raise InputError([Problem("unreadable", f"cannot open the file: {exc.strerror or exc}",
                                      os.fspath(source))]) from None
        with handle:
            yield handle
        return
    # An uploaded file may have been read already (e.g. for a checksum): start over.
    if getattr(source, "seekable", lambda: False)():
        source.seek(0)
    yield source


def _raw_chunks(handle: BinaryIO) -> Iterator[bytes]:
    while chunk := handle.read(_READ_SIZE):
        yield chunk


def _gunzip(chunks: Iterator[bytes], file: str, max_bytes: int, max_ratio: int) -> Iterator[bytes]:
    """Decompress concatenated gzip members, never producing more than max_bytes + 1 in
    total, nor (past RATIO_FLOOR) more than max_ratio bytes per compressed byte read."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    budget = max_bytes + 1
    started = False
    read = written = 0
    try:
        for chunk in chunks:
            data = chunk
            read += len(chunk)
            while budget > 0:
                limit = min(budget, _READ_SIZE)
                started = started or bool(data)
                out = inflater.decompress(data, limit)
                budget -= len(out)
                written += len(out)
                if written > RATIO_FLOOR and written > max_ratio * (read - len(inflater.unconsumed_tail)):
                    raise InputError([Problem(
                        "gzip-ratio", f"the gzip expands more than {max_ratio}x (runs compress about 5x); "
                        "reading stopped there", file)])
                if out:
                    yield out
                if inflater.eof:  # another gzip member may follow (as `cat a.gz b.gz` makes)
                    data = inflater.unused_data
                    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                    started = False
                    if not data:
                        break
                    continue
                data = inflater.unconsumed_tail
                if not data and len(out) < limit:  # a full output may leave more inside zlib
                    break
            if budget <= 0:
                return
        if started and not inflater.eof:
            raise zlib.error("it ends before the end of its last member")
    except zlib.error as exc:
        raise InputError([Problem("bad-gzip", f"the gzip stream is damaged ({exc})", file)]) from None


def iter_blocks(source: Source, *, file: str, max_bytes: int = DEFAULT_MAX_BYTES,
                block_size: int = BLOCK_SIZE, max_ratio: int = DEFAULT_MAX_RATIO) -> Iterator[bytes]:
    """Yield the decompressed content in blocks that each end just after a newline (the
    last block may lack one). Raises InputError `too-large` as soon as the content passes
    `max_bytes`, and `gzip-ratio` as soon as a gzip expands past `max_ratio`, before
    reading further: memory stays flat whatever the file holds."""
    with _open(source) as handle:
        chunks = _raw_chunks(handle)
        first = next(chunks, b"")
        if first[:2] == GZIP_MAGIC:
            chunks = _gunzip(_prepend(first, chunks), file, max_bytes, max_ratio)
        else:
            chunks = _prepend(first, chunks)
        pending = bytearray()
        total = 0
        for chunk in chunks:
            total += len(chunk)
            if total > max_bytes:
                raise InputError([Problem(
                    "too-large", f"the content is larger than the limit of {max_bytes:,} bytes "
                    "(uncompressed); reading stopped there", file)])
            pending += chunk
            while len(pending) >= block_size:
                # Cut after the last newline within the block; a longer line waits for its end.
                cut = pending.rfind(b"\n", 0, block_size) + 1 or pending.find(b"\n", block_size) + 1
                if not cut:
                    break
                with memoryview(pending) as view:
                    block = bytes(view[:cut])  # one copy, not two
                del pending[:cut]
                yield block
        if pending:
            yield bytes(pending)


def _prepend(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


def split_lines(data: bytes, first: int = 1) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line without "\n" or "\r\n")."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, start=first):
        yield number, line[:-1] if line.endswith(b"\r") else line


def iter_lines(source: Source, *, file: str, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line without its line end) for small files such as topics."""
    number = 1
    for block in iter_blocks(source, file=file, max_bytes=max_bytes):
        yield from split_lines(block, number)
        number += block.count(b"\n") + (not block.endswith(b"\n"))
