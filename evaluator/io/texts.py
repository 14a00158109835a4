"""Docids as two numpy arrays (offsets and bytes), for the compiled reader's path.

Where the C extension reads the files, scoring a plainly valid run needs only a few things
of its docids: blocks joined, rows taken, and the docids of rows matched to judgments by
(query, docid hash) compared byte for byte. numpy does those; importing pyarrow for them
would cost ~0.08 s CPU in the parent process before its workers fork, serial time that is a
fifth of a test-B submission's. `arrow()` gives the same column as an Arrow string array
(no copy) for the rare steps that still sort by docid (tied scores) or match a regex.

The numpy/pyarrow reader (no extension, or `CUPBOARD_PURE_PYTHON=1`) keeps Arrow arrays;
`take_rows`, `join` and `whole` accept either kind, so the code between reader and scorer
is the same for both.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa


class Texts:
    """A null-free string column: value i is `data[offsets[i]:offsets[i + 1]]` (UTF-8)."""

    __slots__ = ("offsets", "data")

    def __init__(self, offsets: np.ndarray, data: np.ndarray):
        self.offsets, self.data = offsets, data

    @classmethod
    def from_buffers(cls, offsets: bytes, data: bytes) -> Texts:
        """The C extension's docid_offsets (int32, count + 1) and docid_bytes."""
        return cls(np.frombuffer(offsets, np.int32), np.frombuffer(data, np.uint8))

    @classmethod
    def from_strings(cls, values: Sequence[str]) -> Texts:
        encoded = [v.encode() for v in values]
        offsets = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
        return cls(offsets, np.frombuffer(b"".join(encoded), np.uint8))

    @classmethod
    def from_arrow(cls, array: pa.Array | pa.ChunkedArray) -> Texts:
        """A view of a null-free Arrow string column."""
        if hasattr(array, "combine_chunks"):  # a ChunkedArray
            array = array.combine_chunks()
        _, offsets, data = array.buffers()
        width = np.int64 if str(array.type) == "large_string" else np.int32
        bounds = np.frombuffer(offsets, width, count=len(array) + 1, offset=array.offset * np.dtype(width).itemsize)
        return cls(bounds, np.zeros(0, np.uint8) if data is None else np.frombuffer(data, np.uint8))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def take(self, rows: np.ndarray) -> Texts:
        offsets, index = _gather(self.offsets, rows)
        return Texts(offsets, self.data[index])

    def to_pylist(self) -> list[str]:
        data, bounds = self.data.tobytes(), (self.offsets - self.offsets[0]).tolist()
        return [data[a:b].decode() for a, b in zip(bounds[:-1], bounds[1:], strict=True)]

    def arrow(self) -> pa.Array:
        """The same column as an Arrow string array (this imports pyarrow)."""
        import pyarrow as pa

        offsets = self.offsets - self.offsets[0]
        data = self.data[self.offsets[0]:self.offsets[-1]] if len(self) else self.data[:0]
        kind, width = (pa.string(), np.int32) if offsets[-1] < 2**31 else (pa.large_string(), np.int64)
        return pa.Array.from_buffers(kind, len(self), [None, pa.py_buffer(np.ascontiguousarray(offsets, width)),
                                                       pa.py_buffer(np.ascontiguousarray(data))])


def _gather(offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The offsets of values `rows` taken back to back, and the byte positions to take."""
    starts = offsets[rows].astype(np.int64)
    lengths = offsets[rows + 1].astype(np.int64) - starts
    taken = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lengths, out=taken[1:])
    return taken, np.arange(taken[-1]) + np.repeat(starts - taken[:-1], lengths)


def same_values(a: Texts, a_rows: np.ndarray, b: Texts, b_rows: np.ndarray) -> np.ndarray:
    """Whether value a[a_rows[i]] equals b[b_rows[i]], for each i: the byte-for-byte check
    of docids whose hashes matched (only those rows, so it stays cheap)."""
    a_len = np.diff(a.offsets)[a_rows]
    same: np.ndarray = a_len == np.diff(b.offsets)[b_rows]
    pairs = np.flatnonzero(same)
    _, a_index = _gather(a.offsets, a_rows[pairs])
    _, b_index = _gather(b.offsets, b_rows[pairs])
    differ = np.repeat(np.arange(pairs.size), a_len[pairs])[a.data[a_index] != b.data[b_index]]
    same[pairs[differ]] = False
    return same


def take_rows(column: Any, rows: np.ndarray) -> Any:
    """`column.take(rows)` for Texts or an Arrow (chunked) array."""
    if isinstance(column, Texts):
        return column.take(rows)
    from .columns import take

    return take(column, rows)


def join(columns: list[Any]) -> Any:
    """The blocks' columns as one: Texts when every block is Texts, else an Arrow ChunkedArray."""
    if all(isinstance(c, Texts) for c in columns):
        ends = np.cumsum([0, *(int(c.offsets[-1] - c.offsets[0]) for c in columns)])
        offsets = np.concatenate([np.zeros(1, np.int64), *(c.offsets[1:].astype(np.int64) - c.offsets[0] + end
                                                           for c, end in zip(columns, ends, strict=False))])
        return Texts(offsets, np.concatenate([np.zeros(0, np.uint8), *(c.data[c.offsets[0]:c.offsets[-1]]
                                                                          for c in columns)]))
    import pyarrow as pa

    return pa.chunked_array([arrow(c) for c in columns], pa.string())


def whole(column: Any) -> Any:
    """One array: Texts as they are, an Arrow ChunkedArray combined."""
    return column if isinstance(column, Texts) else column.combine_chunks()


def arrow(column: Any) -> Any:
    """An Arrow array of the column, whichever kind it is."""
    return column.arrow() if isinstance(column, Texts) else column


_MAX_PADDED = 64 << 20  # bytes: beyond that many tied docids, Arrow's sort does it


def sorted_descending(groups: np.ndarray, texts: Texts) -> np.ndarray | None:
    """Order of the rows by group ascending, then value descending in byte order (as
    trec_eval's strcmp orders tied docids), with numpy: the values padded with NULs to one
    width compare as their bytes do. None when a value holds a NUL (padding would hide it)
    or the padded copy would be large; Arrow's sort then does it."""
    lengths = np.diff(texts.offsets).astype(np.int64)
    width = int(lengths.max(initial=1)) or 1
    if len(texts) * width > _MAX_PADDED:
        return None
    data = texts.data[texts.offsets[0]:texts.offsets[-1]]
    if np.any(data == 0):
        return None
    padded = np.zeros((len(texts), width), np.uint8)
    row = np.repeat(np.arange(len(texts)), lengths)
    padded[row, np.arange(data.size) - np.repeat(texts.offsets[:-1] - texts.offsets[0], lengths)] = data
    values = padded.view(f"S{width}").ravel()
    # ascending by (-group, value), read backwards: group ascending, value descending
    return np.lexsort((values, -groups.astype(np.int64)))[::-1].copy()
