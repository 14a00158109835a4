"""A final phase's results archive: one citable zip of what its results are made of.

    README.md, CITATION.bib               what it is and how to cite it
    results/official.csv, official.json   the frozen official results, byte for byte (their
                                          SHA-256 published at the reveal)
    results/tables/<table>.<tex|md>       the overview paper's tables (leaderboards/paper_tables.py)
    qrels/v<N>/<code>/<file>              every qrels version of the phase, per subset
    topics/<code>/<file>                  the topics (not a systems phase's: its systems instead,
                                          leaderboards/archive_systems.py)
    runs/runs.json                        every counted run (scored, not disqualified): team, method,
                                          metadata, files, scores and per-topic values, and whether
                                          its files are released; the archive is the record of them all
    runs/<team>/<number>/<code>/<file>    the run files as uploaded: the runs whose team ticked
                                          "release this run" (fixed at the reveal), and the baselines
    MANIFEST.sha256                       `sha256sum -c` lines for every file above

Only subsets the frozen results show are in it (a surprise language still hidden at the
reveal is not), and only once the results are public: `results_archive_create` refuses a
phase without frozen results. Built by a worker (a job kind, `RESULTS_ARCHIVE`) into a
temporary file, each member copied in chunks, so a phase of gigabytes of runs is never held
in memory; the zip's and the manifest's SHA-256 go in the public audit log.
"""
from __future__ import annotations

import hashlib
import json
import logging
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime

from django.core.files import File
from django.db import transaction
from django.db.models import F, Max, Q
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Phase, QrelsFile, TopicSet
from cupboard.jobs import Claim, JobKind, job_claim, job_enqueue, job_sweep
from cupboard.jsonexport import json_text
from cupboard.leaderboards.archive_systems import systems_members
from cupboard.leaderboards.archive_text import bibtex, readme
from cupboard.leaderboards.models import FrozenSnapshot, ResultsArchive
from cupboard.leaderboards.paper_tables import FORMATS, TABLES, paper_table
from cupboard.locking import locked
from cupboard.submissions.models import QueryScores, RunFile, Score, Submission
from cupboard.submissions.runfiles import uploaded_chunks
from cupboard.submissions.steps import scoring_version, step_progress

logger = logging.getLogger(__name__)

MANIFEST = "MANIFEST.sha256"
CHUNK = 1 << 20


class ArchiveRefused(ValueError):
    """An archive that cannot be built now, with the reason for the organizer."""


def _give_up(row: dict) -> dict:
    return {"status": ResultsArchive.Status.FAILED, "progress": 0,
            "status_reason": f"Gave up after {row['attempts']} attempts: the builder stopped responding."}


RESULTS_ARCHIVE = JobKind(
    name="results archive", model=ResultsArchive, task="cupboard.leaderboards.tasks.build_results_archive",
    waiting=Q(status=ResultsArchive.Status.QUEUED), running=Q(status=ResultsArchive.Status.BUILDING),
    take={"status": ResultsArchive.Status.BUILDING, "progress": 0},
    put_back={"status": ResultsArchive.Status.QUEUED, "progress": 0}, give_up=_give_up)


def counted_runs(phase: Phase):
    """Every run the archive records (runs.json): scored, not disqualified, teams' and baselines'."""
    return (phase.submissions.filter(status=Submission.Status.SCORED, disqualified=False)
            .select_related("team", "qrels_release").order_by("is_baseline", "team__name", "number", "pk"))


def released_runs(phase: Phase):
    """The runs the archive holds: scored, not disqualified; a team's only with its consent."""
    return (phase.submissions.filter(status=Submission.Status.SCORED, disqualified=False)
            .filter(Q(is_baseline=True) | Q(release_consent=True, team__isnull=False))
            .select_related("team").order_by("is_baseline", "team__name", "number", "pk"))


@transaction.atomic
def results_archive_create(*, phase: Phase, actor) -> ResultsArchive:
    """A new archive of `phase`, queued for a worker; the one queued or building, if any."""
    if not FrozenSnapshot.objects.filter(phase=phase).exists():
        raise ArchiveRefused(f"{phase.name} has no frozen official results yet: the archive is built from "
                             f"them, once they are public.")
    locked(Phase.objects).get(pk=phase.pk)  # two clicks at once make one archive (lock order: the phase, 3)
    pending = phase.results_archives.filter(status__in=[ResultsArchive.Status.QUEUED, ResultsArchive.Status.BUILDING])
    if (existing := pending.first()) is not None:
        return existing
    number = (phase.results_archives.aggregate(n=Max("number"))["n"] or 0) + 1
    archive = ResultsArchive.objects.create(phase=phase, number=number, created_by=actor)
    job_enqueue(RESULTS_ARCHIVE, [archive.pk])
    return archive


