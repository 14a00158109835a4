"""A final phase's results page: the frozen official results, the overview paper's tables
and the results archive with its citation.

Everything here comes from the frozen snapshot, so nothing exists before the reveal: the
page, the tables and the archives answer 404 to anyone while `official_snapshot` says the
viewer may not see the results (nobody before the reveal: there is no snapshot yet).
Building an archive is the organizers' (POST)."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST, require_safe

from cupboard.competitions.access import organizer_phase, phase_viewer
from cupboard.leaderboards.archive import ArchiveRefused, archive_url, results_archive_create
from cupboard.leaderboards.archive_text import bibtex, citation
from cupboard.leaderboards.models import FrozenSnapshot, ResultsArchive
from cupboard.leaderboards.paper_tables import FORMATS, TABLES, TableError, paper_table, table_content
from cupboard.leaderboards.snapshots import official_snapshot
from cupboard.links import absolute

CONTENT_TYPES = {"tex": "application/x-tex; charset=utf-8", "md": "text/markdown; charset=utf-8"}


def _get_results_for_user(request, slug: str, phase_slug: str):
    """The viewer, the phase and its frozen snapshot (whole); 404 while the viewer may not see them."""
    viewer, phase = phase_viewer(request, slug, phase_slug)
    if official_snapshot(phase, viewer) is None:
        raise Http404("No official results of this phase")
    return viewer, phase, FrozenSnapshot.objects.get(phase=phase)


@require_safe
def results(request, slug: str, phase_slug: str):
    """The official results' files, the paper's tables (a preview, downloads with the run
    metadata columns picked by `?meta=<name>`), and the archives with their citation."""
    viewer, phase, snapshot = _get_results_for_user(request, slug, phase_slug)
    chosen = request.GET.getlist("meta")
    try:
        preview = table_content(snapshot, table="averages", metadata=chosen)
    except TableError as error:
        return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")
    archives = list(phase.results_archives.all())
    latest = next((a for a in archives if a.status == ResultsArchive.Status.DONE), None)
    url = absolute(archive_url(latest)) if latest else ""
    return render(request, "leaderboards/results.html", {
        "phase": phase, "competition": phase.competition, "snapshot": snapshot, "preview": preview,
        "fields": preview_fields(snapshot, chosen), "query": request.GET.urlencode(),
        "tables": [(table, fmt) for table in TABLES for fmt in FORMATS], "organizer": viewer.is_organizer,
        "archive": latest, "archive_url": url, "pending": next((a for a in archives if a.status in (
            ResultsArchive.Status.QUEUED, ResultsArchive.Status.BUILDING)), None),
        "failed": archives[0] if archives and archives[0].status == ResultsArchive.Status.FAILED else None,
        "citation": citation(latest, url=url) if latest else "", "bibtex": bibtex(latest, url=url) if latest else "",
    })


def preview_fields(snapshot: FrozenSnapshot, chosen: list[str]) -> list[tuple[str, str, bool]]:
    """(name, label, chosen) of the run metadata fields frozen with the results."""
    import json

    return [(f["name"], f["label"], f["name"] in chosen) for f in json.loads(snapshot.json).get("metadata_fields", [])]


@require_safe
def table_download(request, slug: str, phase_slug: str, table: str, fmt: str):
    """One of the paper's tables as LaTeX or Markdown, with the `?meta=` columns, `?metric=` and the
    score columns chosen by `?column=` (measures of the `measures` table, subsets, averages)."""
    _, phase, snapshot = _get_results_for_user(request, slug, phase_slug)
    if table not in TABLES or fmt not in FORMATS:
        raise Http404("No such table")
    try:
        text = paper_table(snapshot, table=table, fmt=fmt, metadata=request.GET.getlist("meta"),
                           metric=request.GET.get("metric") or None, columns=request.GET.getlist("column"))
    except TableError as error:
        return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")
    response = HttpResponse(text, content_type=CONTENT_TYPES[fmt])
    response["Content-Disposition"] = content_disposition_header(True, f"{slug}-{phase_slug}-{table}.{fmt}")
    return response


@login_required
@require_POST
def archive_build(request, slug: str, phase_slug: str):
    """Queue a new build of the phase's results archive (organizers)."""
    phase = organizer_phase(request, slug, phase_slug)
    try:
        archive = results_archive_create(phase=phase, actor=request.user)
    except ArchiveRefused as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Results archive v{archive.number} is being built.")
    return redirect("leaderboards:results", slug, phase_slug)


@require_safe
def archive_download(request, slug: str, phase_slug: str, number: int):
    """A built archive, streamed from storage; its address never serves other bytes."""
    _, phase, _ = _get_results_for_user(request, slug, phase_slug)
    archive = get_object_or_404(ResultsArchive, phase=phase, number=number, status=ResultsArchive.Status.DONE)
    archive.phase = phase
    return FileResponse(archive.file.open("rb"), as_attachment=True, filename=archive.filename,
                        content_type="application/zip")
