"""Moving columns between Arrow and numpy without waking pyarrow's pandas shim.

`Array.to_numpy()` and `pa.array(ndarray)` make pyarrow import pandas on first use, which
takes about as long as validating and scoring a whole test-B submission.
Null-free fixed-width columns are plain buffers, so both directions are zero-copy views
here instead, and the hot path never imports pandas.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

_DTYPES = {pa.int8(): np.int8, pa.int32(): np.int32, pa.int64(): np.int64, pa.uint64(): np.uint64,
           pa.float64(): np.float64}
_TYPES = {np.dtype(v): k for k, v in _DTYPES.items()}


def numbers(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A read-only numpy view of a null-free int/float Arrow column."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if array.null_count:
        raise ValueError("a column with nulls has no plain numpy view")
    dtype = np.dtype(_DTYPES[array.type])
    data = array.buffers()[1]
    if data is None:
        return np.zeros(0, dtype)
    return np.frombuffer(data, dtype, count=len(array), offset=array.offset * dtype.itemsize)


def numbers_or(array: pa.Array, missing: float) -> np.ndarray:
    """The values of an int/float Arrow column as a numpy array, nulls replaced by `missing`
    (`pc.fill_null` would make a scalar, and pyarrow scalars import pandas too)."""
    if not array.null_count:
        return numbers(array)
    dtype = np.dtype(_DTYPES[array.type])
    validity, data = array.buffers()[:2]
    values = np.frombuffer(data, dtype, count=len(array), offset=array.offset * dtype.itemsize).copy()
    bits = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little")
    values[~bits[array.offset:array.offset + len(array)].astype(bool)] = missing
    return values


def column(values: np.ndarray) -> pa.Array:
    """An Arrow view of a 1-d numeric numpy array (it keeps the array alive)."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        values = values.astype(np.int8)
    return pa.Array.from_buffers(_TYPES[values.dtype], values.size, [None, pa.py_buffer(values)])


def take(array: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """`array.take(rows)` for numpy row numbers."""
    return array.take(column(rows.astype(np.int64, copy=False)))


def strings(values: pa.Array | pa.ChunkedArray | np.ndarray | Sequence[str]) -> pa.Array:
    """A string column from Arrow, or from Python strings (e.g. a numpy object array),
    built from the UTF-8 bytes directly (`pa.array` on a list would import pandas)."""
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if isinstance(values, pa.Array):
        return values
    encoded = [str(v).encode() for v in values]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
    if offsets[-1] >= 2**31:
        return pa.array(encoded, pa.string())
    return pa.Array.from_buffers(pa.string(), len(encoded), [None, pa.py_buffer(offsets.astype(np.int32)),
                                                              pa.py_buffer(b"".join(encoded))])
