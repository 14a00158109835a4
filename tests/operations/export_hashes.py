"""SHA-256 of every export a site gives of the personas' cup, asked through Django's test
client as the person who may read it, at one fixed moment (pages say "3 days ago").

Imported by the backup test in its own process, and run as a script in the process of the
restored site: `python -m tests.operations.export_hashes 2026-12-01T00:00:00+00:00`."""
import hashlib
import json
import sys
from datetime import datetime

# (username or None for anonymous, address): the leaderboards, the frozen official results,
# the commitments, the audit log as the public and as the organizer, a phase's runs and its pool.
EXPORTS = [
    (None, "/c/cup/dev/leaderboard.csv"), (None, "/c/cup/dev/leaderboard.json"),
    (None, "/c/cup/test-b/leaderboard.csv"), (None, "/c/cup/test-b/leaderboard.json"),
    (None, "/c/cup/test-b/official.csv"), (None, "/c/cup/test-b/official.json"),
    (None, "/c/cup/commitments/"), (None, "/c/cup/audit/"),
    ("organizer", "/c/cup/audit/"), ("organizer", "/c/cup/test-b/leaderboard.json"),
    ("organizer", "/c/cup/manage/test-b/runs.zip"), ("organizer", "/c/cup/manage/test-b/pool/1.zip"),
]


def export_hashes(at: datetime) -> dict[str, str]:
    """{"<who> <address>": SHA-256 of the answer}; an answer other than 200 is a failure."""
    import time_machine
    from django.contrib.auth.models import User

    from tests.personas import client_for, without_csrf

    hashes = {}
    with time_machine.travel(at, tick=False):
        for username, address in EXPORTS:
            client = client_for(User.objects.get(username=username) if username else None)
            response = client.get(address)
            assert response.status_code == 200, (username, address, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming else without_csrf(response)
            hashes[f"{username or 'anonymous'} {address}"] = hashlib.sha256(body).hexdigest()
    return hashes


if __name__ == "__main__":
    import django
    from django.test.utils import setup_test_environment

    django.setup()
    setup_test_environment()  # the test client's host, "testserver", allowed as in pytest
    print(json.dumps(export_hashes(datetime.fromisoformat(sys.argv[1]))))
