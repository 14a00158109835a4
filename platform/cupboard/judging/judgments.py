"""What a judging round's labels add up to, for its organizers: progress per subset and
assessor with the time per judgment, agreement on the passages judged twice (Cohen's kappa;
Krippendorff's alpha, ordinal, where labels are graded: evaluator/agreement.py), the
disagreements to resolve, and the new qrels version made of the final labels.

A passage's final label is the one its assessors agree on, or the organizer's resolution
where they differ. `qrels_version_create` adds the final labels to the previous version's
judgments and releases them through `qrels_release_create`, so the new version's SHA-256,
its commitment, the re-score and its "what changed" follow as for an uploaded file.
"""
from __future__ import annotations

import io
import math
from collections import defaultdict
from dataclasses import dataclass
from statistics import median

from django.core.exceptions import ValidationError
from django.db import transaction

from cupboard.competitions.assessors import is_graded
from cupboard.competitions.models import QrelsRelease
from cupboard.competitions.selectors import current_qrels_release, qrels_files
from cupboard.competitions.services import qrels_release_create

from .models import JudgingItem, JudgingRound, Resolution


@dataclass
class Passage:
    """One (subset, query, document) of a round with every label it got so far."""

    code: str
    qid: str
    docid: str
    query: str
    title: str
    text: str
    labels: dict[str, int | None]  # assessor's username -> label (None: not yet)
    resolved: int | None = None

    @property
    def given(self) -> list[int]:
        return [label for label in self.labels.values() if label is not None]

    @property
    def disputed(self) -> bool:
        return len(set(self.given)) > 1

    @property
    def final(self) -> int | None:
        """The label the qrels get: the resolution, else the one all its assessors gave once
        everyone has judged it; None while unjudged or disputed."""
        if self.resolved is not None:
            return self.resolved
        if None in self.labels.values() or self.disputed:
            return None
        return self.given[0]


def round_passages(judging_round: JudgingRound, *, only: tuple[str, str, str] | None = None) -> list[Passage]:
    """Every passage of the round with its labels and resolution, by subset, query, document;
    with `only` (code, qid, docid), that passage alone: resolving one dispute reads its own
    items, not the round's thousands again."""
    passages: dict[tuple[str, str, str], Passage] = {}
    items = JudgingItem.objects.filter(assignment__round=judging_round)
    resolutions = judging_round.resolutions.all()
    if only is not None:
        code, qid, docid = only
        items = items.filter(assignment__subset__code=code, qid=qid, docid=docid)
        resolutions = resolutions.filter(subset__code=code, qid=qid, docid=docid)
    items = items.select_related("assignment__subset", "assignment__assessor").order_by(
        "assignment__subset__position", "qid", "docid")
    for item in items:
        code = item.assignment.subset.code
        key = (code, item.qid, item.docid)
        if key not in passages:
            passages[key] = Passage(code, item.qid, item.docid, item.query, item.title, item.text, {})
        passages[key].labels[item.assignment.assessor.username] = item.label
    for resolution in resolutions.select_related("subset"):
        found = passages.get((resolution.subset.code, resolution.qid, resolution.docid))
        if found is not None:
            found.resolved = resolution.label
    return list(passages.values())


def round_progress(judging_round: JudgingRound) -> list[dict]:
    """Per task (subset and assessor): passages judged of all, and the median seconds per judgment."""
    rows = []
    for task in judging_round.assignments.select_related("subset", "assessor").order_by("subset__position", "pk"):
        items = list(task.items.values_list("label", "seconds"))
        seconds = [s for label, s in items if label is not None and s is not None]
        rows.append({"code": task.subset.code, "assessor": task.assessor.username, "total": len(items),
                     "done": sum(label is not None for label, _ in items),
                     "median_seconds": round(median(seconds), 1) if seconds else None})
    return rows


def round_agreement(judging_round: JudgingRound, passages: list[Passage] | None = None) -> list[dict]:
    """Per subset, then all together: passages judged by two, kappa (the two labels of each,
    in the order the assessors' names sort) and, for graded labels, ordinal alpha."""
    from evaluator.agreement import cohen_kappa, krippendorff_alpha

    graded = is_graded(judging_round.phase.competition)
    twice: dict[str, list[Passage]] = defaultdict(list)
    for passage in passages if passages is not None else round_passages(judging_round):
        if len(passage.given) >= 2:
            twice[passage.code].append(passage)
    rows = []
    groups = list(twice.items()) + ([("all", [p for ps in twice.values() for p in ps])] if len(twice) > 1 else [])
    for code, found in groups:
        pairs = [[p.labels[name] for name in sorted(p.labels)][:2] for p in found]
        kappa = cohen_kappa([a for a, _ in pairs], [b for _, b in pairs])
        alpha = krippendorff_alpha([p.given for p in found], level="ordinal") if graded else None
        rows.append({"code": code, "pairs": len(found), "agreed": sum(not p.disputed for p in found),
                     "kappa": None if math.isnan(kappa) else kappa,
                     "alpha": None if alpha is None or math.isnan(alpha) else alpha})
    return rows


