"""Saves of one submission at once, each from its own copy and connection (PostgreSQL, one
thread each): every save bumps `version` by one in the database, and each copy holds the
version its own statement wrote (models.py `_do_update`), never another's or a stale one."""
from functools import partial

import pytest

from cupboard.submissions.models import Submission
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import build_cast
from tests.races import at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SAVERS = 8


def test_saves_at_once_each_hold_their_own_bump():
    cast = build_cast()
    run = make_scored(cast.competition.phases.get(slug="dev"), team=cast.team_a, method="raced",
                      scores=ndcg(sw=0.5, te=0.5))
    before = Submission.objects.get(pk=run.pk).version
    copies = [Submission.objects.get(pk=run.pk) for _ in range(SAVERS)]

    def save(copy: Submission) -> None:
        copy.description = f"saved by copy {id(copy)}"
        copy.save(update_fields=["description"])

    errors = [error for error in at_once(*(partial(save, copy) for copy in copies)) if error is not None]
    assert not errors, errors
    assert sorted(copy.version for copy in copies) == list(range(before + 1, before + SAVERS + 1))
    assert Submission.objects.get(pk=run.pk).version == before + SAVERS
