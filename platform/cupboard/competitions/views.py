"""Competition pages: list, detail, downloads of topics and (revealed) qrels, commitments.

Every decision about what a viewer may see of subsets goes through selectors.py, so a
surprise language stays hidden in one place; downloads that are unknown, hidden or not
yet public all answer the same 404.
"""
from django.db.models import Q
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from cupboard.competitions import selectors
from cupboard.competitions.commitments import competition_publish_due
from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.pages import page_links
from cupboard.teams.selectors import user_team


def _get_competition_for_user(request, slug: str) -> Competition:
    """A published competition, or an unpublished one its organizers are preparing; else 404."""
    competition = get_object_or_404(Competition, slug=slug)
    if not selectors.is_competition_visible(competition, user=request.user):
        raise Http404("No such competition")
    return competition


def _get_phase_for_user(request, slug: str, phase_slug: str) -> Phase:
    competition = _get_competition_for_user(request, slug)
    return get_object_or_404(Phase.objects.select_related("competition"), competition=competition, slug=phase_slug)


def _serve(stored_file, name: str) -> FileResponse:
    return FileResponse(stored_file.open("rb"), as_attachment=True, filename=name, content_type="text/plain")


@require_GET
def competition_list(request):
    """Published competitions; organizers also see the ones they are still preparing."""
    shown = Q(is_published=True)
    if request.user.is_authenticated:
        shown |= Q(organizers=request.user) if not request.user.is_staff else Q()
    competitions = Competition.objects.filter(shown).distinct().order_by("-starts_at")
    return render(request, "competitions/list.html", {"competitions": competitions})


@require_GET
def competition_detail(request, slug: str):
    """Description, metrics, phases with their windows, groups and subsets, downloads.
    Hidden groups appear only as "N surprise languages, announced on DATE"."""
    competition = _get_competition_for_user(request, slug)
    now = timezone.now()
    subsets = selectors.visible_subsets(competition, now=now, user=request.user)
    context = {
        "competition": competition, "now": now,
        "is_organizer": competition.is_organizer(request.user),
        "groups": _visible_groups(subsets),
        "hidden_groups": selectors.hidden_group_notices(competition, now=now, user=request.user),
        "phases": selectors.phase_downloads(competition, now=now, user=request.user),
        "team": user_team(competition=competition, user=request.user),
        "pages": page_links(competition),
    }
    return render(request, "competitions/detail.html", context)


def _visible_groups(subsets) -> list[dict]:
    groups: dict = {}
    for subset in subsets:
        groups.setdefault(subset.group, []).append(subset)
    return [{"group": group, "subsets": members} for group, members in groups.items()]


@require_GET
def topics_download(request, slug: str, phase_slug: str, code: str):
    """A phase's topics for one subset, as published; 404 alike for unknown and hidden."""
    phase = _get_phase_for_user(request, slug, phase_slug)
    topic_set = selectors.downloadable_topic_set(phase, code=code, user=request.user)
    if topic_set is None:
        raise Http404("No such topics file")
    return _serve(topic_set.file, topic_set.original_name)


@require_GET
def qrels_download(request, slug: str, phase_slug: str, number: int, code: str):
    """One version of a subset's judgments: organizers always, anyone once the phase's
    qrels are public. Hidden test-B judgments before the reveal: the same 404 as nonsense."""
    phase = _get_phase_for_user(request, slug, phase_slug)
    qrels_file = selectors.downloadable_qrels_file(phase, number=number, code=code, user=request.user)
    if qrels_file is None:
        raise Http404("No such qrels file")
    return _serve(qrels_file.file, qrels_file.original_name)


@require_GET
def commitments(request, slug: str):
    """SHA-256 of every hidden qrels file from the competition's start, so anyone can later
    check that the judgments did not change mid-competition."""
    competition = _get_competition_for_user(request, slug)
    competition_publish_due(competition=competition)
    rows = selectors.commitments(competition, user=request.user)
    return render(request, "competitions/commitments.html",
                  {"competition": competition, "rows": rows, "started": timezone.now() >= competition.starts_at})