@transaction.atomic
def resolution_set(*, judging_round: JudgingRound, code: str, qid: str, docid: str, label: int, actor) -> Resolution:
    """The organizer's final label of a disputed passage (changed again by calling again)."""
    passage = next(iter(round_passages(judging_round, only=(code, qid, docid))), None)
    if passage is None or not passage.disputed:
        raise ValidationError("Only a passage its assessors labelled differently is resolved.", code="not-disputed")
    if label not in passage.given:
        raise ValidationError("The final label is one of those its assessors gave.", code="bad-label")
    subset = judging_round.phase.competition.subsets.get(code=code)
    resolution, _ = Resolution.objects.update_or_create(
        round=judging_round, subset=subset, qid=qid, docid=docid, defaults={"label": label, "resolved_by": actor})
    return resolution


def _previous_judgments(judging_round: JudgingRound) -> dict[str, dict[str, dict[str, int]]]:
    from evaluator.io.qrels import read_qrels

    release = current_qrels_release(judging_round.phase)
    found: dict[str, dict[str, dict[str, int]]] = {}
    for code, qrels_file in (qrels_files(release).items() if release else ()):
        with qrels_file.file.open("rb") as stored:
            judged = read_qrels(stored, name=qrels_file.original_name).judgments
        found[code] = {qid: dict(docs) for qid, docs in judged.items()}
    return found


def qrels_text(judgments: dict[str, dict[str, int]]) -> bytes:
    """TREC qrels, sorted by query and document: the same judgments always give the same bytes."""
    buffer = io.StringIO()
    for qid in sorted(judgments):
        for docid in sorted(judgments[qid]):
            buffer.write(f"{qid} 0 {docid} {judgments[qid][docid]}\n")
    return buffer.getvalue().encode()


def judged_qrels_name(phase, code: str, judging_round_id: int) -> str:
    """The name of a qrels file made by judging in the browser, which no one reads as another
    round's: the phase's slug (a campaign's round) and the judging pass's number are named apart
    (`qrels.trec-covid.round-2.covid.judging-pass-1.tsv`, not `...round-2-covid.round1.tsv`,
    which read as round 1's qrels)."""
    return f"qrels.{phase.competition.slug}.{phase.slug}.{code}.judging-pass-{judging_round_id}.tsv"


def qrels_version_create(*, judging_round: JudgingRound, actor, partial: bool = False) -> QrelsRelease:
    """A new qrels version: the previous version's judgments plus the round's final labels,
    for the subsets the round judged. Refused while a disagreement is unresolved or when no
    passage has a final label yet; passages not judged yet are left out (a later round or
    version may add them), so a round not judged whole needs `partial` (the organizer's
    confirmation): its runs are scored again with the rest of the pool unjudged."""
    if judging_round.qrels_release_id is not None:
        raise ValidationError(f"This round is already qrels v{judging_round.qrels_release.number}.", code="released")
    passages = round_passages(judging_round)
    disputed = [p for p in passages if p.disputed and p.resolved is None]
    if disputed:
        raise ValidationError(f"{len(disputed)} passage(s) judged differently await your final label.",
                              code="unresolved")
    final = [p for p in passages if p.final is not None]
    if not final:
        raise ValidationError("No passage has a final label yet.", code="nothing-judged")
    if len(final) < len(passages) and not partial:
        raise ValidationError(f"Only {len(final) / len(passages):.0%} of the round's passages ({len(final):,} of "
                              f"{len(passages):,}) have a final label: the other {len(passages) - len(final):,} would "
                              "stay unjudged (not relevant when the runs are scored). Confirm to make a version of "
                              "what is judged so far.", code="partly-judged")
    judgments = _previous_judgments(judging_round)
    for passage in final:
        judgments.setdefault(passage.code, {}).setdefault(passage.qid, {})[passage.docid] = passage.final  # type: ignore[assignment]
    phase, codes = judging_round.phase, sorted({p.code for p in final})
    with transaction.atomic():
        release = qrels_release_create(
            phase=phase, actor=actor, files={code: qrels_text(judgments[code]) for code in codes},
            names={code: judged_qrels_name(phase, code, judging_round.pk) for code in codes},
            note=f"judged in the browser, round #{judging_round.pk}: {len(final)} passage(s)")
        JudgingRound.objects.filter(pk=judging_round.pk).update(qrels_release=release)
    judging_round.qrels_release = release
    return release
