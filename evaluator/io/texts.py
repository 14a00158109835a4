"""Docids as numpy arrays (bounds and bytes), for the compiled reader's path.

Where the C extension reads the files, scoring a plainly valid run needs only a few things
of its docids: blocks joined, rows taken, and the docids of rows matched to judgments by
(query, docid hash) compared byte for byte. numpy does those; importing pyarrow for them
would be serial time in the parent process before its workers fork, a large share of a
test-B submission's (docs/benchmarks.md). `arrow()` gives the same column as an Arrow string array
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
    """A null-free string column: value i is `data[starts[i]:ends[i]]` (UTF-8). Taking rows
    takes only their bounds, never the bytes (a run reordered by score ties is 1.7 M rows)."""

    __slots__ = ("starts", "ends", "data")

    def __init__(self, starts: np.ndarray, ends: np.ndarray, data: np.ndarray):
        self.starts, self.ends, self.data = starts, ends, data

    @classmethod
    def from_offsets(cls, offsets: np.ndarray, data: np.ndarray) -> Texts:
        """Values back to back: value i is `data[offsets[i]:offsets[i + 1]]`."""
        return cls(offsets[:-1], offsets[1:], data)

    @classmethod
    def from_buffers(cls, offsets: bytes, data: bytes) -> Texts:
        """The C extension's docid_offsets (int32, count + 1) and docid_bytes."""
        return cls.from_offsets(np.frombuffer(offsets, np.int32), np.frombuffer(data, np.uint8))

    @classmethod
    def from_strings(cls, values: Sequence[str]) -> Texts:
        encoded = [v.encode() for v in values]
        offsets = np.zeros(len(encoded) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
        return cls.from_offsets(offsets, np.frombuffer(b"".join(encoded), np.uint8))

    @classmethod
    def from_arrow(cls, array: pa.Array | pa.ChunkedArray) -> Texts:
        """A view of a null-free Arrow string column."""
        if hasattr(array, "combine_chunks"):  # a ChunkedArray
            array = array.combine_chunks()
        _, offsets, data = array.buffers()
        width = np.int64 if str(array.type) == "large_string" else np.int32
        bounds = np.frombuffer(offsets, width, count=len(array) + 1, offset=array.offset * np.dtype(width).itemsize)
        return cls.from_offsets(bounds, np.zeros(0, np.uint8) if data is None else np.frombuffer(data, np.uint8))

    def __len__(self) -> int:
        return len(self.starts)

    def take(self, rows: np.ndarray) -> Texts:
        return Texts(self.starts[rows], self.ends[rows], self.data)

    def compact(self) -> tuple[np.ndarray, np.ndarray]:
        """(offsets, bytes) of the values back to back, int64 offsets from 0."""
        starts = self.starts.astype(np.int64)
        lengths = self.ends.astype(np.int64) - starts
        offsets = np.zeros(len(starts) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if len(starts) and np.array_equal(starts[1:], self.ends[:-1]):  # already back to back
            return offsets, self.data[starts[0]:starts[0] + offsets[-1]]
        return offsets, self.data[np.arange(offsets[-1]) + np.repeat(starts - offsets[:-1], lengths)]

    def to_pylist(self) -> list[str]:
        data = self.data.tobytes()
        return [data[a:b].decode() for a, b in zip(self.starts.tolist(), self.ends.tolist(), strict=True)]

    def arrow(self) -> pa.Array:
        """The same column as an Arrow string array (this imports pyarrow)."""
        import pyarrow as pa

        offsets, data = self.compact()
        kind, width = (pa.string(), np.int32) if offsets[-1] < 2**31 else (pa.large_string(), np.int64)
        return pa.Array.from_buffers(kind, len(self), [None, pa.py_buffer(np.ascontiguousarray(offsets, width)),
                                                       pa.py_buffer(np.ascontiguousarray(data))])


def _positions(texts: Texts, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(starts, lengths, byte positions) of values `rows`, their bytes in turn."""
    starts = texts.starts[rows].astype(np.int64)
    lengths = texts.ends[rows].astype(np.int64) - starts
    before = np.cumsum(lengths) - lengths
    return starts, lengths, np.arange(int(lengths.sum())) + np.repeat(starts - before, lengths)


def same_values(a: Texts, a_rows: np.ndarray, b: Texts, b_rows: np.ndarray) -> np.ndarray:
    """Whether value a[a_rows[i]] equals b[b_rows[i]], for each i: the byte-for-byte check
    of docids whose hashes matched (only those rows, so it stays cheap)."""
    a_len = (a.ends[a_rows].astype(np.int64) - a.starts[a_rows])
    same: np.ndarray = a_len == b.ends[b_rows].astype(np.int64) - b.starts[b_rows]
    pairs = np.flatnonzero(same)
    _, _, a_index = _positions(a, a_rows[pairs])
    _, _, b_index = _positions(b, b_rows[pairs])
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
        shifts = np.cumsum([0, *(c.data.size for c in columns)])
        return Texts(np.concatenate([np.zeros(0, np.int64), *(c.starts + shift for c, shift in zip(columns, shifts, strict=False))]),
                     np.concatenate([np.zeros(0, np.int64), *(c.ends + shift for c, shift in zip(columns, shifts, strict=False))]),
                     np.concatenate([np.zeros(0, np.uint8), *(c.data for c in columns)]))
    import pyarrow as pa

    return pa.chunked_array([arrow(c) for c in columns], pa.string())


def whole(column: Any) -> Any:
    """One array: Texts as they are, an Arrow ChunkedArray combined."""
    return column if isinstance(column, Texts) else column.combine_chunks()


def arrow(column: Any) -> Any:
    """An Arrow array of the column, whichever kind it is."""
    return column.arrow() if isinstance(column, Texts) else column


_MAX_PADDED = 64 << 20  # bytes: beyond that many tied docids, Arrow's sort does it


def padded(texts: Texts, rows: np.ndarray | None = None) -> np.ndarray | None:
    """Values (`rows` of them, or all) as numpy fixed-width bytes, padded with NULs, which
    compare as the values' bytes do (trec_eval's strcmp). None when a value holds a NUL
    (padding would hide it) or the copy would be large; Arrow then does the comparing.
    Each value's row is copied whole from a window over the data (its bytes and what
    follows them, zeroed after), not byte by byte."""
    starts = (texts.starts if rows is None else texts.starts[rows]).astype(np.int64)
    lengths = (texts.ends if rows is None else texts.ends[rows]) - starts
    width = int(lengths.max(initial=1)) or 1
    if starts.size * width > _MAX_PADDED:
        return None
    windows = np.lib.stride_tricks.sliding_window_view(np.concatenate((texts.data, np.zeros(width, np.uint8))), width)
    table = windows[starts]
    table[np.arange(width) >= lengths[:, None]] = 0
    if np.count_nonzero(table) != lengths.sum():
        return None
    values: np.ndarray = table.view(f"S{width}").ravel()
    return values


def sorted_descending(groups: np.ndarray, texts: Texts, rows: np.ndarray | None = None) -> np.ndarray | None:
    """Order of the rows (`rows` of texts, or all) by group ascending, then value descending
    in byte order, as trec_eval orders tied docids; None where `padded` declines."""
    values = padded(texts, rows)
    if values is None:
        return None
    # ascending by (-group, value), read backwards: group ascending, value descending
    return np.lexsort((values, -groups.astype(np.int64)))[::-1].copy()


def all_greater(texts: Texts, rows: np.ndarray, others: np.ndarray) -> bool | None:
    """Whether value rows[i] > value others[i] for every i (byte order); None where
    `padded` declines."""
    both = padded(texts, np.concatenate((rows, others)))
    return None if both is None else bool(np.all(both[:rows.size] > both[rows.size:]))
