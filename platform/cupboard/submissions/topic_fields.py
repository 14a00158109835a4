"""Which fields of the phase's topics a run used (issue 34, Found 4): said at upload (the form,
the API's `topic_fields`, `evaluator submit --topic-fields`), shown with the run and in the
results archive's runs.json.

A topic as published has several fields (TREC-COVID's query, question and narrative; classic
TREC's title, description and narrative); a run built from query and question together says
so, instead of the organizer splitting the topics into variants. The names are the topics
file's own (`evaluator/io/topic_formats.py`); a phase whose topics are TSV has one: `query`.
"""
from __future__ import annotations

from cupboard.competitions.models import Phase, TopicSet

from .errors import SubmissionRefused

GZIP = b"\x1f\x8b"
_FIELDS: dict[str, list[str]] = {}  # by the file's SHA-256: a topics file never changes under its hash


def _file_fields(topic_set: TopicSet) -> list[str]:
    """The field names of one topics file, in first-seen order; read whole only when not TSV."""
    if topic_set.sha256 not in _FIELDS:
        from evaluator.io.topic_formats import topic_format
        from evaluator.io.topics import read_topic_fields

        with topic_set.file.open("rb") as stored:
            head = stored.read(4096)
            if head.startswith(GZIP) or topic_format(head.decode("utf-8", "replace")) == "tsv":
                names = ["query"]
            else:
                topics = read_topic_fields(head + stored.read(), name=topic_set.original_name)
                names = list(dict.fromkeys(name for fields in topics.values() for name in fields))
        if len(_FIELDS) > 256:
            _FIELDS.clear()
        _FIELDS[topic_set.sha256] = names
    return _FIELDS[topic_set.sha256]


def phase_topic_fields(phase: Phase) -> list[str]:
    """Every field the phase's topics files give, in first-seen order (none without topics)."""
    names: dict[str, None] = {}
    for topic_set in TopicSet.objects.filter(phase=phase).order_by("subset__position", "pk"):
        names.update(dict.fromkeys(_file_fields(topic_set)))
    return list(names)


def topic_fields_checked(phase: Phase, given: list[str] | None) -> list[str]:
    """`given` without repeats, each a field of the phase's topics; refused (nothing stored) with
    the fields there are, naming the unknown ones."""
    chosen = list(dict.fromkeys(name.strip() for name in given or () if name.strip()))
    if not chosen:
        return []
    known = phase_topic_fields(phase)
    unknown = [name for name in chosen if name not in known]
    if unknown:
        raise SubmissionRefused(f"Topic field {', '.join(unknown)} is not one of this phase's topics: they have "
                                f"{', '.join(known) or 'no topics yet'}.", code="unknown-topic-field")
    return chosen
