"""The runner's side: one execution, from the stored image to the team's submission.

An execution is a job of the engine (kind.py `EXECUTION`): the runner claims the row with a
fencing token, beats while the sandbox runs, and writes its record and outcome only while the
claim holds. The image is unpacked (images.py) into a private folder, the phase's topics are
written beside it (inputs.py), and the sandbox (sandbox.py) runs the image's command with its
limits. What the system wrote to /output goes through the very code an upload goes through
(`submissions.services.submission_from_system`): the same validation, the same scoring, the
same board. The submission and the execution's outcome are one transaction, so a runner killed
at any point leaves either both or neither, and the execution simply runs again.

What the team reads never holds the topics: the sandbox redacts them from the log tail, and a
refusal of the output names each problem by its code and place only, as a run line a system
wrote could carry a query in any column.
"""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

from django.core.files import File
from django.db import transaction
from django.utils import timezone

from cupboard.jobs import Claim, job_claim
from cupboard.outages import OUTAGES
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.services import submission_from_system

from .inputs import as_record, corpus_dir, limits_now, output_runs, topics_write
from .kind import EXECUTION
from .models import Execution, System
from .scratch import scratch_folder

logger = logging.getLogger(__name__)

# What a team reads for each limit the sandbox stopped a system at (sandbox.Execution.stopped_for).
STOPPED_FOR = {
    "time": "it used all of its {cpu_seconds} CPU seconds",
    "wall": "it ran longer than {wall_seconds} seconds",
    "memory": "it used more than its {memory_mib} MiB of memory",
    "output": "it wrote more than {output_mib} MiB",
    "processes": "it started more than {processes} processes",
}
PROBLEMS_SHOWN = 10


class _LostClaim(Exception):
    """The claim was taken over while the output was stored: roll the submission back."""


def execution_run(*, execution_id: int) -> str:
    """Run one execution by id (the Celery task's body). Returns what happened, for logs and
    tests: "skipped" (done, or held by a live runner), "done", "refused", "stopped", "failed",
    "queued" (an outage: it runs again) or "lost-claim"."""
    claim = job_claim(EXECUTION, execution_id)
    if claim is None:
        return "skipped"
    from .sandbox import SandboxUnavailable

    with claim.heartbeat():
        try:
            return _run_claimed(claim)
        except SandboxUnavailable as error:  # the runner host's problem, never the team's: another runner may do
            logger.error("execution %s: this runner cannot run sandboxes: %s", execution_id, error)
            changed = claim.update(status=Execution.Status.QUEUED, queued_at=timezone.now(),
                                   status_reason="The runner could not start a sandbox; queued for another runner.")
            return "queued" if changed else "lost-claim"
        except OUTAGES as error:
            logger.warning("execution %s waits out an outage: %s", execution_id, type(error).__name__)
            changed = claim.update(status=Execution.Status.QUEUED, queued_at=timezone.now(),
                                   status_reason=f"Storage or database unreachable ({type(error).__name__}); "
                                                 "queued to run again.")
            return "queued" if changed else "lost-claim"


