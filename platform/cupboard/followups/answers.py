"""What a request's follow-ups did, so that its answer can say so.

A follow-up that fails inside a request (the board update after a disqualification) is retried
by a worker; the person is told that the change is saved and what is still being done
(`FollowUpAnswerMiddleware`), never "Nothing was changed". And an outage met after the change
was committed answers that the change is saved (outages.py reads `committed`), so nobody sends
it again and writes a second audit entry.
"""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

from django.contrib import messages
from django.http import HttpRequest, HttpResponse


@dataclass
class Answer:
    committed: bool = False  # a change with follow-ups was committed during the request
    retrying: list[str] = field(default_factory=list)  # what follows it and failed for now, in words


_current: ContextVar[Answer | None] = ContextVar("cupboard_follow_up_answer", default=None)


def current() -> Answer | None:
    return _current.get()


def saved(request: HttpRequest) -> bool:
    """Whether a change was committed during `request` (so an error now must not say "nothing changed")."""
    answer = getattr(request, "cupboard_follow_ups", None)
    return answer is not None and answer.committed


RETRYING = "Saved. {what} did not go through yet; it is retried automatically within seconds (nothing to do again)."


class FollowUpAnswerMiddleware:
    """Below MessageMiddleware: a follow-up that failed during the view is a warning the next page shows."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        answer = request.cupboard_follow_ups = Answer()  # type: ignore[attr-defined]
        token = _current.set(answer)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        if answer.retrying:
            what = "; ".join(dict.fromkeys(answer.retrying))
            response["Cupboard-Follow-Ups"] = "retrying"
            if hasattr(request, "_messages"):
                messages.warning(request, RETRYING.format(what=what[:1].upper() + what[1:]))
        return response
