"""Pool exports: the documents assessors should judge next, per subset, as TSV files.

The organizer chooses the runs (every team's counted run plus what it selected for the
final, or the counted runs of the top N teams, or every run by the judging priority its team
gave it at upload, each priority to its own depth; the baselines or not) and the depth k.
`pool_export_create` freezes that choice in a `PoolExport` row and sends a worker its id;
`pool_export_build` (the worker) reads each chosen run file once, keeps each query's top k
documents (on a residual phase, of the run without what earlier rounds judged), and writes
per subset the union of those that the current judgments do not hold, one TSV per subset (`qid`, query text, `docid`) in a zip, with counts per subset and
the pool-contribution table (relevant documents only one team's runs retrieved) from the
same top documents. Building is a job kind of the engine (cupboard.jobs, `POOL_EXPORT`): the
row is the truth and the task only carries its id; a second delivery finds the row claimed
or done and does nothing; a builder beats while it reads the runs, and one that died is
taken over (at once on its host, else once silent), its late writes refused; a lost message
is sent again by the sweeper (`pool_exports_sweep`, beat).
"""
from __future__ import annotations

import io
import logging
import zipfile
from collections import defaultdict
from datetime import datetime

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from cupboard.competitions.models import Phase, TopicSet
from cupboard.competitions.selectors import current_qrels_release, earlier_judgments, qrels_files
from cupboard.competitions.topic_variants import one_per_subset
from cupboard.csvexport import tsv_text
from cupboard.jobs import Claim, JobKind, job_claim, job_enqueue, job_sweep
from cupboard.locking import locked
from cupboard.submissions.models import Submission

from .models import PoolExport

logger = logging.getLogger(__name__)

TSV_HEADER = ("qid", "query", "docid")
MAX_DEPTH = 100  # the deepest pool offered (each run is read to the pool's depth)


def _give_up(row: dict) -> dict:
    return {"status": PoolExport.Status.FAILED, "progress": 0,
            "status_reason": f"Gave up after {row['attempts']} attempts: the builder stopped responding."}


POOL_EXPORT = JobKind(
    name="pool export", model=PoolExport, task="cupboard.judging.tasks.build_pool_export",
    waiting=Q(status=PoolExport.Status.QUEUED), running=Q(status=PoolExport.Status.BUILDING),
    take={"status": PoolExport.Status.BUILDING, "progress": 0},
    put_back={"status": PoolExport.Status.QUEUED, "progress": 0}, give_up=_give_up)


def chosen_submission_ids(*, phase: Phase, selection: str, top_teams: int | None, with_baselines: bool) -> list[int]:
    """The runs a pool is made of, from the phase's leaderboard: each team's counted run
    (the top `top_teams` teams' only, for `top`), plus for `selected` every run a team
    selected for the final, plus the baselines' runs when asked. Disqualified runs never."""
    rows = list(phase.leaderboard_rows.filter(is_baseline=False).order_by("rank").values_list("submission_id", flat=True))
    if selection == PoolExport.Selection.TOP:
        rows = rows[:top_teams or 0]
    chosen = dict.fromkeys(rows)
    if selection == PoolExport.Selection.SELECTED:
        chosen.update(dict.fromkeys(phase.submissions.filter(
            selected_for_final=True, status=Submission.Status.SCORED, disqualified=False, is_baseline=False)
            .order_by("pk").values_list("pk", flat=True)))
    if with_baselines:
        chosen.update(dict.fromkeys(phase.leaderboard_rows.filter(is_baseline=True)
                                    .values_list("submission_id", flat=True)))
    return list(chosen)


def by_priority(*, phase: Phase, priority_depths: dict[int, int], depth: int,
                with_baselines: bool) -> dict[int, int]:
    """{submission id: its depth} of a pool by judging priority (issue 34): every counted team
    run (scored, not disqualified) whose team gave it a priority listed, to that priority's
    depth (TREC-COVID judged each team's priority-1 runs deeper than the rest); the baselines'
    runs to `depth` when asked. A run given no priority, or another one, is not pooled."""
    runs = (phase.submissions.filter(status=Submission.Status.SCORED, disqualified=False, is_baseline=False,
                                     judging_priority__in=list(priority_depths))
            .order_by("judging_priority", "pk").values_list("pk", "judging_priority"))
    chosen = {pk: priority_depths[priority] for pk, priority in runs}
    if with_baselines:
        chosen.update({pk: depth for pk in phase.leaderboard_rows.filter(is_baseline=True)
                       .values_list("submission_id", flat=True)})
    return chosen


