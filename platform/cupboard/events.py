"""Domain events: an app says what happened in it; cupboard.flows says what follows elsewhere.

The app where something happens sends its event once its own work is done (`run_scored.send(
submission=...)`). What other apps do about it is declared in one place per event, a module of
cupboard/flows/ that lists the handlers in the order they run. So the sender never imports the
apps above it (the floors: docs/architecture.md, tests/project/test_import_floors.py), and what
follows an event is read in one file instead of found by searching.

Why not Django's signals: any module can connect a receiver to one, from anywhere, in any
order, and a signal nobody receives is silently nothing. Here an event has exactly one list of
handlers, set by cupboard.flows when the apps are ready, and sending an event without handlers
is an error (cupboard.flows missing from INSTALLED_APPS), not a lost consequence.

A handler runs in the sender's transaction, at `send()`, unless it is wrapped in
`after_commit`: then it is a follow-up (cupboard.followups): `send()` writes it down in the
sender's transaction (its arguments, rows by their id), and it is carried out once that
transaction commits, and retried by a worker until it succeeds when that fails. So its failure
cannot undo the sender's work, it never runs for work that was rolled back, and it is never lost
(a process that dies after the commit, a deadlock, a database gone for a moment). A handler in
the transaction may refuse by raising (a ValidationError the sender's caller shows), which rolls
the sender's work back with it.
"""
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

Answer = TypeVar("Answer")


@dataclass(frozen=True)
class AfterCommit:
    handler: Callable[..., object]
    what: str
    arguments: tuple[str, ...]  # the event's arguments it takes, and so what its follow-up stores


def after_commit(handler: Callable[..., object], what: str) -> AfterCommit:
    """Carry `handler` out once the sender's transaction commits, not inside it, as a follow-up
    that is retried until it succeeds. `what` it does, in words, for the person's answer when
    it has to be retried ("the team's leaderboard row")."""
    parameters = inspect.signature(handler).parameters.values()
    return AfterCommit(handler, what, tuple(p.name for p in parameters if p.kind is p.KEYWORD_ONLY))


class _Declared:
    """An event or a question: its name and the keyword arguments every call must give."""

    def __init__(self, name: str, *args: str):
        self.name, self.args = name, frozenset(args)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def _check(self, kwargs: dict, answered: bool) -> None:
        if kwargs.keys() != self.args:
            raise TypeError(f"{self.name!r} takes {sorted(self.args)}, not {sorted(kwargs)}")
        if not answered:
            raise RuntimeError(f"nothing handles {self.name!r}: is cupboard.flows in INSTALLED_APPS?")


class Event(_Declared):
    """Something that happened, with the keyword arguments every send gives its handlers."""

    handlers: tuple = ()

    def handled_by(self, *handlers: Callable[..., object] | AfterCommit) -> None:
        """Set the handlers, in the order they run (cupboard.flows, once; setting them again replaces them)."""
        self.handlers = handlers

    def send(self, **kwargs: object) -> None:
        from cupboard.followups.services import follow_up_record

        self._check(kwargs, answered=bool(self.handlers))
        for handler in self.handlers:
            if isinstance(handler, AfterCommit):
                follow_up_record(event=self.name, handler=handler.handler, what=handler.what,
                                 arguments={name: kwargs[name] for name in handler.arguments})
            else:
                handler(**kwargs)


def follow_up(event: Event, handler: Callable[..., object], what: str, **arguments: object) -> None:
    """From a handler in the sender's transaction: carry `handler(**arguments)` out after the
    commit, as `after_commit` does, when what it needs is known only in the transaction (the
    phases a merge moved runs of) or is less than the event's arguments."""
    from cupboard.followups.services import follow_up_record

    follow_up_record(event=event.name, handler=handler, what=what, arguments=arguments)


class Question(_Declared, Generic[Answer]):
    """What a lower app asks of one above it (how many submissions a leaving member takes
    along): exactly one answerer, set by cupboard.flows, whose answer `ask()` returns."""

    answerer: Callable[..., Answer] | None = None

    def answered_by(self, answerer: Callable[..., Answer]) -> None:
        self.answerer = answerer

    def ask(self, **kwargs: object) -> Answer:
        answerer = self.answerer
        self._check(kwargs, answered=answerer is not None)
        assert answerer is not None  # _check raised otherwise
        return answerer(**kwargs)


# Scoring (submissions/scoring.py). Stored: inside the transaction that stores the scores, while
# the worker's claim holds. Scored: once they are committed. Finished: the outcome is final
# (scored with the current judgments, rejected, or failed for good).
run_scores_stored = Event("run scores stored", "submission", "results")
run_scored = Event("run scored", "submission")
run_finished = Event("run finished", "submission_id", "status")
# Chosen for the final or not, disqualified (submissions/services.py): its team's row may count another run.
run_standing_changed = Event("run standing changed", "submission")

# A competition's schedule and judgments (competitions/schedule.py, services.py), sent in the
# organizer's transaction: what ranks count, or the judgments under the scores, changed.
phase_schedule_changed = Event("phase schedule changed", "phase")
# A new version of its definition was applied (competitions/services.py competition_load), sent in
# the load's transaction: `changes` is the diff (competitions/changes.py), never empty.
definition_changed = Event("competition definition changed", "competition", "changes")
group_reveal_changed = Event("group reveal changed", "group")
qrels_release_removed = Event("qrels release removed", "phase")
# previous_files: {subset code: QrelsFile} carried forward, None for a phase's first release.
qrels_released = Event("qrels released", "phase", "release", "actor", "new_qrels", "previous_files")
# A new topics version changed queries that were stored before (competitions/topic_files.py
# topics_import_files), sent in the organizer's transaction; `rescore`: runs were checked against
# the old queries and the organizer chose to score them again (else there were none).
topics_changed = Event("topics changed", "phase", "version", "actor", "rescore")

# Team changes (teams/services.py), sent in the change's transaction with the team rows locked,
# before the members move: a handler may refuse the change (a ValidationError).
team_joining = Event("team joining", "team", "user", "now")
team_merging = Event("team merging", "source", "target", "now")
# {phase slug: submissions} a member leaving `team` takes along, for the audit log.
usage_carried: Question[dict[str, int]] = Question("usage carried", "team", "user")
