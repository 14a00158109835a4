"""The second engine in the real worker: a real Celery worker (with its beat) on a fresh
SQLite stack scores a run, then checks every official score with pytrec_eval, once when
the organizer asks and once by itself when the final phase's results are revealed (the
beat task freezes the snapshot and queues the check); a stored score that was tampered
with is caught and named."""
from __future__ import annotations

import pytest

from tests.e2e.stack import SUBMIT, prepared_stack, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.slow]

ASK = """
from django.contrib.auth.models import User
from cupboard.competitions.models import Phase
from cupboard.submissions.verification import verification_request

phase = Phase.objects.get(competition__slug="cup", slug="dev")
print(verification_request(phase=phase, actor=User.objects.get(username="organizer"), reason="organizer").pk)
"""

# The dev phase becomes the final one, private until a second ago: its results are out.
REVEAL = """
from datetime import timedelta
from django.utils import timezone
from cupboard.competitions.models import Phase

Phase.objects.filter(competition__slug="cup", slug="dev").update(
    is_final=True, visibility="private", reveal_at=timezone.now() - timedelta(seconds=1))
Phase.objects.filter(competition__slug="cup", slug="test-b").update(is_final=False)
"""


def _verifications(stack) -> list[tuple]:
    return stack.query("SELECT reason, status, total, done, scores FROM submissions_verification ORDER BY id")


def test_the_worker_verifies_on_request_and_at_the_reveal(tmp_path):
    stack, files = prepared_stack(tmp_path)
    with stack:
        worker = stack.start_worker()
        stack.manage("shell", "-c", SUBMIT.format(run=str(files["run"])))
        wait_until(lambda: stack.query("SELECT status FROM submissions_submission") == [("scored",)],
                   what=lambda: f"the run to be scored\n{stack.log('worker')[-3000:]}")

        stack.manage("shell", "-c", ASK)
        wait_until(lambda: _verifications(stack)[-1][1] in ("passed", "failed"),
                   what=lambda: f"the requested verification\n{stack.log('worker')[-3000:]}")
        assert _verifications(stack) == [("organizer", "passed", 1, 1, 2)]  # sw x nDCG@10, R@100
        [(summary, public)] = stack.query("SELECT summary, is_public FROM audit_auditevent WHERE action = 'verified'")
        assert "verified by a second engine (pytrec_eval): 1 submissions, 2 scores" in summary and not public

        stack.query("UPDATE submissions_score SET value = value + 0.01 WHERE metric = 'nDCG@10'")
        stack.manage("shell", "-c", REVEAL)
        wait_until(lambda: len(_verifications(stack)) == 2 and _verifications(stack)[-1][1] in ("passed", "failed"),
                   what=lambda: f"the beat task's verification at the reveal\n{stack.log('worker')[-3000:]}")
        assert _verifications(stack)[-1] == ("reveal", "failed", 1, 1, 2)
        [(summary, public)] = stack.query("SELECT summary, is_public FROM audit_auditevent "
                                          "WHERE action = 'verified' ORDER BY id DESC LIMIT 1")
        assert public and "SECOND ENGINE DISAGREES on 1 of 2 scores" in summary and "Hopper #1" in summary
        [(csv_hash,)] = stack.query("SELECT csv_sha256 FROM leaderboards_frozensnapshot")
        [(details,)] = stack.query("SELECT details FROM audit_auditevent WHERE action = 'results_frozen'")
        assert csv_hash in details
        assert worker.poll() is None
