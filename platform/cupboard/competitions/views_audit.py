"""The audit log page of a competition (at audit/<slug>/, the "audit" namespace: cupboard/urls.py).
It lives here, not in the audit app, because reading it takes the competition's Viewer: the
audit log sits on the floor below competitions and knows no competition's rules."""
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from cupboard.audit.details import readable_details
from cupboard.audit.selectors import audit_events_for
from cupboard.competitions.access import competition_viewer
from cupboard.competitions.page_cache import anonymous_cached


@anonymous_cached(params=("page",))
@require_GET
def audit_log(request, slug: str):
    """Organizers read every event; everyone else the public ones (commitments, reveals).
    Read-only: due public events are written by the beat task publish_due_events (every
    CUPBOARD_SWEEP_INTERVAL seconds), never by a GET."""
    viewer = competition_viewer(request, slug)
    events = audit_events_for(viewer)
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    if viewer.is_organizer:
        for event in page:
            event.readable = readable_details(event.details)
    return render(request, "audit/log.html", {"competition": viewer.competition, "page": page,
                                              "is_organizer": viewer.is_organizer})
