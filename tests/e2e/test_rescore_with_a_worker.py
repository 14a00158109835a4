"""A re-score of 100 runs by a real worker is one step (leaderboards/rescoring.py): an anonymous
reader polling the board's JSON meanwhile sees the old rows or the new ones, never a mix, and
the history gains one change-set; the phase's reveal, due in the middle of it, freezes the new
scores once the step is published, and its results archive holds every consented run.

A real stack (tests/e2e/stack.py: runserver, `celery worker -B`, SQLite, filesystem broker;
the E2E Cup of its SETUP): 50 teams with two runs each are scored at setup (in-process, as the demo does), then qrels v2
is released with the worker running and the dev phase made final with its reveal 2 s later."""
from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.stack import prepared_stack, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.slow]

TEAMS = int(os.environ.get("RESCORE_E2E_TEAMS", "50"))

# 50 teams with two runs each on the E2E Cup's dev phase (tests/e2e/stack.py SETUP), scored here.
TEAMS_SCORED = """
from pathlib import Path
from django.core.files.uploadedfile import SimpleUploadedFile
from cupboard.competitions.models import Phase
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_team, make_user

folder = Path({folder!r})
dev = Phase.objects.get(competition__slug="cup", slug="dev")
for t in range({teams}):
    user = make_user(f"member{{t}}")
    team = make_team(dev.competition, name=f"Team {{t:02}}", members=[user])
    for n in range(2):
        run = SimpleUploadedFile("run.sw.txt", (folder / f"run{{2 * t + n}}.sw.txt").read_bytes())
        submission = submission_create(phase=dev, team=team, user=user, files=[(run, None)],
                                       method_name=f"run {{n}}", release_consent=n == 0)
        assert submission_score(submission_id=submission.pk) == "scored"
print("ready")
"""

# Qrels v2 with the worker running; the dev phase becomes the final one, its reveal in 2 s.
RELEASE = """
from datetime import timedelta
from pathlib import Path
from django.contrib.auth.models import User
from django.utils import timezone
from cupboard.competitions.models import Phase
from cupboard.competitions.services import qrels_release_create

Phase.objects.filter(competition__slug="cup", slug="test-b").update(is_final=False)
Phase.objects.filter(competition__slug="cup", slug="dev").update(is_final=True,
                                                                 reveal_at=timezone.now() + timedelta(seconds=2))
dev = Phase.objects.get(competition__slug="cup", slug="dev")
qrels_release_create(phase=dev, files={{"sw": Path({folder!r}) / "qrels2.sw.tsv"}},
                     actor=User.objects.get(username="organizer"))
"""

ARCHIVE = """
import json, zipfile
from django.contrib.auth.models import User
from cupboard.competitions.models import Phase
from cupboard.leaderboards.archive import results_archive_create
from cupboard.leaderboards.models import ResultsArchive

dev = Phase.objects.get(competition__slug="cup", slug="dev")
archive = ResultsArchive.objects.filter(phase=dev, status="done").first()
if archive is None:
    print(results_archive_create(phase=dev, actor=User.objects.get(username="organizer")).status)
else:
    with archive.file.open("rb") as stored, zipfile.ZipFile(stored) as zipped:
        runs = json.loads(zipped.read("runs/runs.json"))
    print(json.dumps([archive.runs, runs["scoring_version"],
                      [[r["qrels_version"], r["released"]] for r in runs["runs"]]]))
"""


def _data(folder, qrels: Path) -> None:
    """Qrels v2 beside v1 (tests/e2e/stack.py make_data) and 2 runs per team."""
    from evaluator import synthetic

    lines = qrels.read_text().splitlines()
    # v2: the same documents, every third label flipped, so every run's values change.
    flipped = [line if i % 3 else line[:-1] + str(1 - int(line[-1])) for i, line in enumerate(lines)]
    (folder / "qrels2.sw.tsv").write_text("\n".join(flipped) + "\n")
    for i in range(2 * TEAMS):
        synthetic.make_run(folder / f"run{i}.sw.txt", language="sw", count=30, depth=20, tag=f"r{i}")


