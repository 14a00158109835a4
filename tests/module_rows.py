"""Rows that every database test of a module starts from, built once for the module instead of
once for each test (docs/development.md, "Where the loop stands").

`module_rows(builds)` makes a module-scoped fixture. Where every test of a module that reaches the
database asks for the same one of `builds` (by fixture name) and none commits, it builds those rows
once, in a transaction rolled back at the module's end; each test's own transaction (pytest-django's
`db`) is a savepoint inside it, rolled back after the test, as Django's `TestCase.setUpTestData`
does for a class. Each test gets its own deep copy of what was built, as `setUpTestData`'s
attributes are, so nothing a test changes reaches the next. Anywhere else (a module mixing two
builds, a test on the database without one, a test that commits) `get` builds per test, as before.
"""
from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from tests.conftest import commits, uses_the_database


class Built:
    def __init__(self, name: str | None = None, value: Any = None):
        self.name, self.value = name, value

    def get(self, name: str, build: Callable[[], Any]) -> Any:
        """A copy of the module's rows' objects where they are `name`'s; else built now, for this test."""
        return copy.deepcopy(self.value) if name == self.name else build()


def _shared_build(request, names) -> str | None:
    """The one build every database test of the module asks for, where none commits; else None."""
    items = [item for item in request.session.items if getattr(item, "module", None) is request.module]
    database = [item for item in items if uses_the_database(item)]
    asked = {name for item in database for name in names if name in item.fixturenames}
    if len(asked) != 1 or any(commits(item) for item in database):
        return None
    (name,) = asked
    return name if all(name in item.fixturenames for item in database) else None


def module_rows(builds: dict[str, Callable[[], Any]]):
    @pytest.fixture(scope="module")
    def fixture(request, django_db_setup, django_db_blocker):
        name = _shared_build(request, builds)
        if name is None:
            yield Built()
            return
        with django_db_blocker.unblock():
            block = transaction.atomic()
            block._from_testcase = True  # a test's durable=True block may sit on it, as on a TestCase's
            block.__enter__()
            try:
                built = Built(name, builds[name]())
            except BaseException:
                transaction.set_rollback(True)
                block.__exit__(None, None, None)
                raise
        try:
            yield built
        finally:
            with django_db_blocker.unblock():
                transaction.set_rollback(True)
                block.__exit__(None, None, None)
    return fixture
