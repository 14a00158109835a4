"""Team tests that submit: the submissions world (tests/submissions/conftest.py), its Test B
limited and open around a fixed NOON, and a helper that submits a distinct run."""
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import time_machine

from cupboard.competitions.models import Phase
from cupboard.submissions.services import submission_create
from tests.submissions.conftest import _worlds, upload, world  # noqa: F401 - the fixture, for team tests

NOON = datetime(2030, 5, 10, 12, 0, tzinfo=dt_timezone.utc)


def limit_test_b(world, *, daily: int, total: int, entry_deadline: datetime):
    """Test B open five days either side of NOON with these limits; teams form until `entry_deadline`."""
    Phase.objects.filter(pk=world.test_b.pk).update(daily_limit=daily, total_limit=total,
                                                    opens_at=NOON - timedelta(days=5),
                                                    closes_at=NOON + timedelta(days=5))
    world.competition.entry_deadline = entry_deadline
    world.competition.save()
    world.test_b.refresh_from_db()
    return world


def send(world, team, user, n: int, *, at: datetime = NOON):
    """Submit run `n` to Test B at `at` (distinct content, or the service returns the earlier one)."""
    with time_machine.travel(at, tick=False):
        return submission_create(phase=world.test_b, team=team, user=user, method_name=f"m{n}",
                                 files=[(upload("run.sw.txt", {"1": [f"{n}#0"]}), None)])
