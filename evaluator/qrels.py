"""Reading qrels: `qid Q0 docid label` or `qid 0 docid label`, tab or space separated.

Labels are integers (0/1 for MIRACL and Mr. TyDi, 0-6 for CLIRMatrix); judged
non-relevant rows are kept, since they define which queries are judged. A test-B-sized
set (18 files, ~190k judgments) is read by pyarrow in one go; anything unusual in a file
(mixed separators, CRs, bad labels, a repeated judgment) sends it through the per-line
reader, which says where each problem is.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .columns import numbers
from .records import InputError, JudgedColumns, Qrels
from .sources import Source, iter_blocks, source_name, split_lines
from .validation import BOM, MAX_FIELD_BYTES, RANK_RE, ProblemLog, decoded_lines
from .validation_fast import docid_hashes, text_bytes

_NAMES = ["qid", "iteration", "docid", "label"]
_CONVERT = pcsv.ConvertOptions(column_types={name: pa.string() for name in _NAMES}, null_values=[],
                               strings_can_be_null=False, quoted_strings_can_be_null=False)
_QUERY_MIX = np.uint64(0x9E3779B97F4A7C15)


def read_qrels(source: Source, *, name: str | None = None) -> Qrels:
    """Judgments qid -> {docid: label}. Raises InputError listing up to 25 problems with
    file and line (wrong column count, non-integer label, the same docid judged twice)."""
    file = source_name(source, name)
    data = b"".join(iter_blocks(source, file=file))
    data = data[len(BOM):] if data.startswith(BOM) else data
    return _read_fast(data) or _read_exact(data, file)


def _read_fast(data: bytes) -> Qrels | None:
    if not data.strip() or b"\r" in data or b"\x00" in data or (b"\t" in data and b" " in data):
        return None
    try:
        table = pcsv.read_csv(pa.py_buffer(data), pcsv.ReadOptions(column_names=_NAMES, use_threads=False),
                              pcsv.ParseOptions(delimiter="\t" if b"\t" in data else " ", quote_char=False),
                              _CONVERT)
    except pa.ArrowInvalid:
        return None
    qid, _, docid, label = (table.column(n).combine_chunks() for n in _NAMES)
    digits = text_bytes(label)
    if not np.all((digits - np.uint8(48) < 10) | (digits == 45)) or max(
            pc.max(pc.binary_length(qid)).as_py(), pc.max(pc.binary_length(docid)).as_py()) > MAX_FIELD_BYTES:
        return None
    try:
        labels = numbers(pc.cast(label, pa.int64()))
    except pa.ArrowInvalid:
        return None
    qid = pc.dictionary_encode(qid)
    codes = numbers(qid.indices).astype(np.int64)
    with np.errstate(over="ignore"):
        keys = np.sort(docid_hashes(docid) + codes.astype(np.uint64) * _QUERY_MIX)
    if np.any(keys[1:] == keys[:-1]):
        return None  # maybe a docid judged twice: the exact reader says where
    return Qrels(columns=JudgedColumns(qid.dictionary.to_pylist(), codes, docid, labels))


def _read_exact(data: bytes, file: str) -> Qrels:
    log = ProblemLog(file)
    judgments: dict[str, dict[str, int]] = {}
    for number, text in decoded_lines(split_lines(data), log):
        fields = text.split()
        if len(fields) != 4:
            log.error("columns", f"expected 4 columns (qid Q0 docid label), found {len(fields)}", number)
            continue
        qid, _, docid, label = fields
        if max(len(qid.encode()), len(docid.encode())) > MAX_FIELD_BYTES:
            log.error("field-too-long", f"qid or docid is longer than {MAX_FIELD_BYTES} bytes", number)
        elif not RANK_RE.fullmatch(label.encode()) or not label.isascii():
            log.error("bad-label", f"label {label!r} is not an integer", number, 4)
        else:
            docs = judgments.setdefault(qid, {})
            if docid in docs:
                log.error("duplicate-judgment", f"docid {docid!r} is judged twice for query {qid!r}", number, 3)
            docs[docid] = int(label)
    if not judgments and not log.errors:
        log.error("empty-file", "the qrels file has no judgments")
    if log.errors:
        raise InputError(log.errors)
    return Qrels(judgments)
