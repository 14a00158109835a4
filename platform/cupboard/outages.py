"""Outages answer 503 with Retry-After: never a 500 traceback, never a reset connection.

When PostgreSQL, the broker or the S3 storage endpoint cannot be reached, every request
that needs them fails with a connection error (botocore's connection errors, after its own
retries, for the storage of sites on several hosts). `OutageMiddleware` (first in MIDDLEWARE, so it wraps all the
others) turns those errors into HTTP 503 with `Retry-After`: the API's JSON error shape
(`{"errors": [{"code": "unavailable", ...}]}`) under /submissions/api/, for a JSON export
(a path ending in .json), a request with an API token (a script's: the system upload and status
are outside that prefix) or when the client asks for JSON, a short page that needs neither the database nor templates elsewhere.

Errors raised by the view reach `process_exception`. Errors raised by another middleware
(the session saved after the view) are turned into a 500 response by Django before this
middleware sees them; `got_request_exception`, sent first, notes the error on the request,
and the middleware swaps that 500 for a 503.

An outage met after the request's change was committed (a change with follow-ups, which
cupboard.followups notes) is not "Nothing was changed": the answer says the change is saved and
must not be sent again (HTTP 500, code `saved`, so a client does not resend it as it would a
503); what follows the change is retried by a worker.

The request body is read to its end before answering: a server that answers an upload
before the client finished sending it, then closes the socket, makes the client see a
connection reset instead of the answer (gunicorn does exactly that).
"""
import logging
import sys

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from cupboard.followups.answers import saved
from evaluator.client import api as contract

logger = logging.getLogger(__name__)


def _storage_outages() -> tuple[type[Exception], ...]:
    """The S3 client's errors for an endpoint that cannot be reached or stops answering: refused,
    timed out, or the connection closed mid-answer. botocore is there only with 'cupboard[s3]'."""
    try:
        from botocore.exceptions import ConnectionClosedError, ConnectionError, ReadTimeoutError
    except ImportError:
        return ()
    return ConnectionError, ConnectionClosedError, ReadTimeoutError  # ConnectionError: EndpointConnection, ConnectTimeout


OUTAGES = (OperationalError, InterfaceError, BrokerError, RedisConnectionError, RedisTimeoutError, *_storage_outages())
RETRY_AFTER = 30  # seconds; a restarted database, broker or storage is usually back well within it
API_PREFIX = contract.PREFIX  # what the CLI calls (evaluator/client/api.py)
MESSAGE = "cupboard is briefly unavailable (its database, queue or file storage cannot be reached). Nothing was changed; " \
          f"please try again in {RETRY_AFTER} seconds."
PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cupboard: back in a moment</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem">
<h1>Back in a moment</h1><p>{MESSAGE}</p><p><a href="">Try again</a></p></body></html>
"""
SAVED = "Your change was saved, but cupboard could not finish answering (its database, queue or file storage " \
        "cannot be reached). Do not send it again: what follows it is carried out automatically once they are back."
SAVED_PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cupboard: saved</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem">
<h1>Saved</h1><p>{SAVED}</p><p><a href="/">Home</a></p></body></html>
"""


def _drain(request: HttpRequest) -> None:
    """Read what is left of the request body (see the module docstring)."""
    try:
        while request.read(1 << 16):
            pass
    except Exception:  # noqa: BLE001 - a body that cannot be read is no reason not to answer
        pass


def _wants_json(request: HttpRequest) -> bool:
    """The API, a JSON export (a leaderboard's .json, which scripts read), a script's request (it
    sends a token), or a client asking for JSON."""
    return (request.path.startswith(API_PREFIX) or request.path.endswith(".json")
            or "Authorization" in request.headers or "application/json" in request.headers.get("Accept", ""))


def unavailable(request: HttpRequest, error: BaseException) -> HttpResponse:
    """The 503 answer for `request`, JSON or HTML."""
    _drain(request)
    if saved(request):
        logger.warning("outage after the change was committed, %s %s: %s: %s", request.method, request.path,
                       type(error).__name__, error)
        if _wants_json(request):
            return JsonResponse({"errors": [contract.error("saved", SAVED)]}, status=500)
        return HttpResponse(SAVED_PAGE, status=500, content_type="text/html; charset=utf-8")
    logger.warning("503 for %s %s: %s: %s", request.method, request.path, type(error).__name__, error)
    if _wants_json(request):
        response = JsonResponse({"errors": [contract.error("unavailable", MESSAGE)]}, status=503)
    else:
        response = HttpResponse(PAGE, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


def _note_outage(sender, request: HttpRequest | None = None, **kwargs) -> None:
    error = sys.exc_info()[1]
    if request is not None and isinstance(error, OUTAGES):
        request.cupboard_outage = error


got_request_exception.connect(_note_outage, dispatch_uid="cupboard.outages")


class OutageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        error = getattr(request, "cupboard_outage", None)  # raised by a middleware below this one
        return unavailable(request, error) if error is not None else response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return unavailable(request, exception) if isinstance(exception, OUTAGES) else None
