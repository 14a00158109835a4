"""Reading topic files: `qid<TAB>text` per line (MIRACL `.tsv`, Mr. TyDi `.txt.gz`)."""
from __future__ import annotations

from .records import InputError
from .sources import Source, iter_lines, source_name
from .validation import MAX_FIELD_BYTES, ProblemLog, decoded_lines


def read_topics(source: Source, *, name: str | None = None) -> dict[str, str]:
    """qid -> query text, in file order. Raises InputError listing up to 25 problems
    (line without a tab, empty qid or text, qid over 100 bytes, a qid given twice)."""
    file = source_name(source, name)
    log = ProblemLog(file)
    topics: dict[str, str] = {}
    for number, text in decoded_lines(iter_lines(source, file=file), log):
        qid, tab, query = text.rstrip("\r\n").partition("\t")
        qid, query = qid.strip(), query.strip()
        if not tab:
            log.error("columns", "expected a query id, a TAB, then the query text", number)
        elif not qid or not query:
            log.error("empty-field", f"the {'query id' if not qid else 'query text'} is empty", number,
                      1 if not qid else 2)
        elif len(qid.encode()) > MAX_FIELD_BYTES:
            log.error("field-too-long", f"query id is longer than {MAX_FIELD_BYTES} bytes", number, 1)
        elif qid in topics:
            log.error("duplicate-qid", f"query {qid!r} appears twice", number, 1)
        else:
            topics[qid] = query
    if not topics and not log.errors:
        log.error("empty-file", "the topics file has no queries")
    if log.errors:
        raise InputError(log.errors)
    return topics