def _run_claimed(claim: Claim) -> str:
    from .images import ImageRefused
    from .sandbox import Limits, run_system

    execution = Execution.objects.select_related("system__phase__competition", "system__team",
                                                 "system__submitted_by").get(pk=claim.pk)
    system = execution.system
    limits = Limits(**limits_now())
    folder = scratch_folder()  # the folders of runners killed before their cleanup removed first
    try:
        try:
            image = _unpacked(system, folder)
        except ImageRefused as refused:
            return _finish(claim, Execution.Status.FAILED, f"The image was refused: {refused}")
        topics = topics_write(phase=system.phase, user=system.submitted_by, folder=folder / "topics")
        if not topics.hashes:
            return _finish(claim, Execution.Status.FAILED, f"{system.phase.name} has no topics yet to run it on.")
        claim.update(image_sha256=image.sha256, command=list(image.command), limits=as_record(limits),
                     topics=topics.hashes, started_at=timezone.now())
        output = folder / "output"
        output.mkdir()
        result = run_system(image, topics_dir=folder / "topics", corpus_dir=corpus_dir(system.phase),
                            output_dir=output, limits=limits, secrets=topics.queries)
        runs, files, overall = output_runs(output, list(topics.hashes))
        measured = {"exit_code": result.exit_code, "stopped_for": result.stopped_for or "",
                    "cpu_seconds": result.cpu_seconds, "max_rss_bytes": result.max_rss_bytes,
                    "wall_seconds": result.wall_seconds, "log_tail": result.log_tail, "output_files": files,
                    "output_sha256": overall}
        stopped = _stopped_reason(result, limits)
        if stopped:
            return _finish(claim, Execution.Status.STOPPED, stopped, **measured)
        if not runs:
            return _finish(claim, Execution.Status.REFUSED,
                           f"It wrote no run: /output/<code>.trec was expected for {', '.join(topics.hashes)}.",
                           **measured)
        if execution.reason == Execution.Reason.DETERMINISM:
            return _finish(claim, Execution.Status.DONE, "", **measured)
        return _store(claim, execution, runs, measured)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _unpacked(system: System, folder: Path):
    """The image's layers unpacked under `folder` (a copy of the stored tar first: storage may
    have no paths)."""
    from django.conf import settings

    from .images import unpack_image

    tar = folder / "image.tar"
    with system.image.open("rb") as stored, open(tar, "wb") as out:
        shutil.copyfileobj(stored, out, 1024 * 1024)
    try:
        return unpack_image(tar, folder / "image", max_bytes=settings.CUPBOARD_SYSTEM_UNPACKED_MAX_BYTES)
    finally:
        tar.unlink(missing_ok=True)


def _stopped_reason(result, limits) -> str:
    """Why it stopped, in the team's words; "" when it finished on its own with exit code 0."""
    if result.stopped_for:
        words = STOPPED_FOR.get(result.stopped_for, "it hit the {what} limit").format(
            what=result.stopped_for, memory_mib=limits.memory_bytes // 2 ** 20,
            output_mib=limits.output_bytes // 2 ** 20, **{k: getattr(limits, k) for k in
                                                          ("cpu_seconds", "wall_seconds", "processes")})
        return f"Stopped: {words}."
    if result.exit_code != 0:
        return f"Its command exited with code {result.exit_code}; see the end of its log."
    return ""


def _finish(claim: Claim, status: str, reason: str, **fields) -> str:
    changed = claim.update(status=status, status_reason=reason[:2000], finished_at=timezone.now(), **fields)
    return status if changed else "lost-claim"


def _store(claim: Claim, execution: Execution, runs: dict[str, Path], measured: dict) -> str:
    """The output as the team's submission and the execution done, in one transaction: the
    team's row is locked by the submission (5), then the execution's is written (its claim)."""
    system = execution.system
    handles = {code: open(path, "rb") for code, path in runs.items()}  # noqa: SIM115 - closed below
    try:
        with transaction.atomic():
            submission = submission_from_system(
                phase=system.phase, team=system.team, user=system.submitted_by,
                files=[(File(handle, name=f"{code}.trec"), code) for code, handle in handles.items()],
                method_name=system.method_name, description=system.description,
                release_consent=system.release_consent)
            linked = None if submission.is_repeat else submission
            reason = f"Its runs repeat submission #{submission.number}, already stored." if linked is None else ""
            if not claim.update(status=Execution.Status.DONE, submission=linked, status_reason=reason,
                                finished_at=timezone.now(), **measured):
                raise _LostClaim
    except _LostClaim:
        return "lost-claim"
    except SubmissionRefused as refused:
        return _finish(claim, Execution.Status.REFUSED, refusal_words(refused), **measured)
    finally:
        for handle in handles.values():
            handle.close()
    return Execution.Status.DONE


def refusal_words(refused: SubmissionRefused) -> str:
    """A refused output, as the team reads it: each problem's code and place, no message (a
    message may quote the line, and the line is the system's, written from the hidden topics)."""
    problems = list(refused.problems)
    if not problems:
        return f"Its runs were refused ({refused.code})."
    shown = "; ".join(f"{p.where} {p.code}" for p in problems[:PROBLEMS_SHOWN])
    more = f"; and {len(problems) - PROBLEMS_SHOWN} more" if len(problems) > PROBLEMS_SHOWN else ""
    return f"Its runs were refused by the run validation an upload gets: {shown}{more}."
