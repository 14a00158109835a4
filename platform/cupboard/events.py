"""Domain events: an app says what happened in it; cupboard.flows says what follows elsewhere.

An event is a frozen dataclass, declared in the `events.py` of the app where it happens (a run
scored: `submissions/events.py`), whose fields are what it carries. That app sends it once its
own work is done (`events.send(RunScored(submission=...))`). What other apps do about it is
declared in one place per event, a module of cupboard/flows/ that lists the handlers in the
order they run (`events.handle(RunScored, ...)`). So the sender never imports the apps above it
(the floors: docs/architecture.md, tests/project/test_import_floors.py), and what follows an
event is read in one file instead of found by searching.

Typed so that mypy (make lint) checks both ends: a handler takes the event's dataclass, and
`handle(RunScored, handler)` is refused when `handler` takes another event; a sender builds the
dataclass, so a missing or misspelt field is refused too (tests/project/test_events_typed.py).

Why not Django's signals: any module can connect a receiver to one, from anywhere, in any
order, and a signal nobody receives is silently nothing. Here an event has exactly one list of
handlers, set by cupboard.flows when the apps are ready, and sending an event without handlers
is an error (cupboard.flows missing from INSTALLED_APPS), not a lost consequence.

A handler runs in the sender's transaction, at `send()`, unless it is wrapped in
`after_commit`: then it is a follow-up (cupboard.followups): `send()` writes it down in the
sender's transaction (the event itself, rows by their id, so every field of an event with such
a handler must be storable: followups/codec.py), and it is carried out once that transaction
commits, and retried by a worker until it succeeds when that fails. So its failure cannot undo
the sender's work, it never runs for work that was rolled back, and it is never lost (a process
that dies after the commit, a deadlock, a database gone for a moment). A handler in the
transaction may refuse by raising (a ValidationError the sender's caller shows), which rolls
the sender's work back with it.
"""
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

Answer = TypeVar("Answer")


@dataclass(frozen=True)
class Event:
    """What every event is: subclass it as a frozen dataclass whose fields are what it carries."""

    @classmethod
    def name(cls) -> str:
        """In words, for errors and the follow-ups' rows: RunScored -> "run scored"."""
        return re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).lower()


E = TypeVar("E", bound=Event)


@dataclass(frozen=True)
class AfterCommit(Generic[E]):
    handler: Callable[[E], object]
    what: str


def after_commit(handler: Callable[[E], object], what: str) -> AfterCommit[E]:
    """Carry `handler` out once the sender's transaction commits, not inside it, as a follow-up
    that is retried until it succeeds. `what` it does, in words, for the person's answer when
    it has to be retried ("the team's leaderboard row")."""
    return AfterCommit(handler, what)


_handlers: dict[type[Event], tuple[Callable[[Any], object] | AfterCommit[Any], ...]] = {}


def handle(event: type[E], *handlers: Callable[[E], object] | AfterCommit[E]) -> None:
    """Set the event's handlers, in the order they run (cupboard.flows, once; setting them again replaces them)."""
    _handlers[event] = handlers


def handlers_of(event: type[Event]) -> tuple:
    return _handlers.get(event, ())


def send(event: Event) -> None:
    """Run the event's handlers in the caller's transaction; record its follow-ups in it."""
    handlers = _handlers.get(type(event))
    if not handlers:
        raise RuntimeError(f"nothing handles {event.name()!r}: is cupboard.flows in INSTALLED_APPS?")
    for handler in handlers:
        if isinstance(handler, AfterCommit):
            follow_up(handler.handler, handler.what, event)
        else:
            handler(event)


def follow_up(handler: Callable[[E], object], what: str, event: E) -> None:
    """Record `handler(event)` as a follow-up of the current transaction: what `after_commit`
    does, for a handler in the transaction that knows only there whether it is needed, or that
    stores less than its event (the lines of a definition's diff a mail tells)."""
    from cupboard.followups.services import follow_up_record

    follow_up_record(event=event.name(), handler=handler, what=what, payload=event)


@dataclass(frozen=True)
class Question(Generic[Answer]):
    """What a lower app asks of one above it (how many submissions a leaving member takes
    along): a frozen dataclass of what it asks with, exactly one answerer, set by cupboard.flows."""


Q = TypeVar("Q", bound=Question)

_answerers: dict[type[Question], Callable[[Any], Any]] = {}


def answer(question: type[Q], answerer: Callable[[Q], object]) -> None:
    _answerers[question] = answerer


def answerer_of(question: type[Question]) -> Callable[[Any], Any] | None:
    return _answerers.get(question)


def ask(question: Question[Answer]) -> Answer:
    """The one answerer's answer (typed by the question's declaration: Question[dict[str, int]])."""
    answerer = _answerers.get(type(question))
    if answerer is None:
        raise RuntimeError(f"nothing answers {type(question).__name__!r}: is cupboard.flows in INSTALLED_APPS?")
    return answerer(question)
