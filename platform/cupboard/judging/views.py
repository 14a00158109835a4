"""Pages of the judging cycle. A phase's public Judged@10 page (for everyone, with its table
once the judgments and leaderboard are public: `judged.sees_phase_judged`), and the
organizer's: the pool page (Judged@10 of every counted run, pool exports with their progress
and files, the pool-contribution table) and a qrels release's "what changed". Those are in
the organizer area: anyone but the competition's organizers and staff gets its 404."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_POST, require_safe

from cupboard.charts import as_html
from cupboard.competitions.access import organizer_phase, phase_viewer
from cupboard.competitions.models import QrelsRelease
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.competitions.selectors import ALL, AVG_LABEL
from cupboard.competitions.viewer import viewer_for

from .charts import changes_figure, judged_figure, unique_figure
from .forms import PoolExportForm
from .judged import JUDGED_DECIMALS, phase_judged, sees_phase_judged
from .models import JUDGED_METRIC, PoolExport, ReleaseStandings
from .pools import pool_export_create, pool_file_name, pool_member
from .standings import changes, release_changes


def _contribution_table(export: PoolExport | None) -> dict | None:
    """The pool-contribution table of a built export, pivoted: a row per team (all its runs
    together; each baseline alone), a (unique, relevant) cell per language, and the totals."""
    if export is None or not export.contributions:
        return None
    codes = list(dict.fromkeys(c["code"] for c in export.contributions))
    cells: dict[str, dict[str, dict]] = {}
    for c in export.contributions:
        cells.setdefault(c["group"], {})[c["code"]] = c
    rows = [{"group": group, "cells": [by_code.get(code) for code in codes],
             "unique": sum(c["unique"] for c in by_code.values()), "relevant": sum(c["relevant"] for c in by_code.values())}
            for group, by_code in cells.items()]
    rows.sort(key=lambda r: (-r["unique"], r["group"]))
    return {"export": export, "codes": codes, "rows": rows}


def _pool_page(request, phase, form, *, status=200):
    viewer = viewer_for(request, phase.competition)
    table = phase_judged(phase, viewer)
    exports = list(phase.pool_exports.select_related("created_by", "qrels_release")[:10])
    latest = next((e for e in exports if e.status == PoolExport.Status.DONE), None)
    codes = [s.code for s in table["subsets"]]
    unique = _contribution_table(latest)
    releases = (phase.qrels_releases.order_by("-number")
                .filter(pk__in=ReleaseStandings.objects.values("release_id")))
    return render(request, "judging/pool.html", {
        "competition": phase.competition, "phase": phase, "form": form, "judged": table, "codes": codes,
        "metric": JUDGED_METRIC, "exports": exports, "unique": unique, "releases": releases,
        "unique_charts": as_html([unique_figure(unique)]),
        "pending": any(e.is_pending for e in exports),
        "charts": as_html([judged_figure(table, decimals=JUDGED_DECIMALS)])}, status=status)


@anonymous_cached()
@require_GET
def phase_judged_page(request, slug: str, phase_slug: str):
    """Judged@10 of every run on a phase's leaderboard, per language (table and heatmap), for
    anyone once the phase's judgments and leaderboard are public; until then it says when."""
    viewer, phase = phase_viewer(request, slug, phase_slug)
    visible = sees_phase_judged(viewer, phase)
    table = phase_judged(phase, viewer) if visible else {"subsets": [], "rows": []}
    return render(request, "judging/judged.html", {
        "competition": phase.competition, "phase": phase, "visible": visible, "judged": table,
        "codes": [s.code for s in table["subsets"]], "metric": JUDGED_METRIC, "organizer": viewer.is_organizer,
        "public_from": phase.reveal_at if phase.hidden_qrels or not phase.is_revealed(viewer.now) else None,
        "frozen_until": phase.thaws_at() if viewer.frozen_since(phase) else None,
        "charts": as_html([judged_figure(table, decimals=JUDGED_DECIMALS)]) if visible else []})