def results_archive_build(*, archive_id: int) -> str:
    """Build the archive (see the module docstring): "done", "failed", "skipped" (gone, done,
    or held by a live worker), "waiting" (its phase is being re-scored: the runs it would
    hold are in the queue; sent again when the step is published, leaderboards/rescoring.py)
    or "lost-claim" (another worker took it over meanwhile)."""
    claim = job_claim(RESULTS_ARCHIVE, archive_id)
    if claim is None:
        return "skipped"
    phase_id = ResultsArchive.objects.values_list("phase_id", flat=True).get(pk=archive_id)
    if (progress := step_progress(phase_id)) is not None:
        claim.update(status=ResultsArchive.Status.QUEUED, progress=0, attempts=F("attempts") - 1,
                     status_reason=f"Waits for the phase's re-scoring ({progress.done} of {progress.total} runs).")
        return "waiting"
    with claim.heartbeat():
        return _build(claim)


def results_archives_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Builds whose worker went silent queued again, lost messages sent again (beat)."""
    return job_sweep(RESULTS_ARCHIVE, now=now)


Opener = Callable[[], Iterable[bytes]]


def _text(text: str) -> Opener:
    return lambda: [text.encode("utf-8")]


def _stored(field) -> Opener:
    def chunks() -> Iterator[bytes]:
        with field.open("rb") as stored:
            while chunk := stored.read(CHUNK):
                yield chunk
    return chunks


def _uploaded(run_file: RunFile) -> Opener:
    return lambda: uploaded_chunks(run_file)


def _safe(name: str) -> str:
    """A path part from a name someone typed: no separators, no dots leading up."""
    return re.sub(r"[^\w.+-]+", "_", name).strip("._") or "_"


def _members(archive: ResultsArchive, snapshot: FrozenSnapshot, url: str) -> Iterator[tuple[str, Opener]]:
    """(path in the zip, its bytes) of every file but the manifest, in order."""
    phase = archive.phase
    data = json.loads(snapshot.json)
    codes = [s["code"] for s in data["subsets"]]
    # A systems phase's run files were written from its hidden topics (a run tag may carry a query):
    # their records and scores are in runs.json, their bytes stay the organizers'.
    runs = [] if phase.is_systems else list(released_runs(phase))
    counted = list(counted_runs(phase))
    yield "README.md", _text(readme(archive, snapshot, data, runs=len(runs), url=url, counted=len(counted)))
    yield "CITATION.bib", _text(bibtex(archive, url=url))
    yield "results/official.csv", _text(snapshot.csv)
    yield "results/official.json", _text(snapshot.json)
    fields = [f["name"] for f in data.get("metadata_fields", [])]
    for table in TABLES:
        for fmt in FORMATS:
            yield f"results/tables/{table}.{fmt}", _text(paper_table(snapshot, table=table, fmt=fmt, metadata=fields))
    for qrels in (QrelsFile.objects.filter(release__phase=phase, subset__code__in=codes)
                  .select_related("release", "subset").order_by("release__number", "subset__position")):
        yield f"qrels/v{qrels.release.number}/{qrels.subset.code}/{_safe(qrels.original_name)}", _stored(qrels.file)
    # A systems phase's topics stay its organizers' (cupboard/systems/): its systems are there instead.
    for topics in TopicSet.objects.filter(phase=phase, subset__code__in=codes, phase__kind=Phase.Kind.RUNS) \
            .select_related("subset"):
        yield f"topics/{topics.subset.code}/{_safe(topics.original_name)}", _stored(topics.file)
    files: dict[int, list[RunFile]] = {}
    for run_file in (RunFile.objects.filter(submission__in=counted, subset__code__in=codes)
                     .select_related("subset").order_by("subset__position")):
        files.setdefault(run_file.submission_id, []).append(run_file)
    yield "runs/runs.json", _text(_runs_json(counted, files, snapshot, codes, released={run.pk for run in runs}))
    for run in runs:
        for run_file in files.get(run.pk, []):
            if run_file.file:
                yield _run_path(run, run_file), _uploaded(run_file)
    yield from systems_members(phase, text=_text, stored=_stored)


def _run_path(run: Submission, run_file: RunFile) -> str:
    owner = "baselines" if run.is_baseline else _safe(run.team.name)
    return f"runs/{owner}/{run.number}-{_safe(run.method_name)}/{run_file.subset.code}/{_safe(run_file.original_name)}"


def _runs_json(runs: list[Submission], files: dict[int, list[RunFile]], snapshot: FrozenSnapshot,
               codes: list[str], *, released: set[int]) -> str:
    """Each run's details, scores and per-topic values ({code: {metric: {qid: value}}}); of the
    subsets the frozen results show only (a surprise language still hidden at the reveal stays
    out, as its files do). A file's path only where the run is released (its bytes are there)."""
    scores: dict[int, dict] = {}
    for submission_id, code, metric, value in Score.objects.filter(submission__in=runs, subset__code__in=codes).values_list(
            "submission_id", "subset__code", "metric", "value"):
        scores.setdefault(submission_id, {}).setdefault(code, {})[metric] = value
    per_topic: dict[int, dict] = {}
    for submission_id, code, values in QueryScores.objects.filter(
            submission__in=runs, subset__code__in=codes).values_list("submission_id", "subset__code", "values"):
        per_topic.setdefault(submission_id, {})[code] = values
    return json_text({"frozen_at": snapshot.frozen_at, "scoring_version": snapshot.scoring_version, "runs": [{
        "team": None if run.is_baseline else run.team.name, "baseline": run.is_baseline, "number": run.number,
        "method": run.method_name, "description": run.description, "paper_url": run.paper_url,
        "code_url": run.code_url, "metadata": run.metadata, "topic_fields": run.topic_fields,
        "judging_priority": run.judging_priority, "submitted_at": run.created_at,
        "qrels_version": run.qrels_release.number if run.qrels_release else None,
        "released": run.pk in released, "scores": scores.get(run.pk, {}), "per_topic": per_topic.get(run.pk, {}),
        "files": [{"subset": rf.subset.code, "path": _run_path(run, rf) if rf.file and run.pk in released else None,
                   "sha256": rf.sha256, "lines": rf.lines} for rf in files.get(run.pk, [])],
    } for run in runs]}, indent=1)