def pool_export_create(*, phase: Phase, actor, depth: int = 10, selection: str = PoolExport.Selection.SELECTED,
                       top_teams: int | None = None, with_baselines: bool = True,
                       priority_depths: dict[int, int] | None = None) -> PoolExport:
    """A new pool export of `phase`, queued for a worker (after the commit); by priority
    (`selection` priority), `priority_depths` gives each judging priority pooled its depth."""
    priority_depths = {int(k): int(v) for k, v in (priority_depths or {}).items()}
    if not all(1 <= d <= MAX_DEPTH for d in [depth, *priority_depths.values()]):
        raise ValueError(f"the depth must be between 1 and {MAX_DEPTH}")
    depths: dict[int, int] = {}
    if selection == PoolExport.Selection.PRIORITY:
        if not priority_depths:
            raise ValueError("a pool by priority needs a depth for at least one priority")
        depths = by_priority(phase=phase, priority_depths=priority_depths, depth=depth, with_baselines=with_baselines)
        ids = list(depths)
    else:
        ids = chosen_submission_ids(phase=phase, selection=selection, top_teams=top_teams,
                                    with_baselines=with_baselines)
    with transaction.atomic():
        locked(Phase.objects.filter(pk=phase.pk)).get()  # two exports at once: each its own next number
        number = (phase.pool_exports.aggregate(last=Max("number"))["last"] or 0) + 1
        export = PoolExport.objects.create(
            phase=phase, number=number, depth=max([depth, *depths.values()]), selection=selection,
            top_teams=top_teams if selection == "top" else None, with_baselines=with_baselines, submission_ids=ids,
            depths={str(pk): k for pk, k in depths.items()},
            priority_depths={str(p): k for p, k in sorted(priority_depths.items())} if depths else {},
            qrels_release=current_qrels_release(phase), created_by=actor)
        job_enqueue(POOL_EXPORT, [export.pk])
    return export


def pool_export_build(*, export_id: int) -> str:
    """Build the export (see the module docstring); "done", "failed", "skipped" when the row
    is gone, done, or being built by a live worker, or "lost-claim" when another worker took
    it over meanwhile (its result is the one kept)."""
    claim = job_claim(POOL_EXPORT, export_id)
    if claim is None:
        return "skipped"
    with claim.heartbeat():
        return _build(claim)


def _build(claim: Claim) -> str:
    export = PoolExport.objects.select_related("phase__competition", "qrels_release").get(pk=claim.pk)
    try:
        topics = _topics(export.phase)
        tops, groups = _top_documents(export, topics, claim)
        archive, counts, contributions = _pool_files(export, topics, tops, groups)
    except Exception as error:  # noqa: BLE001 - whatever broke, the organizer sees why and may build again
        logger.exception("pool export %s failed", claim.pk)
        failed = claim.update(status=PoolExport.Status.FAILED, progress=0,
                              status_reason=f"{type(error).__name__}: {error}"[:2000])
        return "failed" if failed else "lost-claim"
    export.file.save(f"pool-{export.phase.competition.slug}-{export.phase.slug}-{export.number}.zip",
                     ContentFile(archive), save=False)
    if not claim.update(status=PoolExport.Status.DONE, progress=100, file=export.file.name, counts=counts,
                        contributions=contributions, finished_at=timezone.now(), status_reason=""):
        export.file.delete(save=False)  # the worker that took over stores its own
        return "lost-claim"
    return "done"


def pool_exports_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Builds whose worker went silent queued again, lost messages sent again (beat)."""
    return job_sweep(POOL_EXPORT, now=now)


def _group(submission: Submission) -> str:
    """Whose runs count together for "unique": a team's, or each baseline on its own."""
    return submission.team.name if submission.team_id else f"Baseline: {submission.method_name}"


