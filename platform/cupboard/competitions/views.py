"""Competition pages: list, detail, downloads of topics and (revealed) qrels, commitments.

What a viewer may see is their `Viewer`'s answer (competitions/viewer.py); downloads that
are unknown, hidden or not yet public all answer the same 404.
"""
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_safe

from cupboard.competitions import selectors
from cupboard.competitions.access import competition_viewer, phase_viewer
from cupboard.competitions.definition_edits import may_create_competition
from cupboard.competitions.models import Competition
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.competitions.pages import page_links, render_markdown
from cupboard.competitions.viewer import viewer_for


def _serve(stored_file, name: str) -> FileResponse:
    return FileResponse(stored_file.open("rb"), as_attachment=True, filename=name, content_type="text/plain")


@anonymous_cached("site")
@require_GET
def competition_list(request):
    """The competitions this viewer sees: published ones; drafts for their organizers."""
    competitions = Competition.objects.prefetch_related("organizers").order_by("-starts_at")
    shown = [c for c in competitions if viewer_for(request, c).sees_competition]
    return render(request, "competitions/list.html", {"competitions": shown,
                                                      "may_create": may_create_competition(request.user)})


@anonymous_cached()
@require_GET
def competition_detail(request, slug: str):
    """Description, metrics, phases with their windows, groups and subsets, downloads.
    Hidden groups appear only as "N surprise languages, announced on DATE"."""
    viewer = competition_viewer(request, slug)
    return render(request, "competitions/detail.html", {
        "competition": viewer.competition, "now": viewer.now, "viewer": viewer,
        "is_organizer": viewer.is_organizer, "groups": viewer.groups(), "hidden_groups": viewer.hidden_groups,
        "phases": selectors.phase_downloads(viewer), "team": viewer.team, "pages": page_links(viewer.competition),
        "ranking": selectors.ranking_rule(viewer),
        # Markdown, as its pages: a YAML block's wrapped lines are one paragraph (linebreaks
        # broke DuReader's sentence after "two").
        "description": render_markdown(viewer.competition.description),
    })


@anonymous_cached()
@require_safe
def topics_download(request, slug: str, phase_slug: str, code: str, variant: str | None = None):
    """A phase's topics for one subset, as published: one topic variant's (English or native
    queries), by default the default one; 404 alike for unknown and hidden."""
    viewer, phase = phase_viewer(request, slug, phase_slug)
    topic_set = selectors.downloadable_topic_set(viewer, phase, code=code, variant=variant)
    if topic_set is None:
        raise Http404("No such topics file")
    response = _serve(topic_set.file, versioned_name(topic_set))
    response["X-Topics-Version"] = str(topic_set.version)
    return response


def versioned_name(topic_set) -> str:
    """The published name, with the topics version after the first (`topics.x-fi.v2.tsv`): a
    team holding two downloads can tell which queries each has."""
    if topic_set.version <= 1:
        return topic_set.original_name
    stem, dot, suffix = topic_set.original_name.rpartition(".")
    return f"{stem}.v{topic_set.version}.{suffix}" if dot else f"{suffix}.v{topic_set.version}"


@require_safe
def qrels_download(request, slug: str, phase_slug: str, number: int, code: str):
    """One version of a subset's judgments: organizers always, anyone once the phase's
    qrels are public. Hidden test-B judgments before the reveal: the same 404 as nonsense."""
    viewer, phase = phase_viewer(request, slug, phase_slug)
    qrels_file = selectors.downloadable_qrels_file(viewer, phase, number=number, code=code)
    if qrels_file is None:
        raise Http404("No such qrels file")
    return _serve(qrels_file.file, qrels_file.original_name)


@anonymous_cached()
@require_GET
def commitments(request, slug: str):
    """SHA-256 of every hidden qrels file from the competition's start, so anyone can later
    check that the judgments did not change mid-competition. Read-only: the rows are derived
    live from the files; the audit events are written by the beat task publish_due_events."""
    viewer = competition_viewer(request, slug)
    return render(request, "competitions/commitments.html", {
        "competition": viewer.competition, "rows": selectors.commitments(viewer),
        "started": viewer.now >= viewer.competition.starts_at})
