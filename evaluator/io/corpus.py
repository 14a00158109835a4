"""Reading a corpus of passages: the text assessors read beside a query.

Two shapes, told apart by the first non-blank line (plain or gzip, as every reader here):

- JSON lines, MIRACL's corpus format: `{"docid": "...", "title": "...", "text": "..."}`
  per line (`title` may be empty or missing);
- TSV: `docid<TAB>title<TAB>text` per line (a first line `docid<TAB>title<TAB>text` is a
  header and skipped).

The file is read in blocks (`sources.iter_lines`), never whole: a corpus is often far larger
than the pool it serves, so only the passages asked for (`wanted`) are kept, and every line
is still checked. Problems name the file, line and what is wrong, as for runs.
"""
from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass

from ..records import InputError
from .sources import Source, iter_lines, source_name
from .validation import MAX_FIELD_BYTES, ProblemLog, decoded_lines

TSV_HEADER = ("docid", "title", "text")
# Characters of one line (a passage with its docid and title): an assessor reads it on a page,
# and a passage of 30 MB was stored and then sent whole to every assessor's browser.
MAX_PASSAGE_CHARS = 1_000_000


@dataclass(frozen=True, slots=True)
class Passage:
    docid: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Corpus:
    """What reading found: how many passages the file holds, and those that were `wanted`."""

    documents: int
    passages: dict[str, Passage]


def read_corpus(source: Source, *, name: str | None = None, wanted: Collection[str] | None = None) -> Corpus:
    """Check every line of a corpus file and keep the passages whose docid is in `wanted`
    (all of them when None). Raises InputError listing up to 25 problems: a line that is
    neither shape (JSON nested too deep included), an empty docid or text, a docid over 100
    bytes or given twice, a line over MAX_PASSAGE_CHARS, bad UTF-8."""
    file = source_name(source, name)
    log = ProblemLog(file)
    seen: set[str] = set()
    kept: dict[str, Passage] = {}
    shape = None
    for number, text in decoded_lines(iter_lines(source, file=file), log):
        if shape is None:
            shape = "jsonl" if text.lstrip().startswith("{") else "tsv"
            if shape == "tsv" and tuple(c.strip().lower() for c in text.split("\t")) == TSV_HEADER:
                continue
        if len(text) > MAX_PASSAGE_CHARS:
            log.error("passage-too-long", f"the line has {len(text):,} characters; a passage may have "
                      f"{MAX_PASSAGE_CHARS:,}", number)
            continue
        passage = _jsonl_passage(text, number, log) if shape == "jsonl" else _tsv_passage(text, number, log)
        if passage is None:
            continue
        if passage.docid in seen:
            log.error("duplicate-docid", f"document {passage.docid!r} appears twice", number)
            continue
        seen.add(passage.docid)
        if wanted is None or passage.docid in wanted:
            kept[passage.docid] = passage
    if shape is None and not log.errors:
        log.error("empty", "the file holds no passage")
    if log.errors:
        raise InputError(log.errors)
    return Corpus(documents=len(seen), passages=kept)


def _checked(docid: str, title: str, text: str, number: int, log: ProblemLog) -> Passage | None:
    docid, title, text = docid.strip(), " ".join(title.split()), text.strip()
    if not docid:
        log.error("empty-field", "the docid is empty", number)
    elif len(docid.encode()) > MAX_FIELD_BYTES:
        log.error("field-too-long", f"the docid is longer than {MAX_FIELD_BYTES} bytes", number)
    elif not text:
        log.error("empty-field", f"the text of {docid!r} is empty", number)
    else:
        return Passage(docid, title, text)
    return None


def _tsv_passage(text: str, number: int, log: ProblemLog) -> Passage | None:
    fields = text.split("\t")
    if len(fields) != 3:
        log.error("columns", f"expected 3 TAB-separated fields (docid, title, text), found {len(fields)}", number)
        return None
    return _checked(fields[0], fields[1], fields[2], number, log)


def _jsonl_passage(text: str, number: int, log: ProblemLog) -> Passage | None:
    try:
        row = json.loads(text)
    except ValueError as error:
        log.error("bad-json", f"not a JSON object ({error})", number)
        return None
    except RecursionError:  # `[[[...]]]` nested past the decoder's depth: a 500 before
        log.error("bad-json", "not a JSON object (nested too deep)", number)
        return None
    if not isinstance(row, dict):
        log.error("bad-json", "not a JSON object", number)
        return None
    values = {"docid": row.get("docid"), "title": row.get("title", ""), "text": row.get("text")}
    bad = next((key for key, value in values.items() if not isinstance(value, str)), None)
    if bad is not None:
        log.error("bad-field", f"{bad!r} must be a string" + (" (it is missing)" if values[bad] is None else ""), number)
        return None
    return _checked(str(values["docid"]), str(values["title"]), str(values["text"]), number, log)
