"""Reads for the system pages: a phase's systems as the viewer may list them, an execution as
its team reads it, and the determinism checks' verdicts."""
from __future__ import annotations

from cupboard.competitions.models import Phase
from cupboard.competitions.viewer import Viewer

from .models import Execution, System


def phase_systems(viewer: Viewer, phase: Phase) -> list[System]:
    """The team's systems in the phase, newest first; every system for organizers."""
    systems = System.objects.filter(phase=phase).select_related("team").prefetch_related("executions")
    if viewer.is_organizer:
        return list(systems)
    if viewer.team is None:
        return []
    return list(systems.filter(team=viewer.team))


def execution_payload(execution: Execution) -> dict:
    """An execution as its team reads it (page and JSON): nothing in it comes from the topics."""
    return {
        "id": execution.pk, "reason": execution.reason, "reason_words": execution.get_reason_display(),
        "status": execution.status, "status_reason": execution.status_reason, "attempts": execution.attempts,
        "submission": execution.submission_id, "exit_code": execution.exit_code,
        "stopped_for": execution.stopped_for or None, "cpu_seconds": execution.cpu_seconds,
        "max_rss_mib": None if execution.max_rss_bytes is None else round(execution.max_rss_bytes / 2 ** 20, 1),
        "wall_seconds": execution.wall_seconds, "log_tail": execution.log_tail,
        "image_sha256": execution.image_sha256, "command": execution.command, "limits": execution.limits,
        "topics": execution.topics, "output_sha256": execution.output_sha256,
        "queued_at": execution.created_at.isoformat() if execution.created_at else None,
        "started_at": execution.started_at.isoformat() if execution.started_at else None,
        "finished_at": execution.finished_at.isoformat() if execution.finished_at else None,
    }


def determinism_rows(executions: list[Execution]) -> list[dict]:
    """Each determinism check: its two executions and whether their outputs were the same
    (None until both are done)."""
    by_pk = {e.pk: e for e in executions}
    rows = []
    for second in executions:
        first = by_pk.get(second.compared_with_id) if second.compared_with_id else None
        if first is None:
            continue
        both = first.status == second.status == Execution.Status.DONE
        rows.append({"first": first.pk, "second": second.pk,
                     "same": (first.output_sha256 == second.output_sha256) if both else None,
                     "hashes": (first.output_sha256, second.output_sha256)})
    return rows
