"""Topics as tracks publish them (issue 34): TREC XML, classic TREC SGML, JSON lines and TSV,
each topic with all its fields; the query text scored is its query or title; a bad file is
refused naming the line, and an XML document type (entity expansion) never."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from evaluator.io.topics import read_topic_fields, read_topics
from evaluator.records import InputError

XML = (Path(__file__).resolve().parents[1] / "data" / "campaign" / "topics-round1.xml").read_bytes()
SGML = b"""<top>
<num> Number: 301
<title> International Organized Crime

<desc> Description:
Identify organizations that participate in international criminal
activity.

<narr> Narrative:
A relevant document must as a minimum identify the organization.
</top>

<top>
<num> Number: 302
<title> Poliomyelitis and Post-Polio
<desc> Description: Is the disease under control?
<narr> Narrative: Relevant documents say so.
</top>
"""


def test_trec_xml_keeps_every_field_of_a_topic():
    topics = read_topic_fields(io.BytesIO(XML), name="topics.xml")
    assert list(topics) == ["1", "2", "3"]
    assert topics["1"] == {"query": "river flooding alerts", "question": "how are residents warned of river floods",
                           "narrative": "documents describing warning systems, sirens or text alerts for river floods "
                                        "are relevant; general weather reports are not"}
    assert topics["3"]["narrative"].endswith("modules & their glass")
    assert read_topics(io.BytesIO(XML), name="topics.xml") == {
        "1": "river flooding alerts", "2": "bee colony collapse", "3": "solar panel recycling"}


def test_classic_trec_sgml_drops_the_labels():
    topics = read_topic_fields(io.BytesIO(SGML), name="topics.301-302")
    assert topics == {
        "301": {"title": "International Organized Crime",
                "description": "Identify organizations that participate in international criminal activity.",
                "narrative": "A relevant document must as a minimum identify the organization."},
        "302": {"title": "Poliomyelitis and Post-Polio", "description": "Is the disease under control?",
                "narrative": "Relevant documents say so."}}
    assert read_topics(io.BytesIO(SGML), name="t")["301"] == "International Organized Crime"


def test_json_lines_and_tsv():
    jsonl = b'{"qid": 7, "query": "a  b", "narrative": "n", "year": 2020}\n\n{"_id": "8", "text": "x"}\n'
    assert read_topic_fields(io.BytesIO(jsonl), name="t.jsonl") == {"7": {"query": "a b", "narrative": "n"},
                                                                    "8": {"text": "x"}}
    assert read_topics(io.BytesIO(jsonl), name="t.jsonl") == {"7": "a b", "8": "x"}
    assert read_topic_fields(io.BytesIO(b"1\tfirst query\n2\tsecond\n"), name="t.tsv") == {
        "1": {"query": "first query"}, "2": {"query": "second"}}


@pytest.mark.parametrize("content, line, code", [
    (b'<!DOCTYPE t [<!ENTITY a "aaaa">]>\n<topics><topic number="1"><query>&a;</query></topic></topics>', 1, "bad-xml"),
    (b'<topics>\n<topic number="1"><query>x</query></topic>\n<topic number="1"><query>y</query></topic>\n</topics>', 3,
     "duplicate-qid"),
    (b'<topics>\n<topic number="1"><query>x</query>\n</topics>', 3, "bad-xml"),
    (b'<topics>\n<topic><query>x</query></topic></topics>', 2, "empty-field"),
    (b"<top>\n<title> no number\n</top>\n", 1, "empty-field"),
    (b'{"qid": "1", "query": "x"}\n{"query": "y"}\n', 2, "empty-field"),
    (b'{"qid": "1", "query": "x"}\nnot json\n', 2, "bad-json"),
])
def test_a_bad_file_is_refused_at_its_line(content, line, code):
    with pytest.raises(InputError) as caught:
        read_topic_fields(io.BytesIO(content), name="topics.bad")
    problem = caught.value.problems[0]
    assert (problem.file, problem.line, problem.code) == ("topics.bad", line, code)
