"""Reading qrels: `qid Q0 docid label` or `qid 0 docid label`, fields split on whitespace.

Labels are integers (0/1 for MIRACL and Mr. TyDi, 0-6 for CLIRMatrix); judged
non-relevant rows are kept, since they define which queries are judged. A plain file is read
in one go into the columns the engine scores, by the compiled reader where it is built, else
by pyarrow; anything unusual in a file (comments, mixed separators, CRs, bad labels, a
repeated judgment) sends it through the per-line reader, which says where each problem is.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..records import InputError, JudgedColumns, Problem, Qrels
from .sources import Source, iter_blocks, source_name, split_lines
from .validation import BOM, MAX_FIELD_BYTES, ProblemLog, decoded_lines, is_integer

if TYPE_CHECKING:
    import numpy as np

_NAMES = ["qid", "iteration", "docid", "label"]


def read_qrels(source: Source, *, name: str | None = None, strict: bool = True) -> Qrels:
    """Judgments qid -> {docid: label}, read as trec_eval reads them: fields split on runs of
    whitespace, lines starting with `#` skipped (one warning counts them), blank lines
    skipped. Raises InputError listing up to 25 problems with file, line and column (a
    missing or extra column, a label that is not a 64-bit integer, a docid judged twice).
    `strict=False` (the generic profile) also takes what trec_eval takes and warns: any
    label, read as C's atol reads it (`1.5` is 1, `x` is 0), and fields over 100 bytes."""
    file = source_name(source, name)
    data = b"".join(iter_blocks(source, file=file))
    warnings = []
    if data.startswith(BOM):
        data = data[len(BOM):]
        warnings.append(Problem("bom", "the file starts with a UTF-8 byte order mark; it was ignored", file, 1,
                                severity="warning"))
    qrels = _read_compiled(data) or _read_fast(data) or _read_exact(data, file, strict=strict)
    if not strict:
        warnings += _trec_eval_levels(qrels, data, file)
    qrels.warnings = (*warnings, *qrels.warnings)
    return qrels


# trec_eval (form_res_rels.c) counts each query's judgments per level in an array of
# largest label + 1 longs. For a label of 2^63 - 1 (what atol makes of one beyond 64 bits)
# that size overflows and it always stops with "Can't calculate measure"; past 2^27 levels
# (1 GiB) whether it can allocate them depends on the machine.
TREC_EVAL_LEVELS = 2**27


def _line_of_label(data: bytes, label: int) -> tuple[int | None, str]:
    """(line number, text) of the first label atol reads as `label` (rare: only for the largest)."""
    for number, fields in enumerate(map(bytes.split, data.split(b"\n")), start=1):
        if len(fields) == 4 and atol(text := fields[3].decode(errors="replace")) == label:
            return number, text
    return None, str(label)


def _trec_eval_levels(qrels: Qrels, data: bytes, file: str) -> list[Problem]:
    """Where the generic profile, trec_eval's drop-in, cannot do as trec_eval does with the
    largest label: refused as trec_eval refuses it (2^63 - 1 and beyond), or a warning
    that trec_eval may fail where this scores (a label of 2^27 or more)."""
    top = qrels.max_label()
    if top < TREC_EVAL_LEVELS:
        return []
    number, text = _line_of_label(data, top)
    if top == LONG_MAX:
        raise InputError([Problem("label-overflow", f"label {text[:40]!r} is 2^63 - 1 or more: trec_eval cannot score "
                                  "it (\"Can't calculate measure\": it counts judgments per level up to the largest "
                                  "label, and that many levels overflow), so neither does its drop-in", file, number, 4)])
    return [Problem("large-label", f"label {text[:40]!r} on line {number}: trec_eval counts judgments per level up to "
                    f"the largest label ({(top + 1) * 8 / 2**30:,.0f} GiB here) and stops (\"Can't calculate measure\") "
                    "where it cannot allocate them; scored here", file, number, 4, severity="warning")]


