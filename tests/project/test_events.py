"""Domain events (cupboard/events.py): handlers run in order, in the sender's transaction or after
its commit, every event the apps declare has its handlers from cupboard.flows, and mypy checks
every handler and every sender against the event's dataclass."""
import ast
import importlib
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

import cupboard
from cupboard import events
from cupboard.followups.models import FollowUp

PLATFORM = Path(cupboard.__file__).parent
ROOT = PLATFORM.parent.parent


def _subclasses(base: type) -> list[type]:
    found = []
    for kind in base.__subclasses__():
        found += [kind, *_subclasses(kind)]
    return found


def _declared(base: type) -> list[type]:
    """Every event (or question) the apps declare: each app's events.py imported, so that one no flow imports counts."""
    for module in sorted(PLATFORM.glob("*/events.py")):
        importlib.import_module(f"cupboard.{module.parent.name}.events")
    return [kind for kind in _subclasses(base) if kind.__module__.startswith("cupboard.")]


def test_every_event_is_handled_and_every_question_answered_once_the_apps_are_ready():
    declared, asked = _declared(events.Event), _declared(events.Question)
    assert len(declared) >= 12 and asked
    assert [kind.__name__ for kind in declared if not events.handlers_of(kind)] == []
    assert [kind.__name__ for kind in asked if events.answerer_of(kind) is None] == []


def test_every_event_is_a_frozen_dataclass_named_in_words():
    from cupboard.submissions.events import RunScored

    for kind in _declared(events.Event):
        assert kind.__dataclass_params__.frozen, kind  # type: ignore[attr-defined]
    assert RunScored.name() == "run scored"


def test_every_function_that_sends_or_handles_an_event_is_annotated_so_mypy_checks_its_body():
    """mypy leaves the body of an unannotated function unchecked: a send there would be too."""
    unchecked = []
    for path in sorted(PLATFORM.rglob("*.py")):
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, ast.FunctionDef):
                continue
            calls = [node for node in ast.walk(function) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                     and node.func.value.id == "events"]
            arguments = function.args.args + function.args.kwonlyargs
            if calls and function.returns is None and not any(a.annotation for a in arguments):
                unchecked.append(f"{path.relative_to(PLATFORM)}:{function.lineno} {function.name}")
    assert unchecked == []


def test_the_real_worker_test_injects_an_error_into_every_follow_up_of_every_event():
    """tests/jobs/test_follow_ups_with_a_real_worker.py's list is the flows' follow-ups: a new one is tested there."""
    from tests.jobs.test_follow_ups_with_a_real_worker import HANDLERS

    declared = {handler.handler.__name__ for kind in _declared(events.Event) for handler in events.handlers_of(kind)
                if isinstance(handler, events.AfterCommit)}
    for path in sorted((PLATFORM / "flows").glob("*.py")):
        declared |= {node.args[0].id for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.Call)
                     and isinstance(node.func, ast.Attribute) and node.func.attr == "follow_up"
                     and isinstance(node.args[0], ast.Name)}
    assert declared == HANDLERS


@dataclass(frozen=True)
class ThingDone(events.Event):
    thing: int


@dataclass(frozen=True)
class HowMany(events.Question[int]):
    thing: int


def test_a_question_returns_its_one_answer():
    events._answerers.pop(HowMany, None)
    with pytest.raises(RuntimeError, match="nothing answers 'HowMany'"):
        events.ask(HowMany(thing=2))
    events.answer(HowMany, lambda question: question.thing * 2)
    assert events.ask(HowMany(thing=2)) == 4


def test_it_refuses_a_send_nobody_handles():
    events._handlers.pop(ThingDone, None)
    with pytest.raises(RuntimeError, match="nothing handles 'thing done'"):
        events.send(ThingDone(thing=1))


RAN: list = []


def ran_after_commit(event: ThingDone) -> None:
    RAN.append(("after commit", event.thing))