def _write(zipped: zipfile.ZipFile, name: str, chunks: Iterable[bytes]) -> str:
    """Copy one member in chunks; its SHA-256."""
    digest = hashlib.sha256()
    with zipped.open(zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0)), "w", force_zip64=True) as member:
        for chunk in chunks:
            digest.update(chunk)
            member.write(chunk)
    return digest.hexdigest()


def _build(claim: Claim) -> str:
    from cupboard.links import absolute

    archive = ResultsArchive.objects.select_related("phase__competition").get(pk=claim.pk)
    phase = archive.phase
    try:
        snapshot = FrozenSnapshot.objects.get(phase=phase)
        url = absolute(archive_url(archive))
        members = list(_members(archive, snapshot, url))
        with tempfile.TemporaryFile() as spool:
            with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
                manifest = []
                for done, (name, chunks) in enumerate(members, start=1):
                    manifest.append(f"{_write(zipped, name, chunks())}  {name}\n")
                    claim.progress(done, len(members) + 1)
                manifest_sha256 = _write(zipped, MANIFEST, ["".join(manifest).encode()])
            size, sha256 = _digest(spool)
            archive.file.save(archive.filename, File(spool), save=False)
    except Exception as error:  # noqa: BLE001 - whatever broke, the organizer sees why and may build again
        logger.exception("results archive %s failed", claim.pk)
        failed = claim.update(status=ResultsArchive.Status.FAILED, progress=0,
                              status_reason=f"{type(error).__name__}: {error}"[:2000])
        return "failed" if failed else "lost-claim"
    runs = released_runs(phase).count()
    if not claim.update(status=ResultsArchive.Status.DONE, progress=100, file=archive.file.name, size=size,
                        scoring_version=scoring_version(phase),
                        sha256=sha256, manifest_sha256=manifest_sha256, files=len(members), runs=runs,
                        finished_at=timezone.now(), status_reason=""):
        archive.file.delete(save=False)  # the worker that took over stores its own
        return "lost-claim"
    audit_record(competition=phase.competition, actor=archive.created_by, action=AuditEvent.Action.RESULTS_ARCHIVED,
                 is_public=True, summary=f"Results archive v{archive.number} of {phase.name} published ({runs} runs, "
                                         f"{len(members)} files): zip sha256 {sha256}",
                 details={"phase": phase.slug, "phase_id": phase.pk, "number": archive.number, "sha256": sha256,
                          "manifest_sha256": manifest_sha256, "size": size})
    return "done"


def _digest(spool) -> tuple[int, str]:
    spool.seek(0)
    digest, size = hashlib.sha256(), 0
    while chunk := spool.read(CHUNK):
        digest.update(chunk)
        size += len(chunk)
    spool.seek(0)
    return size, digest.hexdigest()


def archive_url(archive: ResultsArchive) -> str:
    from django.urls import reverse

    phase = archive.phase
    return reverse("leaderboards:archive_download", args=[phase.competition.slug, phase.slug, archive.number])
