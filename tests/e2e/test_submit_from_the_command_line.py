"""A participant's script uploads with `python -m evaluator submit --wait`: runserver and a real
Celery worker (filesystem broker) on a fresh SQLite file, the CLI as its own process. The
scores it prints must equal what `python -m evaluator score` computes for the same files,
rounded as the platform shows them; a bad file must come back with file and line and store nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.e2e.stack import ROOT, expected_scores, make_participant, prepared_stack, wait_until
from tests.waiting import PATIENCE

pytestmark = [pytest.mark.worker, pytest.mark.slow]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-cli")
    stack, files = prepared_stack(folder)
    with stack:
        stack.token = make_participant(stack)
        stack.start_server()
        stack.start_worker()
        stack.files = files
        yield stack


def submit(stack, *run_args: str, fmt: str = "json") -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "evaluator", "submit", "--server", stack.url, "--competition", "cup",
            "--phase", "dev", "--method", "from the shell", "--wait", "--poll", "0.5", "--timeout", "120",
            "--format", fmt, "--run", *run_args]
    return subprocess.run(argv, cwd=ROOT, env={**os.environ, "CUPBOARD_TOKEN": stack.token},
                          capture_output=True, text=True, timeout=PATIENCE)


def test_it_uploads_waits_and_prints_the_scores(stack):
    result = submit(stack, str(stack.files["run"]))
    assert result.returncode == 0, result.stderr + stack.log("worker")[-3000:]
    answer = json.loads(result.stdout)
    expected = expected_scores(stack.files)["subsets"]["sw"]
    assert answer["status"] == "scored" and answer["team"] == "Shell Scripts"
    assert answer["scores"]["sw"] == {metric: round(value, 3) for metric, value in expected.items()}
    assert "scored" in result.stderr  # the state changes were told while waiting
    assert stack.query("SELECT status, method_name FROM submissions_submission") == [("scored", "from the shell")]
    # The worker mails the team after the COMMIT (notifications/): the file backend's folder gets it.
    mails = wait_until(lambda: [p.read_text() for p in (stack.folder / "mail").glob("*.log")],
                       what="the mail saying the submission is scored")
    assert len(mails) == 1 and "To: cli-user@example.org" in mails[0] and "(from the shell) is scored" in mails[0]

    again = submit(stack, str(stack.files["run"]), fmt="text")  # the same files: the same submission, as a table
    assert again.returncode == 0, again.stderr
    # one group holds every language: a single-average board, its one average named as the site does
    header, average, sw = again.stdout.splitlines()[1:4]
    assert header.split() == ["nDCG@10", "R@100"]
    assert sw.split() == ["sw", f"{expected['nDCG@10']:.3f}", f"{expected['R@100']:.3f}"]
    assert average.split()[1:] == sw.split()[1:]  # sw is the only language
    assert average.split()[0] == "Avg"  # the site's label, not the API's key "all"
    assert again.stdout.startswith(f"submission #{answer['number']} scored")
    assert stack.query("SELECT count(*) FROM submissions_submission") == [(1,)]


def test_a_bad_line_comes_back_with_file_and_line_and_stores_nothing(stack, tmp_path):
    lines = stack.files["run"].read_text().splitlines()
    lines[2] = f"{lines[2].split()[0]} Q0 not-a-docid 3 1.5 e2e"  # line 3: no ARTICLE#PASSAGE docid
    bad = tmp_path / "run.broken.sw.txt"
    bad.write_text("\n".join(lines) + "\n")
    before = stack.query("SELECT count(*) FROM submissions_submission")
    result = submit(stack, f"sw={bad}")
    assert result.returncode == 1, result.stderr
    errors = json.loads(result.stdout)["errors"]
    assert (errors[0]["file"], errors[0]["line"]) == ("run.broken.sw.txt", 3), errors
    assert stack.query("SELECT count(*) FROM submissions_submission") == before
