"""The operators' endpoints: Prometheus' scrape and a competition's operations desk."""
import hmac

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from cupboard.accounts.selectors import token_in
from cupboard.charts import as_html
from cupboard.competitions.access import organizer_competition

from .charts import throughput_figure
from .desk import competition_desk, throughput
from .metrics import metrics_text

REFRESH_SECONDS = 10


@require_GET
def metrics(request):
    """Prometheus' scrape: only with `Authorization: Bearer $CUPBOARD_METRICS_TOKEN`. Without a
    token configured the endpoint does not exist (404), so no site exposes it by accident."""
    expected = settings.CUPBOARD_METRICS_TOKEN
    if not expected:
        raise Http404("No metrics here.")
    bearer = token_in(request.headers.get("Authorization", ""), schemes=("bearer",)) or ""
    if not hmac.compare_digest(bearer.encode(), expected.encode()):
        response = HttpResponse("A metrics token is required: Authorization: Bearer <CUPBOARD_METRICS_TOKEN>.\n",
                                status=401, content_type="text/plain; charset=utf-8")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    response = HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_GET
def desk(request, slug: str):
    """A competition's operations desk for its organizers (desk.py); refreshes itself."""
    competition = organizer_competition(request, slug)
    now = timezone.now()
    data = competition_desk(competition, now)
    if request.GET.get("format") == "json":
        response = JsonResponse(data)
    else:
        charts = as_html([throughput_figure(throughput(competition, now))])
        response = render(request, "operations/desk.html", {"competition": competition, "desk": data,
                                                            "charts": charts, "refresh": REFRESH_SECONDS})
    response["Cache-Control"] = "no-store"
    return response