def _read_fast(data: bytes) -> Qrels | None:
    """Qrels read by pyarrow in one go, or None when anything needs the per-line reader."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    from .columns import numbers
    from .validation_fast import docid_hashes, text_bytes

    if (not data.strip() or b"\r" in data or b"\x00" in data or (b"\t" in data and b" " in data)
            or data.startswith(b"#") or b"\n#" in data):
        return None
    try:
        table = pcsv.read_csv(pa.py_buffer(data), pcsv.ReadOptions(column_names=_NAMES, use_threads=False),
                              pcsv.ParseOptions(delimiter="\t" if b"\t" in data else " ", quote_char=False),
                              pcsv.ConvertOptions(column_types={name: pa.string() for name in _NAMES}, null_values=[],
                                                  strings_can_be_null=False, quoted_strings_can_be_null=False))
    except pa.ArrowInvalid:
        return None
    columns = [table.column(n).combine_chunks() for n in _NAMES]
    if min(pc.min(pc.binary_length(c)).as_py() for c in columns) < 1:
        return None  # an empty field (two separators in a row, a line of spaces): the exact reader says where
    qid, _, docid, label = columns
    digits = text_bytes(label)
    if not np.all((digits - np.uint8(48) < 10) | (digits == 45)) or max(
            pc.max(pc.binary_length(qid)).as_py(), pc.max(pc.binary_length(docid)).as_py()) > MAX_FIELD_BYTES:
        return None
    try:
        labels = numbers(pc.cast(label, pa.int64()))
    except pa.ArrowInvalid:
        return None  # e.g. beyond 64 bits
    qid = pc.dictionary_encode(qid)
    codes = numbers(qid.indices).astype(np.int64)
    if _maybe_judged_twice(docid_hashes(docid), codes):
        return None  # the exact reader says where
    return Qrels(columns=JudgedColumns(qid.dictionary.to_pylist(), codes, docid, labels))


def _read_compiled(data: bytes) -> Qrels | None:
    """Qrels read by the C extension (`_lines.parse_qrels`), or None when it is not built
    or anything needs the per-line reader."""
    from .compiled import COMPILED

    parsed = None if COMPILED is None else COMPILED.parse_qrels(data)
    if parsed is None:
        return None
    import numpy as np

    from .texts import Texts

    qids, owner, offsets, text, labels, hashes, _ = parsed
    codes, docid_hashes = np.frombuffer(owner, np.int64), np.frombuffer(hashes, np.uint64)
    if _maybe_judged_twice(docid_hashes, codes):
        return None
    return Qrels(columns=JudgedColumns(qids, codes, Texts.from_buffers(offsets, text), np.frombuffer(labels, np.int64),
                                       docid_hashes))


def _maybe_judged_twice(hashes: np.ndarray, codes: np.ndarray) -> bool:
    """Whether two judgments share a (query, docid hash) key: maybe the same docid judged
    twice for a query (or a hash collision), which the exact reader tells apart."""
    import numpy as np

    from .compiled import COMPILED

    with np.errstate(over="ignore"):
        keys = hashes + codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    if COMPILED is not None:
        return bool(COMPILED.any_repeated(keys))
    keys.sort()
    return bool(np.any(keys[1:] == keys[:-1]))


_ATOL = re.compile(r"[+-]?[0-9]*")
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


def atol(text: str) -> int:
    """C's atol as glibc does it (strtol base 10): an optional sign and the ASCII digits
    that follow, nothing else; 0 when there are none, clamped to 64 bits past them."""
    match = _ATOL.match(text)
    digits = match.group() if match else ""
    if not digits.lstrip("+-"):
        return 0
    return max(LONG_MIN, min(LONG_MAX, int(digits)))


def _read_exact(data: bytes, file: str, *, strict: bool = True) -> Qrels:
    log = ProblemLog(file)
    judgments: dict[str, dict[str, int]] = {}
    comments = 0
    for number, text in decoded_lines(split_lines(data), log):
        if text.startswith("#"):
            comments += 1
            continue
        fields = text.split()
        if len(fields) != 4:
            missing = f": the {_NAMES[len(fields)]} column is missing" if len(fields) < 4 else ""
            log.error("columns", f"expected 4 columns (qid Q0 docid label), found {len(fields)}{missing}", number,
                      min(len(fields) + 1, 5))
            continue
        qid, _, docid, label = fields
        integer = is_integer(label.encode()) and label.isascii()
        if max(len(qid.encode()), len(docid.encode())) > MAX_FIELD_BYTES:
            if strict:
                log.error("field-too-long", f"qid or docid is longer than {MAX_FIELD_BYTES} bytes", number)
                continue
            log.warn("long-fields", f"a qid or docid on line {number} is longer than {MAX_FIELD_BYTES} bytes, the "
                     "most a competition allows; read whole, as trec_eval does (--strict refuses it)", number)
        if not integer and strict:
            log.error("bad-label", f"label {label[:40]!r} is not a 64-bit integer", number, 4)
            continue
        if not integer:
            log.warn("atol-labels", f"label {label[:40]!r} on line {number} is not a 64-bit integer; read as "
                     f"{atol(label)}, as trec_eval's atol reads it (--strict refuses it)", number, 4)
        docs = judgments.setdefault(qid, {})
        if docid in docs:
            log.error("duplicate-judgment", f"docid {docid!r} is judged twice for query {qid!r}", number, 3)
        docs[docid] = int(label) if integer else atol(label)
    if not judgments and not log.errors:
        log.error("empty-file", "the qrels file has no judgments")
    if log.errors:
        raise InputError(log.errors)
    if comments:
        log.warn("comment-lines", f"{comments} line(s) starting with # were skipped, as trec_eval does")
    return Qrels(judgments, warnings=tuple(log.warnings))
