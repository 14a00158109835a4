"""The operators' endpoints."""
import hmac

from django.conf import settings
from django.http import Http404, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from .metrics import metrics_text


def _bearer(request) -> str:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


@require_GET
def metrics(request):
    """Prometheus' scrape: only with `Authorization: Bearer $CUPBOARD_METRICS_TOKEN`. Without a
    token configured the endpoint does not exist (404), so no site exposes it by accident."""
    expected = settings.CUPBOARD_METRICS_TOKEN
    if not expected:
        raise Http404("No metrics here.")
    if not hmac.compare_digest(_bearer(request).encode(), expected.encode()):
        response = HttpResponse("A metrics token is required: Authorization: Bearer <CUPBOARD_METRICS_TOKEN>.\n",
                                status=401, content_type="text/plain; charset=utf-8")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    response = HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response
