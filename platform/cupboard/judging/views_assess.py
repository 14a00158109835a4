"""The assessors' pages: their tasks, and the judging page (the query and one passage at a
time, the competition's labels, keyboard shortcuts, back and forth, resuming where they
stopped). For the competition's assessors only (`assessor_viewer`), each task for its own
assessor: another's is a 404.

What the judging page carries, in its HTML and form, is the query, the passage, the labels
and the assessor's progress: never which run or team retrieved the passage, its rank or a
score (tests/judging/test_judging_page.py reads the bytes for them).
"""
from __future__ import annotations

import re
import time

from django.contrib.auth.decorators import login_required
from django.core import signing
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from cupboard.competitions.access import assessor_viewer
from cupboard.competitions.assessors import judging_labels

from .assessment import assessor_topic_fields, item_label
from .models import Assignment

SHOWN_SALT = "cupboard.judging.shown"  # the signed instant a passage was shown: time per judgment


@login_required
@require_GET
def tasks(request, slug: str):
    """The assessor's judging tasks in this competition, with their progress."""
    viewer = assessor_viewer(request, slug)
    found = (Assignment.objects.filter(round__phase__competition=viewer.competition, assessor=request.user)
             .select_related("round__phase", "subset").order_by("-round__created_at", "subset__position"))
    rows = [{"task": task, "total": task.items.count(), "done": task.items.filter(label__isnull=False).count()}
            for task in found]
    return render(request, "judging/tasks.html", {"competition": viewer.competition, "rows": rows})


def _own_task(request, slug: str, pk: int) -> Assignment:
    viewer = assessor_viewer(request, slug)
    return get_object_or_404(Assignment.objects.select_related("round__phase__competition", "subset"),
                             pk=pk, assessor=request.user, round__phase__competition=viewer.competition)


@login_required
@require_http_methods(["GET", "POST"])
def judge(request, slug: str, pk: int):
    """One passage of the task: `?at=<position>`, else the first not judged yet (resume). A
    POST stores the label and goes on to the next passage not judged yet."""
    task = _own_task(request, slug, pk)
    items = task.items
    if request.method == "POST":
        item = get_object_or_404(items, position=_position(request.POST.get("position", "")))
        try:
            label = int(request.POST.get("label", ""))
            item_label(item=item, label=label, seconds=_seconds(request.POST.get("shown", "")), actor=request.user)
        except (ValueError, ValidationError) as error:
            return _page(request, task, item, error=getattr(error, "message", "Choose one of the labels."), status=400)
        following = items.filter(label__isnull=True, position__gt=item.position).first() or \
            items.filter(label__isnull=True).first()
        url = reverse("judging:judge", args=[slug, pk])
        return redirect(f"{url}?at={following.position}" if following else f"{url}?at=done")
    at = request.GET.get("at")
    if at == "done":
        item = None
    elif at:
        item = get_object_or_404(items, position=_position(at))
    else:
        item = items.filter(label__isnull=True).first()
    return _page(request, task, item)


def _position(text: str) -> int:
    """A passage's position as sent; 404 for anything but a few ASCII digits (`1e3`, `²` or
    a 5,000-digit number were a 500: int() refused them, or the database's integer did)."""
    if not re.fullmatch(r"[0-9]{1,9}", text or ""):
        raise Http404("No such passage.")
    return int(text)


def _seconds(shown: str) -> float | None:
    try:
        return time.time() - float(signing.loads(shown, salt=SHOWN_SALT, max_age=86400))
    except (signing.BadSignature, TypeError, ValueError):
        return None


def _page(request, task: Assignment, item, *, error: str | None = None, status: int = 200):
    total = task.items.count()
    done = task.items.filter(label__isnull=False).count()
    back = task.items.filter(position__lt=item.position).last() if item else task.items.last()
    forward = task.items.filter(position__gt=item.position).first() if item else None
    return render(request, "judging/judge.html", {
        "competition": task.round.phase.competition, "task": task, "item": item, "labels": judging_labels(
            task.round.phase.competition), "total": total, "done": done,
        "percent": round(100 * done / total) if total else 100, "back": back, "forward": forward, "error": error,
        "topic_fields": assessor_topic_fields(task.round.phase, task.subset, item.qid) if item else [],
        "shown": signing.dumps(time.time(), salt=SHOWN_SALT)}, status=status)
