"""A request refused (a bad value, too many requests, an export not public), answered in one
shape wherever it happens.

A page answers the site's own error page in its look, naming the problem (templates/400.html,
403.html, 410.html, throttled.html); a JSON or CSV endpoint and the API answer the API's error shape,
`{"errors": [{"file": null, "line": null, "column": null, "code", "message"}]}`
(evaluator/client/api.py), which the CLI reads. A CSV cannot carry an error, so its endpoint
answers that JSON too. A 429 carries Retry-After either way. Never a bare text answer: a
visitor would get an unstyled line, a script a body it cannot parse.
"""
import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from evaluator.client import api as contract

# The page each status is answered with; another status gets the 400 page's "could not be read".
PAGES = {400: "400.html", 403: "403.html", 410: "410.html", 429: "throttled.html"}


def error_body(code: str, message: str) -> str:
    """The API's error shape as text, for an answer rendered once and kept in a cache."""
    return json.dumps({"errors": [contract.error(code, message)]}, ensure_ascii=False)


def api_error(status: int, code: str, message: str, *, retry_after: int | None = None) -> JsonResponse:
    """The API's error answer: one error with its code and message, no file or line."""
    response = JsonResponse({"errors": [contract.error(code, message)]}, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def refused(request: HttpRequest, *, status: int, code: str, message: str, as_json: bool = False,
            retry_after: int | None = None) -> HttpResponse:
    """`request` refused with `status`: the API's error shape when `as_json`, else the site's
    error page saying `message` (and, for a 429, when to try again)."""
    if as_json:
        return api_error(status, code, message, retry_after=retry_after)
    context = {"problem": message, "exception": message, "wait": _wait_in_words(retry_after or 0)}
    response = render(request, PAGES.get(status, "400.html"), context, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def throttled(request: HttpRequest, wait: int, *, what: str, as_json: bool = False) -> HttpResponse:
    """The 429 for `what` was asked too often (e.g. "Too many accounts were created from this
    address"): try again in `wait` seconds."""
    message = what if not as_json else f"{what}; try again in {wait} s."
    return refused(request, status=429, code="throttled", message=message, as_json=as_json, retry_after=wait)


def _wait_in_words(seconds: int) -> str:
    if seconds < 90:
        return f"{max(1, seconds)} second{'s' if seconds != 1 else ''}"
    minutes = round(seconds / 60)
    return f"about {minutes} minute{'s' if minutes != 1 else ''}"


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form sent without its valid security token (settings.CSRF_FAILURE_VIEW): the site's
    403 page saying why that happens and what to do, in place of Django's bare one. `reason`
    (Django's words for the developer) is not shown: it says nothing a visitor can act on."""
    return render(request, "403_csrf.html", status=403)