@pytest.mark.django_db(transaction=True)
def test_handlers_run_in_order_and_after_commit_ones_only_once_committed():
    RAN.clear()
    events.handle(ThingDone, lambda event: RAN.append(("now", event.thing)),
                  events.after_commit(ran_after_commit, "the thing's echo"),
                  lambda event: RAN.append(("now again", event.thing)))
    with transaction.atomic():
        events.send(ThingDone(thing=1))
        assert RAN == [("now", 1), ("now again", 1)]
        # The follow-up stores the event itself, its fields, to carry it out in any process.
        stored = FollowUp.objects.get()
        assert (stored.event, stored.handler) == ("thing done", "tests.project.test_events.ran_after_commit")
        assert stored.arguments == {"$dataclass": "tests.project.test_events.ThingDone", "fields": {"thing": 1}}
    assert RAN == [("now", 1), ("now again", 1), ("after commit", 1)]


@pytest.mark.django_db(transaction=True)
def test_a_handler_refuses_by_raising_and_the_after_commit_ones_never_run():
    RAN.clear()

    def refuse(event: ThingDone) -> None:
        raise ValidationError("not this one", code="refused")

    events.handle(ThingDone, events.after_commit(ran_after_commit, "the thing's echo"), refuse)
    with pytest.raises(ValidationError), transaction.atomic():
        events.send(ThingDone(thing=1))
    assert RAN == []
    assert not FollowUp.objects.exists()  # rolled back with the change


def test_an_after_commit_handler_must_be_a_module_function():
    events.handle(ThingDone, events.after_commit(lambda event: None, "nothing"))
    with pytest.raises(ValueError, match="must be a module's function"):
        events.send(ThingDone(thing=1))


@pytest.mark.django_db
def test_an_event_whose_field_cannot_be_stored_is_refused_when_sent_not_lost_later():
    @dataclass(frozen=True)
    class Odd(events.Event):
        what: object

    events.handle(Odd, events.after_commit(ran_after_commit, "the thing's echo"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a follow-up cannot store object"), transaction.atomic():
        events.send(Odd(what=object()))


WRONG = textwrap.dedent("""
    from dataclasses import dataclass

    from cupboard import events


    @dataclass(frozen=True)
    class Ping(events.Event):
        n: int


    @dataclass(frozen=True)
    class Pong(events.Event):
        text: str


    def on_ping(event: Ping) -> None: ...
    def on_pong(event: Pong) -> None: ...
    def on_either(event: Ping | Pong) -> None: ...


    def connect() -> None:
        events.handle(Ping, on_ping, on_either, events.after_commit(on_ping, "fine"))
        events.send(Ping(n=1))
        events.handle(Ping, on_pong)                            # wrong: a handler of another event
        events.handle(Ping, events.after_commit(on_pong, "x"))  # wrong: ... as a follow-up
        events.follow_up(on_pong, "x", Ping(n=1))               # wrong: ... recorded in a handler
        events.send(Ping(n="1"))                                # wrong: a field of the wrong type
        events.send(Ping(m=1))                                  # wrong: a field it does not have
        events.send(3)                                          # wrong: not an event
""")


def test_mypy_refuses_a_handler_of_another_event_and_a_send_of_wrong_fields(tmp_path):
    """What `make lint` relies on, shown on a snippet with the project's own mypy settings."""
    (tmp_path / "snippet.py").write_text(WRONG)
    checked = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir",
         str(tmp_path / "cache"), "--hide-error-context", "--no-error-summary", "snippet.py"],
        cwd=tmp_path, capture_output=True, text=True, env={"MYPYPATH": str(PLATFORM.parent), "PATH": ""})
    lines = sorted({int(line.split(":")[1]) for line in checked.stdout.splitlines()
                    if line.startswith("snippet.py:") and ": error:" in line})
    wrong = [number for number, line in enumerate(WRONG.splitlines(), 1) if "# wrong" in line]
    assert len(wrong) == 6 and lines == wrong, checked.stdout + checked.stderr
