"""Topic files as tracks publish them, each topic with all its fields (issue 34):

- TREC XML (TREC-COVID, TREC PM): `<topics><topic number="1"><query>...</query>
  <question>...</question><narrative>...</narrative></topic>...</topics>`: every child
  element of a topic is a field, named by its tag;
- classic TREC SGML (TREC 1-8, Robust04): `<top> <num> Number: 301 <title> ... <desc>
  Description: ... <narr> Narrative: ... </top>` (tags never closed): fields `title`,
  `description`, `narrative`, their "Description:" style labels dropped;
- JSON lines: one object per topic, its id under `qid`, `query_id`, `_id` or `id`, every other
  text value a field (`{"qid": "1", "query": "...", "narrative": "..."}`);
- TSV, `qid<TAB>text` (MIRACL): one field, `query` (`io/topics.py` reads it).

The fields of a topic are one topic, never variants of it: a run says which it used, an
assessor reads those the organizer chooses (the narrative TREC assessors judge against), and
the scored query text is the first of `query`, `title`, `text` the topic has, else its first
field. ir_datasets reads these shapes too, but would bring its dependency tree into the
evaluator for a few dozen lines; the file is kept as published, byte for byte, for download.

XML is read by the standard library's expat with no document type allowed (no entity can
expand, no external file can be fetched): a topics file never needs one.
"""
from __future__ import annotations

import re
from typing import Any

from ..records import InputError
from .validation import MAX_FIELD_BYTES, ProblemLog

QUERY_FIELDS = ("query", "title", "text")  # the scored query text: the first of these a topic has
ID_KEYS = ("qid", "query_id", "_id", "id")
SGML_FIELDS = {"title": "title", "desc": "description", "narr": "narrative"}
_SGML_LABEL = re.compile(r"^\s*(?:Topic|Description|Narrative|Title)\s*:\s*", re.IGNORECASE)
_SGML_TAG = re.compile(r"<(/?)(top|num|title|desc|narr)>", re.IGNORECASE)
Topics = dict[str, dict[str, str]]


def topic_format(text: str) -> str:
    """"xml", "sgml", "jsonl" or "tsv", from the first characters that are not blank."""
    start = text.lstrip()[:200].lower()
    if start.startswith("<top>") or re.match(r"<top\s*>", start):
        return "sgml"
    if start.startswith("<"):
        return "xml"
    if start.startswith("{"):
        return "jsonl"
    return "tsv"


def query_text(fields: dict[str, str]) -> str:
    """The text a topic is searched and scored with (see the module docstring)."""
    return next((fields[name] for name in QUERY_FIELDS if fields.get(name)), next(iter(fields.values()), ""))


def read_xml(text: str, file: str) -> Topics:
    from xml.parsers import expat  # here, not above: a TSV run's `score` starts without it

    log = ProblemLog(file)
    topics: Topics = {}
    parser = expat.ParserCreate()
    state: dict[str, Any] = {"topic": None, "field": None, "depth": 0}

    def refuse(*_args: object) -> None:
        raise _Refused("a topics file must not declare a document type or entities")

    def start(tag: str, attributes: dict[str, str]) -> None:
        state["depth"] += 1
        line = parser.CurrentLineNumber
        if tag == "topic":
            qid = (attributes.get("number") or attributes.get("id") or "").strip()
            if not qid:
                log.error("empty-field", "a <topic> needs its number: <topic number=\"1\">", line)
            elif qid in topics:
                log.error("duplicate-qid", f"topic {qid!r} appears twice", line)
            elif len(qid.encode()) > MAX_FIELD_BYTES:
                log.error("field-too-long", f"topic number is longer than {MAX_FIELD_BYTES} bytes", line)
            state["topic"] = (qid, line, {}) if qid and qid not in topics else None
        elif state["topic"] is not None and state["field"] is None:
            state["field"] = (tag, [])

    def end(tag: str) -> None:
        state["depth"] -= 1
        found = state["topic"]
        if found is not None and state["field"] is not None and tag == state["field"][0]:
            name, parts = state["field"]
            found[2][name] = " ".join("".join(parts).split())
            state["field"] = None
        elif tag == "topic" and found is not None:
            qid, line, fields = found
            if not any(fields.values()):
                log.error("empty-field", f"topic {qid!r} has no field with text", line)
            else:
                topics[qid] = {k: v for k, v in fields.items() if v}
            state["topic"] = None

    def data(chunk: str) -> None:
        if state["field"] is not None:
            state["field"][1].append(chunk)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, data
    try:
        parser.Parse(text, True)
    except _Refused as error:
        log.error("bad-xml", str(error), parser.CurrentLineNumber)
    except expat.ExpatError as error:
        log.error("bad-xml", f"not well-formed XML: {expat.ErrorString(error.code)}", error.lineno, error.offset + 1)
    return _done(topics, log)


class _Refused(Exception):
    pass


def read_sgml(text: str, file: str) -> Topics:
    log = ProblemLog(file)
    topics: Topics = {}
    for block in re.finditer(r"<top>(.*?)</top>", text, re.IGNORECASE | re.DOTALL):
        line = text.count("\n", 0, block.start()) + 1
        fields: dict[str, str] = {}
        tags = list(_SGML_TAG.finditer(block.group(1)))
        for tag, following in zip(tags, [*tags[1:], None], strict=True):
            value = block.group(1)[tag.end():following.start() if following else None]
            name = tag.group(2).lower()
            if name == "num":
                fields["num"] = re.sub(r"^\s*Number\s*:\s*", "", value, flags=re.IGNORECASE).strip()
            elif name in SGML_FIELDS:
                fields[SGML_FIELDS[name]] = " ".join(_SGML_LABEL.sub("", value, count=1).split())
        qid = fields.pop("num", "")
        if not qid:
            log.error("empty-field", "a <top> needs its <num> Number: ...", line)
        elif qid in topics:
            log.error("duplicate-qid", f"topic {qid!r} appears twice", line)
        elif not any(fields.values()):
            log.error("empty-field", f"topic {qid!r} has no field with text", line)
        else:
            topics[qid] = {k: v for k, v in fields.items() if v}
    return _done(topics, log)


def read_jsonl(text: str, file: str) -> Topics:
    import json  # here, not above: `score` loads json only for JSON output (tests/evaluator/test_start_up.py)

    log = ProblemLog(file)
    topics: Topics = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as error:
            log.error("bad-json", f"not a JSON object ({error})", number)
            continue
        key = next((k for k in ID_KEYS if isinstance(row, dict) and k in row), None)
        if key is None:
            log.error("empty-field", f"a topic needs its id under one of {', '.join(ID_KEYS)}", number)
            continue
        qid = str(row[key]).strip()
        fields = {k: " ".join(v.split()) for k, v in row.items() if k != key and isinstance(v, str) and v.strip()}
        if qid in topics:
            log.error("duplicate-qid", f"query {qid!r} appears twice", number)
        elif not qid or not fields:
            log.error("empty-field", f"topic {qid!r} has no id or no text field", number)
        else:
            topics[qid] = fields
    return _done(topics, log)


def _done(topics: Topics, log: ProblemLog) -> Topics:
    if not topics and not log.errors:
        log.error("empty-file", "the topics file has no topics")
    if log.errors:
        raise InputError(log.errors)
    return topics
