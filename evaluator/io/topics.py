"""Reading topic files: `qid<TAB>text` per line (MIRACL `.tsv`, Mr. TyDi `.txt.gz`), and the
shapes tracks publish (TREC XML, classic TREC SGML, JSON lines: `topic_formats.py`)."""
from __future__ import annotations

from ..records import InputError, Problem
from .sources import Source, iter_blocks, source_name, split_lines
from .topic_formats import query_text, read_jsonl, read_sgml, read_xml, topic_format
from .validation import BOM, MAX_FIELD_BYTES, ProblemLog, decoded_lines


def read_topics(source: Source, *, name: str | None = None) -> dict[str, str]:
    """qid -> query text, in file order (for a file with several fields per topic, its query
    or title: `topic_formats.query_text`). Raises InputError listing up to 25 problems
    (line without a tab, empty qid or text, qid over 100 bytes, a qid given twice)."""
    file = source_name(source, name)
    data = _data(source, file)
    if topic_format(data[:400].decode("utf-8", "replace")) == "tsv":
        return _read_fast(data) or _read_exact(data, file)
    return {qid: query_text(fields) for qid, fields in read_topic_fields(data, name=file).items()}


def read_topic_fields(source: Source | bytes, *, name: str | None = None) -> dict[str, dict[str, str]]:
    """qid -> {field: text} in file order: TREC XML, TREC SGML, JSON lines or TSV (one field,
    `query`), told apart by the file's first characters (`topic_formats.py`)."""
    file = (name or "topics") if isinstance(source, bytes) else source_name(source, name)
    data = source if isinstance(source, bytes) else _data(source, file)
    data = data[len(BOM):] if data.startswith(BOM) else data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError([Problem("bad-utf8", f"invalid UTF-8 at byte {error.start + 1}", file,
                                  data[:error.start].count(b"\n") + 1)]) from None
    shape = topic_format(text)
    if shape == "tsv":
        return {qid: {"query": query} for qid, query in (_read_fast(data) or _read_exact(data, file)).items()}
    reader = {"xml": read_xml, "sgml": read_sgml, "jsonl": read_jsonl}[shape]
    return reader(text, file)


def _data(source: Source, file: str) -> bytes:
    data = b"".join(iter_blocks(source, file=file))
    return data[len(BOM):] if data.startswith(BOM) else data


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
