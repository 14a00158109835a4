"""Domain events (cupboard/events.py): handlers run in order, in the sender's transaction or after
its commit, and every event the apps send has its handlers from cupboard.flows."""
import pytest
from django.core.exceptions import ValidationError
from django.db import transaction

from cupboard import events


def test_every_event_is_handled_and_every_question_answered_once_the_apps_are_ready():
    declared = [value for value in vars(events).values() if isinstance(value, events.Event)]
    asked = [value for value in vars(events).values() if isinstance(value, events.Question)]
    assert declared and [e.name for e in declared if not e.handlers] == []
    assert asked and [q.name for q in asked if q.answerer is None] == []


def test_a_question_returns_its_one_answer():
    question = events.Question("how many", "thing")
    with pytest.raises(RuntimeError, match="nothing handles 'how many'"):
        question.ask(thing=2)
    question.answered_by(lambda *, thing: thing * 2)
    assert question.ask(thing=2) == 4
    with pytest.raises(TypeError):
        question.ask(other=2)


def test_it_refuses_a_send_without_the_declared_arguments():
    event = events.Event("thing done", "thing")
    event.handled_by(lambda *, thing: None)
    with pytest.raises(TypeError, match="'thing done' takes \\['thing'\\], not \\['other'\\]"):
        event.send(other=1)


def test_it_refuses_a_send_nobody_handles():
    with pytest.raises(RuntimeError, match="nothing handles 'thing done'"):
        events.Event("thing done", "thing").send(thing=1)


RAN: list = []


def ran_after_commit(*, thing) -> None:
    RAN.append(("after commit", thing))


@pytest.mark.django_db(transaction=True)
def test_handlers_run_in_order_and_after_commit_ones_only_once_committed():
    RAN.clear()
    event = events.Event("thing done", "thing")
    event.handled_by(lambda *, thing: RAN.append(("now", thing)),
                     events.after_commit(ran_after_commit, "the thing's echo"),
                     lambda *, thing: RAN.append(("now again", thing)))
    with transaction.atomic():
        event.send(thing=1)
        assert RAN == [("now", 1), ("now again", 1)]
    assert RAN == [("now", 1), ("now again", 1), ("after commit", 1)]


@pytest.mark.django_db(transaction=True)
def test_a_handler_refuses_by_raising_and_the_after_commit_ones_never_run():
    RAN.clear()

    def refuse(*, thing):
        raise ValidationError("not this one", code="refused")

    event = events.Event("thing done", "thing")
    event.handled_by(events.after_commit(ran_after_commit, "the thing's echo"), refuse)
    with pytest.raises(ValidationError), transaction.atomic():
        event.send(thing=1)
    assert RAN == []
    from cupboard.followups.models import FollowUp
    assert not FollowUp.objects.exists()  # rolled back with the change


def test_an_after_commit_handler_must_be_a_module_function():
    event = events.Event("thing done", "thing")
    event.handled_by(events.after_commit(lambda *, thing: None, "nothing"))
    with pytest.raises(ValueError, match="must be a module's function"):
        event.send(thing=1)
