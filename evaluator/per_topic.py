"""Per-topic reports, as TREC sends its participants: a run's value on each topic beside the
best, the median and the worst value of all runs on that topic.

A participant writing a system paper reads where the system fails (topics far below the
median) and where it wins; a mean alone hides both. The figures are over the values of every
run given (TREC counts all submitted runs); which runs those are is the caller's choice.
The median of an even count of runs is the mean of the two middle values (`statistics.median`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import median


@dataclass(frozen=True, slots=True)
class TopicRange:
    """Best, median and worst of `runs` runs' values on one topic."""

    best: float
    median: float
    worst: float
    runs: int


def topic_ranges(runs: Iterable[Mapping[str, float]]) -> dict[str, TopicRange]:
    """{qid: TopicRange} from each run's {qid: value}; a topic counts the runs that have a value
    for it (an Evaluator emits every judged topic, so runs scored on the same judgments all do)."""
    by_topic: dict[str, list[float]] = {}
    for values in runs:
        for qid, value in values.items():
            by_topic.setdefault(qid, []).append(value)
    return {qid: TopicRange(best=max(found), median=median(found), worst=min(found), runs=len(found))
            for qid, found in by_topic.items()}


def topic_key(qid: str) -> tuple[int, str]:
    """Topic ids in reading order: numbers by value (2 before 10), then the others."""
    return (0 if qid.isdigit() else 1, qid.zfill(20))


def by_difference(values: Mapping[str, float], ranges: Mapping[str, TopicRange]) -> list[str]:
    """The topics of `values` that have a range, the run's largest gain over the median first,
    its worst loss last (ties by topic id, numbers in numeric order): the order of the report."""
    def key(qid: str) -> tuple[float, tuple[int, str]]:
        return (-(values[qid] - ranges[qid].median), topic_key(qid))

    return sorted((qid for qid in values if qid in ranges), key=key)
