"""What a new topics file does to a phase's queries: added, removed and changed (same id, other
text) per subset and variant, and how many runs were checked and scored against the old ones.

A topics change of a running phase is shown as this before it applies (the organizer's page,
`import_topics --dry-run`), recorded with its version (`TopicsVersion.changes`) and told to
the teams: "fi (1)" on the competition page must never be the first anyone hears of 19
removed queries.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from django.db.models import Max

from cupboard.competitions.models import Phase, TopicSet

# What an organizer chooses for the runs a topics change affects: score them again, or refuse the change.
RESCORE, REFUSE = "rescore", "refuse"
SHOWN = 5  # query ids a line names before "and N more"
# Runs that were (or are being) checked and scored against a subset's topics; a rejected or
# failed one holds no score to change.
LIVE_RUNS = ("queued", "scoring", "scored")


@dataclass(frozen=True)
class SubsetChange:
    """One file of a change: a subset's (and variant's) queries before and after."""

    subset: str
    variant: str
    name: str
    added: list[str]
    removed: list[str]
    changed: list[str]
    kept: int
    first: bool  # the subset had no topics of this variant before

    @property
    def queries_changed(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def line(self, *, variants: bool = False) -> str:
        """`fi: 19 removed (2, 3, 4, 5, 6 and 14 more); 1 kept` - what the preview, the audit log
        and the teams' mail say."""
        which = f"{self.subset} ({self.variant})" if variants else self.subset
        if self.first:
            return f"{which}: {self.kept} queries (new)"
        parts = [f"{len(ids)} {what} ({_some(ids)})" for what, ids in
                 (("added", self.added), ("removed", self.removed), ("changed", self.changed)) if ids]
        return f"{which}: " + "; ".join(parts + [f"{self.kept} unchanged"] if parts else ["same queries, new file"])

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class TopicsChange:
    """A whole upload's effect: its files' changes, and the phase's runs on the subsets whose
    stored queries it changes (`runs`: how many would be scored again, or refuse the change;
    a subset's first topics replace nothing, so they count none)."""

    files: list[SubsetChange]
    runs: int
    version: int  # the number it would take among the phase's changes (TopicsVersion.number)

    @property
    def replaces(self) -> bool:
        """Whether it changes queries that were there before (a first upload replaces nothing)."""
        return any(f.queries_changed and not f.first for f in self.files)

    def lines(self, *, variants: bool = False) -> list[str]:
        return [f.line(variants=variants) for f in self.files]


def topics_change(phase: Phase, new: dict[tuple, tuple[str, dict[str, str]]]) -> TopicsChange:
    """The change `new` ({(Subset, variant): (file name, {qid: text})}) makes to the phase's stored topics."""
    from cupboard.competitions.submitting import topic_texts

    stored = {(t.subset_id, t.variant): t for t in TopicSet.objects.filter(phase=phase)}
    files = []
    for (subset, variant), (name, topics) in sorted(new.items(), key=lambda item: (item[0][0].position,
                                                                                    item[0][0].code, item[0][1])):
        old_set = stored.get((subset.pk, variant))
        old = topic_texts(old_set) if old_set is not None else {}
        files.append(SubsetChange(
            subset=subset.code, variant=variant, name=name,
            added=[q for q in topics if q not in old], removed=[q for q in old if q not in topics],
            changed=[q for q in topics if q in old and old[q] != topics[q]],
            kept=sum(1 for q in topics if q in old and old[q] == topics[q]) if old_set else len(topics),
            first=old_set is None))
    touched = {f.subset for f in files if f.queries_changed and not f.first}
    runs = (phase.submissions.filter(status__in=LIVE_RUNS, run_files__subset__code__in=touched).distinct().count()
            if touched else 0)
    return TopicsChange(files=files, runs=runs, version=next_version(phase))


def next_version(phase: Phase) -> int:
    """The number of the phase's next topics change: after the highest recorded (topics stored
    without a record, as the test factories store them, count as change 1)."""
    recorded = phase.topics_versions.aggregate(n=Max("number"))["n"]
    return (recorded or int(phase.topic_sets.exists())) + 1


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:SHOWN]) + (f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else "")