def _board(stack) -> dict:
    with urllib.request.urlopen(f"{stack.url}/c/cup/dev/leaderboard.json", timeout=30) as answer:
        return json.loads(answer.read())


def _rows(board: dict) -> str:
    """What a reader compares: every board row's rank, team, method, values and averages (the
    official results also list each team's other runs, `board_row` false: not on the board)."""
    return json.dumps([[r["rank"], r["team"], r["method"], r["values"], r["averages"], r["qrels_version"]]
                       for r in board["rows"] if r.get("board_row", True)], sort_keys=True)


def _published(stack) -> bool:
    return stack.query("SELECT outcome FROM submissions_rescorestep") == [("published",)]


def test_a_100_run_rescore_switches_at_once_and_the_reveal_in_its_middle_freezes_the_new_scores(tmp_path):
    stack, files = prepared_stack(tmp_path)
    _data(tmp_path, files["qrels"])
    with stack:
        assert "ready" in stack.manage("shell", "-c", TEAMS_SCORED.format(folder=str(tmp_path), teams=TEAMS),
                                       timeout=600)
        stack.start_server()
        old = _rows(_board(stack))
        changes_before = stack.query("SELECT COUNT(DISTINCT changed_at) FROM leaderboards_leaderboardhistory")[0][0]
        stack.start_worker()
        stack.manage("shell", "-c", RELEASE.format(folder=str(tmp_path)))

        seen, progress = [], []
        deadline = time.monotonic() + 600  # generous: the worker scores 100 runs on a shared 2-core machine
        while True:  # until the step is published and the server's short-lived board state shows it
            assert time.monotonic() < deadline, f"the re-score did not show\n{stack.log('worker')[-3000:]}"
            published = _published(stack)
            board = _board(stack)
            seen.append(_rows(board))
            if "rescoring" in board:
                progress.append(board["rescoring"]["done"])
            elif published and board["qrels_version"] == 2:
                break
            # The server reads the board's state anew at most once a second (CUPBOARD_BOARD_STATE_SECONDS):
            # ten looks a second see every state it shows, where looking without a pause took the
            # CPU the worker re-scoring beside it needed.
            time.sleep(0.1)
        new = seen[-1]
        state = (stack.query("SELECT number, outcome, total, opened_at, closed_at FROM submissions_rescorestep"),
                 stack.query("SELECT status, qrels_release_id, COUNT(*) FROM submissions_submission GROUP BY 1, 2"))
        assert new != old, f"qrels v2 changed the values: {state}"
        assert len(progress) >= 3, f"the reader saw the step under way ({progress})"
        assert progress == sorted(progress) and progress[-1] <= 2 * TEAMS
        mixed = [rows for rows in seen if rows not in (old, new)]
        assert not mixed, f"{len(mixed)} of {len(seen)} answers showed a half re-scored board"
        changes = stack.query("SELECT COUNT(DISTINCT changed_at) FROM leaderboards_leaderboardhistory")[0][0]
        assert changes == changes_before + 1, "the history holds one change-set for the whole re-score"

        [(body, version, qrels)] = wait_until(
            lambda: stack.query("SELECT json, scoring_version, qrels_release_number FROM leaderboards_frozensnapshot"),
            seconds=60, what="the official results frozen after the step")
        assert (version, qrels) == (1, 2)
        assert _rows(json.loads(body)) == new, "frozen from the new scores"

        assert stack.manage("shell", "-c", ARCHIVE).splitlines()[-1] == "queued"
        wait_until(lambda: stack.query("SELECT status FROM leaderboards_resultsarchive") == [("done",)], seconds=120,
                   what=f"the archive built\n{stack.log('worker')[-3000:]}")
        runs, scoring_version, listed = json.loads(stack.manage("shell", "-c", ARCHIVE).splitlines()[-1])
        assert runs == TEAMS and scoring_version == 1, "every consented run's files"
        assert sorted(listed) == [[2, False]] * TEAMS + [[2, True]] * TEAMS, "every run, scored with v2, recorded"
