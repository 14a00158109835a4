"""How many of each language's queries a submission's runs cover: a run of 20 of 120 queries
scores near 0 with no other word, so the submission page and the API say it.

Counted against the phase's topics (public to anyone who may submit), never against the
judged queries, whose number a phase with hidden judgments keeps to itself.
"""
from __future__ import annotations

from dataclasses import dataclass

from cupboard.competitions.models import TopicSet

from .models import RunFile


@dataclass(frozen=True, slots=True)
class Coverage:
    """One run file's queries against its language's topics in the phase."""

    code: str
    queries: int
    topics: int

    @property
    def missing(self) -> int:
        return max(0, self.topics - self.queries)

    @property
    def text(self) -> str:
        """"sw: 20 of 120 queries; the 100 missing count 0", the one wording on pages and in the API."""
        return f"{self.code}: {self.queries} of {self.topics} queries; the {self.missing} missing count 0"

    def as_dict(self) -> dict:
        return {"subset": self.code, "queries": self.queries, "topics": self.topics, "missing": self.missing}


def run_files_coverage(run_files: list[RunFile]) -> list[Coverage]:
    """Coverage of each of a submission's run files (those a viewer may see: the caller's
    choice), in column order. One query: the phase's topic sets."""
    if not run_files:
        return []
    phase_id = run_files[0].submission.phase_id
    counts = dict(TopicSet.objects.filter(phase_id=phase_id, subset__in=[f.subset_id for f in run_files])
                  .values_list("subset_id", "query_count"))
    return [Coverage(code=f.subset.code, queries=f.queries, topics=counts[f.subset_id])
            for f in sorted(run_files, key=lambda f: (f.subset.position, f.subset.code)) if f.subset_id in counts]


def incomplete(coverage: list[Coverage]) -> list[Coverage]:
    """The languages whose runs leave queries out: what the warnings are about."""
    return [c for c in coverage if c.missing]
