"""The judging cycle, played once in the demo: the organizer pools the Cup's development
runs of the top POOLED_TEAMS teams and the baselines, "assessors" judge the pool (a seeded coin: a pooled document is relevant with
probability RELEVANT_SHARE, as pooled documents of a real round often are not), the judgments
come back as qrels v2, every run is scored again, and a second pool is built on v2. So the
pool page shows two pools with data and unique-relevant counts, and v2's "what changed"
shows teams moving; the other teams' runs stay less judged (a lower Judged@10, and on their
pages the warning that their scores are a lower bound where it is far below the baselines').

Through the same services as the pages and the worker; scored in-process like the rest of
the demo, so nothing waits for a worker when the server starts.
"""
from __future__ import annotations

import io
import random
import zipfile
from collections.abc import Callable

from django.db import transaction

from cupboard.competitions.models import Phase, QrelsFile
from cupboard.competitions.selectors import current_qrels_release, qrels_files
from cupboard.competitions.services import qrels_release_create
from cupboard.judging.pools import pool_export_build, pool_export_create
from cupboard.leaderboards.services import leaderboards_retested_once
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score

RELEVANT_SHARE = 0.15
POOL_DEPTH = 10
POOLED_TEAMS = 2


def demo_judging_cycle(*, phase: Phase, organizer, seed: int, log: Callable[[str], None]) -> None:
    """Pool, judge, release v2, re-score, pool again (see the module docstring)."""
    with transaction.atomic():
        first = _pool(phase, organizer, selection="top", top_teams=POOLED_TEAMS)
        judged = _judged_pool(first, phase, seed)
        release = qrels_release_create(phase=phase, files=judged, actor=organizer,
                                       names={code: f.original_name for code, f in
                                              _current_files(phase).items() if code in judged},
                                       note=f"demo: the assessors judged pool #{first.number}")
    rescore_in_process(phase)
    second = _pool(phase, organizer)
    documents = sum(c["documents"] for c in first.counts)
    log(f"{phase}: pool #{first.number} ({documents} documents) judged as qrels v{release.number}, runs scored again; "
        f"pool #{second.number} left {sum(c['documents'] for c in second.counts)} to judge")


def _pool(phase: Phase, organizer, **choice):
    export = pool_export_create(phase=phase, actor=organizer, depth=POOL_DEPTH, **choice)
    pool_export_build(export_id=export.pk)
    export.refresh_from_db()
    return export


def _current_files(phase: Phase) -> dict[str, QrelsFile]:
    release = current_qrels_release(phase)
    return qrels_files(release) if release else {}


def _judged_pool(export, phase: Phase, seed: int) -> dict[str, bytes]:
    """{subset code: the current qrels file plus a judgment of every pooled document}."""
    rng = random.Random(seed)
    current = _current_files(phase)
    files = {}
    with export.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as archive:
        for count in export.counts:
            code = count["code"]
            rows = _rows(archive, export, code)
            with current[code].file.open("rb") as old:
                text = old.read().decode()
            added = "".join(f"{qid}\tQ0\t{docid}\t{int(rng.random() < RELEVANT_SHARE)}\n" for qid, _, docid in rows)
            files[code] = (text if text.endswith("\n") else text + "\n").encode() + added.encode()
    return files


def _rows(archive, export, code: str) -> list[list[str]]:
    from cupboard.judging.pools import pool_file_name

    return [line.split("\t") for line in archive.read(pool_file_name(export, code)).decode().splitlines()[1:]]


def rescore_in_process(phase: Phase) -> None:
    """Score again, here and now, every run not yet scored with the phase's current judgments
    (the release's own re-scoring has queued them already, unless its commit hook did not run)."""
    release = current_qrels_release(phase)
    stale = Submission.objects.filter(phase=phase, status__in=(Submission.Status.SCORED, Submission.Status.QUEUED)) \
        .exclude(qrels_release=release)
    ids = list(stale.values_list("pk", flat=True))
    Submission.objects.filter(pk__in=ids, status=Submission.Status.SCORED).update(
        status=Submission.Status.QUEUED, attempts=0, progress=0)
    with leaderboards_retested_once():  # the board's bands once, when all are scored again
        for pk in ids:
            submission_score(submission_id=pk)