def _top_documents(export: PoolExport, topics: dict[str, dict[str, str]], claim: Claim) -> tuple[dict, dict]:
    """({subset code: [tops of each run]}, {subset code: {group: [tops]}}), reading each run once."""
    from cupboard.submissions.runfiles import read_scored_run
    from evaluator.pooling import top_documents

    competition = export.phase.competition
    earlier = earlier_judgments(export.phase)  # a residual phase: what earlier rounds judged is not pooled again
    submissions = {s.pk: s for s in Submission.objects.filter(pk__in=export.submission_ids).select_related("team")}
    run_files = [rf for s in submissions.values() for rf in s.run_files.select_related("subset") if rf.file]
    tops: dict[str, list] = defaultdict(list)
    groups: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for done, run_file in enumerate(run_files, start=1):
        code = run_file.subset.code
        depth = export.depths.get(str(run_file.submission_id), export.depth)  # by priority: the run's own
        with run_file.file.open("rb") as stored:
            run, _, _ = read_scored_run(source=stored, name=run_file.original_name, competition=competition,
                                        topics=set(topics.get(code, {})) or None, keep_depth=depth,
                                        judged=earlier.get(code, ()))
        if run is not None:  # a run that no longer validates was rejected: it is not in the pool
            found = top_documents(run, depth)
            tops[code].append(found)
            groups[code][_group(submissions[run_file.submission_id])].append(found)
        claim.progress(done, len(run_files))
    return tops, groups


def _topics(phase: Phase) -> dict[str, dict[str, str]]:
    """{subset code: {qid: query text}} of the phase."""
    from evaluator.io.topics import read_topics

    result = {}
    topic_sets = TopicSet.objects.filter(phase=phase).select_related("subset")
    for topic_set in one_per_subset(topic_sets, phase.competition).values():  # the default variant's text
        with topic_set.file.open("rb") as stored:
            result[topic_set.subset.code] = read_topics(stored, name=topic_set.original_name)
    return result


def _judgments(export: PoolExport) -> dict:
    """{subset code: evaluator Qrels} of the release the export was asked against."""
    from evaluator.io.qrels import read_qrels

    if export.qrels_release is None:
        return {}
    result = {}
    for code, qrels_file in qrels_files(export.qrels_release).items():
        with qrels_file.file.open("rb") as stored:
            result[code] = read_qrels(stored, name=qrels_file.original_name)
    return result


def pool_file_name(export: PoolExport, code: str) -> str:
    return f"pool.{export.phase.competition.slug}-{export.phase.slug}-{code}.top{export.depth}.tsv"


def _pool_files(export: PoolExport, topics: dict, tops: dict, groups: dict) -> tuple[bytes, list, list]:
    """The zip (a TSV per subset with runs, in column order), counts and contributions."""
    from evaluator.pooling import pool, unique_relevant

    competition = export.phase.competition
    judgments = _judgments(export)
    order = list(competition.subsets.order_by("position", "code").values_list("code", flat=True))
    # Lists, not dicts: PostgreSQL's jsonb does not keep key order, and the pages show column order.
    counts, contributions, buffer = [], [], io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for code in [c for c in order if c in tops]:
            texts = topics.get(code, {})
            pooled = pool(tops[code], judged=judgments.get(code), queries=texts or None)
            rows = [(qid, " ".join(texts.get(qid, "").split()), docid) for qid, docids in pooled.items() for docid in docids]
            archive.writestr(pool_file_name(export, code), tsv_text([TSV_HEADER, *rows]))
            counts.append({"code": code, "queries": len(pooled), "documents": len(rows), "runs": len(tops[code])})
            if code in judgments:
                found = unique_relevant(groups[code], judgments[code], relevance_level=competition.relevance_level)
                contributions += [{"code": code, "group": c.group, "relevant": c.relevant, "unique": c.unique}
                                  for c in found]
    return buffer.getvalue(), counts, contributions


def pool_member(export: PoolExport, code: str) -> bytes | None:
    """One subset's TSV out of a built export's zip, or None."""
    if export.status != PoolExport.Status.DONE or not export.file:
        return None
    with export.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as archive:
        name = pool_file_name(export, code)
        return archive.read(name) if name in archive.namelist() else None
