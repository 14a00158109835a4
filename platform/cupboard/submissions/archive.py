"""A phase's runs as one zip for its organizers: every submission's run files (teams' and
baselines', every state, hidden languages too), as their teams uploaded them, under
`<submission id>/<file name>`, and a `manifest.csv` naming each file's submission, team,
method, status, subset and SHA-256 (that of the uploaded bytes, as on the submission's page).

A Cup's test B holds ~1.7 M lines per submission, so the archive is never built whole: the
zip is written to a sink that the response drains after each chunk of a run (zipfile writes
a data descriptor after each member when it cannot seek back), and only the manifest is
held, one short row per file. A run file removed by the retention rule is listed with an
empty file name.
"""
from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

from cupboard.competitions.models import Phase
from cupboard.csvexport import csv_text

from .models import RunFile
from .runfiles import uploaded_chunks

MANIFEST = "manifest.csv"
MANIFEST_COLUMNS = ("submission", "team", "method", "status", "subset", "file", "sha256")


class _Sink(io.RawIOBase):
    """Where zipfile writes; `take()` hands over what was written since the last call. It
    cannot seek, so zipfile streams (sizes and CRC follow each member)."""

    def __init__(self) -> None:
        super().__init__()
        self._chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._chunks.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        data, self._chunks = b"".join(self._chunks), []
        return data


def archive_name(phase: Phase) -> str:
    return f"{phase.competition.slug}-{phase.slug}-runs.zip"


def _member_name(run_file: RunFile) -> str:
    return f"{run_file.submission_id}/{run_file.original_name}"


def _manifest_row(run_file: RunFile) -> list:
    submission = run_file.submission
    team = submission.team.name if submission.team_id else "Baseline"
    return [submission.pk, team, submission.method_name, submission.status, run_file.subset.code,
            _member_name(run_file) if run_file.file else "", run_file.sha256]


def phase_runs_zip(phase: Phase) -> Iterator[bytes]:
    """The zip's bytes, chunk by chunk: the phase's run files by submission (oldest first) and
    subset, then the manifest."""
    run_files = (RunFile.objects.filter(submission__phase=phase).select_related("submission__team", "subset")
                 .order_by("submission__created_at", "submission_id", "subset__position", "subset__code"))
    sink, manifest = _Sink(), [list(MANIFEST_COLUMNS)]
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for run_file in run_files.iterator():
            manifest.append(_manifest_row(run_file))
            if not run_file.file:
                continue
            # force_zip64: the size is not known before the member is written.
            with archive.open(_member_name(run_file), "w", force_zip64=True) as member:
                for chunk in uploaded_chunks(run_file):
                    member.write(chunk)
                    if written := sink.take():  # deflate may hold a chunk back: nothing to send yet
                        yield written
        archive.writestr(MANIFEST, csv_text(manifest))
    yield sink.take()
