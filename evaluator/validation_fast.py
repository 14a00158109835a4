"""Reading one block of run lines: a vectorised fast path and the exact per-line path.

Both return the same `Rows` for the valid lines of a block. The fast path (pyarrow's CSV
parser plus numpy checks over the raw bytes) handles the common case: single spaces
between columns, ASCII, "\\n" line ends, every line valid. It returns None at the first
sign of anything else (a tab, a CR, a non-ASCII byte, an empty line, a bad value, an
unknown qid...), and the caller hands the block to `rows_exact`, which walks it line by
line with `LineRules` and reports each problem with its line and column. Per-line Python
is ~10x slower, so it only ever runs on blocks that need it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .validation import MAX_FIELD_BYTES, MAX_LINE_BYTES, TAG_RE, LineRules, ProblemLog


@dataclass(frozen=True, slots=True)
class Rows:
    """The valid lines of one block as columns; qids are codes into the reader's qid table."""

    qcodes: np.ndarray  # int32
    docids: pa.Array  # string
    ranks: np.ndarray  # int64
    scores: np.ndarray  # float64
    lines: np.ndarray  # int64, 1-based line numbers in the file


_NAMES = ["qid", "q0", "docid", "rank", "score", "tag"]
_DICT = pa.dictionary(pa.int32(), pa.string())
_READ = pcsv.ReadOptions(column_names=_NAMES, block_size=1 << 22)
_PARSE = pcsv.ParseOptions(delimiter=" ", quote_char=False, escape_char=False, ignore_empty_lines=False)
_CONVERT = pcsv.ConvertOptions(
    column_types={"qid": _DICT, "q0": _DICT, "docid": pa.string(), "rank": pa.int64(),
                  "score": pa.float64(), "tag": _DICT},
    null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False)


def _line_count(arr: np.ndarray) -> tuple[int, np.ndarray]:
    ends = np.flatnonzero(arr == 10)
    if arr[-1] != 10:
        ends = np.append(ends, arr.size)
    return ends.size, ends


def rows_fast(block: bytes, first_line: int, rules: LineRules, codes: dict[str, int],
              docid_regex: str | None) -> Rows | None:
    """The block's rows when every line in it is plainly valid; None when any line needs a closer look."""
    arr = np.frombuffer(block, np.uint8)
    if arr.size == 0 or arr.max() >= 0x80:
        return None
    count, ends = _line_count(arr)
    lengths = np.diff(ends, prepend=-1) - 1
    if lengths.min() < 1 or lengths.max() > MAX_LINE_BYTES or np.count_nonzero(arr < 0x20) != ends.size - (arr[-1] != 10):
        return None  # empty lines, long lines, tabs, CRs, NULs and other control bytes
    if b"0x" in block or b"0X" in block:
        return None  # pyarrow reads "0x1f" as an integer; a TREC rank is decimal
    try:
        table = pcsv.read_csv(pa.py_buffer(block), _READ, _PARSE, _CONVERT)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    if table.num_rows != count:
        return None
    qid = table.column("qid").combine_chunks()
    q0 = table.column("q0").combine_chunks()
    tag = table.column("tag").combine_chunks()
    docids = table.column("docid").combine_chunks()
    scores = table.column("score").combine_chunks()
    qid_values = qid.dictionary.to_pylist()
    tags = tag.dictionary.to_pylist()
    if (len(tags) != 1 or not TAG_RE.fullmatch(tags[0].encode()) or (rules.tag not in (None, tags[0]))
            or max(len(v.encode()) for v in qid_values) > MAX_FIELD_BYTES
            or pc.max(pc.binary_length(q0.dictionary)).as_py() > MAX_FIELD_BYTES
            or pc.max(pc.binary_length(docids)).as_py() > MAX_FIELD_BYTES
            or not pc.all(pc.is_finite(scores)).as_py()):
        return None
    if rules.topics is not None and not rules.topics.issuperset(qid_values):
        return None
    if docid_regex is not None and not pc.all(pc.match_substring_regex(docids, docid_regex)).as_py():
        return None
    rules.tag = tags[0]
    mapping = np.array([codes.setdefault(v, len(codes)) for v in qid_values], dtype=np.int32)
    return Rows(
        qcodes=mapping[qid.indices.to_numpy()],
        docids=docids,
        ranks=table.column("rank").to_numpy(),
        scores=scores.to_numpy(),
        lines=np.arange(first_line, first_line + count, dtype=np.int64),
    )


def rows_exact(block: bytes, first_line: int, rules: LineRules, codes: dict[str, int],
               log: ProblemLog) -> tuple[Rows, int | None]:
    """The block's valid rows, logging every problem; also the first line that ends in CRLF."""
    lines = block.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    qcodes, docids, ranks, scores, numbers = [], [], [], [], []
    crlf = None
    for number, raw in enumerate(lines, start=first_line):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
            crlf = crlf or number
        row = rules.check(raw, number, log)
        if row is not None:
            qcodes.append(codes.setdefault(row[0], len(codes)))
            docids.append(row[1])
            ranks.append(row[2])
            scores.append(row[3])
            numbers.append(number)
        if log.full:
            break
    rows = Rows(np.array(qcodes, dtype=np.int32), pa.array(docids, pa.string()),
                np.array(ranks, dtype=np.int64), np.array(scores, dtype=np.float64),
                np.array(numbers, dtype=np.int64))
    return rows, crlf
