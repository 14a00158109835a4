"""Reading topic files: `qid<TAB>text` per line (MIRACL `.tsv`, Mr. TyDi `.txt.gz`)."""
from __future__ import annotations

from ..records import InputError
from .sources import Source, iter_blocks, source_name, split_lines
from .validation import BOM, MAX_FIELD_BYTES, ProblemLog, decoded_lines


def read_topics(source: Source, *, name: str | None = None) -> dict[str, str]:
    """qid -> query text, in file order. Raises InputError listing up to 25 problems
    (line without a tab, empty qid or text, qid over 100 bytes, a qid given twice)."""
    file = source_name(source, name)
    data = b"".join(iter_blocks(source, file=file))
    data = data[len(BOM):] if data.startswith(BOM) else data
    return _read_fast(data) or _read_exact(data, file)


def _read_fast(data: bytes) -> dict[str, str] | None:
    """The whole file decoded and split at once; None when any line needs a closer look."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text or "\r" in text:
        return None
    rows = [line.partition("\t") for line in text.split("\n") if line.strip()]
    topics = {qid.strip(): query.strip() for qid, _, query in rows}
    if (not topics or len(topics) != len(rows) or "" in topics or not all(tab and query.strip() for _, tab, query in rows)
            or max(len(qid.encode()) for qid in topics) > MAX_FIELD_BYTES):
        return None
    return topics


def _read_exact(data: bytes, file: str) -> dict[str, str]:
    log = ProblemLog(file)
    topics: dict[str, str] = {}
    for number, text in decoded_lines(split_lines(data), log):
        qid, tab, query = text.partition("\t")
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