@login_required
@require_GET
def pool(request, slug: str, phase_slug: str):
    """Judged@10 per counted run and subset, the pool exports (reloading while one is built),
    and which team's runs alone found relevant documents."""
    phase = organizer_phase(request, slug, phase_slug)
    return _pool_page(request, phase, PoolExportForm())


@login_required
@require_POST
def pool_create(request, slug: str, phase_slug: str):
    """Queue a pool export of the chosen runs; the worker builds it while the page shows progress."""
    phase = organizer_phase(request, slug, phase_slug)
    form = PoolExportForm(request.POST)
    if not form.is_valid():
        return _pool_page(request, phase, form, status=400)
    export = pool_export_create(phase=phase, actor=request.user, **form.cleaned_data)
    messages.success(request, f"Pool #{export.number} of {len(export.submission_ids)} run(s) at depth {export.depth} "
                              "is being built.")
    return redirect("judging:pool", slug, phase_slug)


def _get_export(request, slug: str, phase_slug: str, number: int) -> PoolExport:
    phase = organizer_phase(request, slug, phase_slug)
    export = get_object_or_404(PoolExport.objects.select_related("phase__competition"), phase=phase, number=number)
    if export.status != PoolExport.Status.DONE:
        raise Http404("This pool is not built (yet).")
    return export


@login_required
@require_safe
def pool_zip(request, slug: str, phase_slug: str, number: int):
    """Every subset's pool of a built export, one TSV each, in a zip."""
    export = _get_export(request, slug, phase_slug, number)
    with export.file.open("rb") as stored:
        response = HttpResponse(stored.read(), content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(True, f"pool-{slug}-{phase_slug}-{number}.zip")
    return response


@login_required
@require_safe
def pool_tsv(request, slug: str, phase_slug: str, number: int, code: str):
    """One subset's pool of a built export: `qid`, query text, `docid` per line, after a header."""
    export = _get_export(request, slug, phase_slug, number)
    content = pool_member(export, code)
    if content is None:
        raise Http404("No pool for this subset.")
    response = HttpResponse(content, content_type="text/tab-separated-values; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, pool_file_name(export, code))
    return response


def _judgment_rows(found, codes: list[str]) -> list[dict]:
    """Per subset the release changed: new, flipped (total and by kind) and dropped; a
    release kept before flips and drops were counted shows its new judgments only."""
    rows = []
    for code in codes:
        if code in found.judgment_changes:
            moved = found.judgment_changes[code]
            rows.append({"code": code, "new": moved["new"], "dropped": moved["dropped"],
                         "flipped": sum(moved["flipped"].values()), "kinds": moved["flipped"].items()})
        elif code in found.new_judgments:
            rows.append({"code": code, "new": found.new_judgments[code], "dropped": None, "flipped": None, "kinds": ()})
    return rows


@login_required
@require_GET
def qrels_changes(request, slug: str, phase_slug: str, number: int):
    """What qrels v<number> changed: per team, score and rank before and after on the chosen
    column (?column=<subset code>, default the average), with the new, flipped and dropped
    judgments per subset."""
    phase = organizer_phase(request, slug, phase_slug)
    release = get_object_or_404(QrelsRelease, phase=phase, number=number)
    found = release_changes(release)
    if found is None:
        raise Http404("Nothing was kept of the leaderboard before this version (the phase's first judgments).")
    viewer = viewer_for(request, phase.competition)
    columns = [(ALL, AVG_LABEL)] + [(s.code, s.code) for s in viewer.subsets if s.code in found.new_judgments
                                or any(s.code in r["values"] for r in found.before)]
    column = request.GET.get("column", ALL)
    if column not in dict(columns):
        raise Http404("No such column.")
    rows = changes(found.before, found.after, column)
    metric = phase.competition.primary_metric
    labels = (f"qrels v{found.previous_number}", f"qrels v{release.number}")
    return render(request, "judging/changes.html", {
        "competition": phase.competition, "phase": phase, "release": release, "found": found, "rows": rows,
        "columns": columns, "column": column, "metric": metric, "labels": labels,
        "judgments": _judgment_rows(found, [code for code, _ in columns]),
        "charts": as_html([changes_figure(rows, metric=metric, labels=labels)])})
