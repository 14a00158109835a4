"""Reading qrels: `qid Q0 docid label` or `qid 0 docid label`, tab or space separated.

Labels are integers (0/1 for MIRACL and Mr. TyDi, 0-6 for CLIRMatrix); judged
non-relevant rows are kept, since they define which queries are judged.
"""
from __future__ import annotations

from .records import InputError, Qrels
from .sources import Source, iter_lines, source_name
from .validation import MAX_FIELD_BYTES, RANK_RE, ProblemLog, decoded_lines


def read_qrels(source: Source, *, name: str | None = None) -> Qrels:
    """Judgments qid -> {docid: label}. Raises InputError listing up to 25 problems with
    file and line (wrong column count, non-integer label, the same docid judged twice)."""
    file = source_name(source, name)
    log = ProblemLog(file)
    judgments: dict[str, dict[str, int]] = {}
    for number, text in decoded_lines(iter_lines(source, file=file), log):
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
