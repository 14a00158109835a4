"""What typings/django/db/models/enums.pyi tells mypy holds: a member of a choices class
(`Verification.Reason.ORGANIZER`) is an enum member of its base type, equal to its value, not the
(value, label) tuple written in the class body. mypy without Django's types read the tuple and
reported `verification_request(reason=Verification.Reason.ORGANIZER)` as a tuple passed for a str;
it is the str "organizer", and is stored as such."""
import enum

import pytest
from django.apps import apps
from django.db import models

from cupboard.submissions.models import Verification
from cupboard.submissions.verification import verification_request


def choices_classes() -> list[type[models.Choices]]:
    found = []
    for model in apps.get_models():
        if model.__module__.startswith("cupboard."):
            found += [value for value in vars(model).values()
                      if isinstance(value, type) and issubclass(value, models.Choices)]
    return found


def test_every_member_of_a_choices_class_is_its_value():
    classes = choices_classes()
    assert Verification.Reason in classes and len(classes) >= 10
    for choices in classes:
        base = str if issubclass(choices, models.TextChoices) else int
        for member in choices:
            assert isinstance(member, base) and isinstance(member, enum.Enum), (choices, member)
            assert member == member.value and not isinstance(member.value, tuple), (choices, member)
            assert isinstance(member.label, str)
        assert choices.values == [member.value for member in choices]
        assert [value for value, _ in choices.choices] == choices.values


@pytest.mark.django_db
def test_a_reason_given_as_its_member_is_stored_as_its_string(world):
    verification = verification_request(phase=world.dev, actor=world.organizer, reason=Verification.Reason.ORGANIZER)
    verification.refresh_from_db()
    assert verification.reason == "organizer" and type(verification.reason) is str
