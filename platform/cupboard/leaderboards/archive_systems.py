"""A systems phase's part of its results archive (leaderboards/archive.py): its systems.

    systems/systems.json                       every system of the phase: team, method, the image's
                                               SHA-256, and each execution's record (command, limits,
                                               the topics' SHA-256, exit, time, memory, output hash,
                                               the run it became); whether its image is released
    systems/<team>/<number>/<image file>       the image as uploaded, where its team consented

Read through the reverse relations the systems app declares (`phase.systems`,
`system.executions`), never its modules: systems sits on this app's floor. No log tail goes
in (a system wrote it), nor, for a systems phase, the topics (archive.py leaves them out).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from cupboard.competitions.models import Phase
from cupboard.jsonexport import json_text

Opener = Callable[[], Iterable[bytes]]
RECORD = ("reason", "status", "status_reason", "attempts", "image_sha256", "command", "limits", "topics",
          "exit_code", "stopped_for", "cpu_seconds", "max_rss_bytes", "wall_seconds", "output_files",
          "output_sha256", "created_at", "started_at", "finished_at")


def _safe(name: str) -> str:
    return re.sub(r"[^\w.+-]+", "_", name).strip("._") or "_"


def image_path(system) -> str:
    owner = _safe(system.team.name) if system.team_id else "organizers"
    return f"systems/{owner}/{system.number}-{_safe(system.method_name)}/{_safe(system.original_name)}"


def systems_members(phase: Phase, *, text: Callable[[str], Opener], stored: Callable) -> Iterator[tuple[str, Opener]]:
    """(path, bytes) of the phase's systems; nothing for a phase of runs."""
    if not phase.is_systems:
        return
    systems = list(phase.systems.select_related("team").prefetch_related("executions__submission")
                   .order_by("team__name", "number", "pk"))
    yield "systems/systems.json", text(json_text({"systems": [{
        "team": system.team.name if system.team_id else None, "number": system.number,
        "method": system.method_name, "description": system.description, "image_sha256": system.sha256,
        "image_bytes": system.size, "submitted_at": system.created_at, "released": system.release_consent,
        "image": image_path(system) if system.release_consent else None,
        "executions": [{**{name: getattr(execution, name) for name in RECORD},
                        "submission": execution.submission.number if execution.submission else None}
                       for execution in system.executions.order_by("created_at", "pk")],
    } for system in systems]}, indent=1))
    for system in systems:
        if system.release_consent and system.image:
            yield image_path(system), stored(system.image)
