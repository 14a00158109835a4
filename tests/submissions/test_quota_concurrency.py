"""Many concurrent uploads from one team never exceed the cap (PostgreSQL, one connection per thread)."""
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_create

from .conftest import upload

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_it_holds_the_daily_cap_under_concurrent_uploads(world):
    Phase.objects.filter(pk=world.dev.pk).update(daily_limit=2, total_limit=None)
    world.dev.refresh_from_db()
    if timezone.now() + timedelta(seconds=30) > timezone.now().replace(hour=23, minute=59, second=30):
        pytest.skip("too close to UTC midnight for a one-day cap test")
    users = [world.participant, world.teammate]
    start = threading.Barrier(8)
    outcomes: list[str] = []

    def upload_one(n: int) -> None:
        try:
            start.wait()
            submission_create(phase=world.dev, team=world.team_a, user=users[n % 2], method_name=f"m{n}",
                              files=[(upload("run.sw.txt", {"1": [f"{n}#0"]}), None)])
            outcomes.append("created")
        except SubmissionRefused as error:
            outcomes.append(error.code)
        finally:
            connection.close()  # each thread had its own connection

    threads = [threading.Thread(target=upload_one, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["created"] * 2 + ["daily_limit"] * 6
    numbers = sorted(Submission.objects.filter(team=world.team_a).values_list("number", flat=True))
    assert numbers == [1, 2]
