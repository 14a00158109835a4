"""The audit log page of a competition."""
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from cupboard.audit.selectors import audit_events_for
from cupboard.competitions.commitments import competition_publish_due
from cupboard.competitions.views import _get_competition_for_user


@require_GET
def audit_log(request, slug: str):
    """Organizers read every event; everyone else the public ones (commitments, reveals).
    Due public events are written first, so the page never lags behind the clock."""
    competition = _get_competition_for_user(request, slug)
    competition_publish_due(competition=competition)
    events = audit_events_for(competition, user=request.user)
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    return render(request, "audit/log.html", {"competition": competition, "page": page,
                                              "is_organizer": competition.is_organizer(request.user)})
