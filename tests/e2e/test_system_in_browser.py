"""Issue 36's "done when", end to end: a team uploads the example BM25 image through the form
of a systems phase in headless Chromium; a real runner (`celery worker -Q systems`, bubblewrap)
runs it on topics the team never saw, and the leaderboard shows the scores that the same system
run by hand gets from `python -m evaluator score`. A runner killed mid-execution leaves it to
another, which runs it again; a system over its memory limit is stopped and its page says so.

runserver, an ordinary worker with beat (scoring, the stale sweep) and the runners are
subprocesses on a fresh SQLite file and the filesystem broker (tests/e2e/stack.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from cupboard.systems.sandbox import sandbox_problem
from tests.e2e.stack import ROOT, expected_scores, prepared_stack, wait_until
from tests.e2e.test_upload_scored_in_browser import leaderboard_cell, page, sign_up_and_form_a_team  # noqa: F401 - page
from tests.systems.image_tars import EXAMPLE, example_image

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.slow,
              pytest.mark.skipif(bool(sandbox_problem()), reason=f"no sandbox here: {sandbox_problem()}")]

QUICK = {"CUPBOARD_STALE_AFTER": "3", "CUPBOARD_SWEEP_INTERVAL": "1", "CUPBOARD_RESEND_AFTER": "2"}
BLIND = 'from cupboard.competitions.models import Phase\nPhase.objects.filter(slug="dev").update(kind="systems")'


def write_corpus(files: dict, folder) -> None:
    """The passages the qrels judge, each saying its query's words when relevant, and its own id."""
    folder.mkdir(parents=True)
    with open(files["qrels"]) as qrels, open(folder / "sw.jsonl", "w") as corpus:
        for line in qrels:
            qid, _, docid, label = line.split()
            text = f"synthetic sw query {qid}" if int(label) > 0 else f"synthetic passage {docid}"
            corpus.write(json.dumps({"docid": docid, "text": text}) + "\n")


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-systems")
    stack, files = prepared_stack(folder, **QUICK)
    stack.manage("shell", "-c", BLIND)
    write_corpus(files, folder / "corpus" / "cup")  # CUPBOARD_VAR_DIR/corpus/<slug>: the default corpus dir
    with stack:
        stack.start_server()
        stack.start_worker()  # the default queue and beat: scoring and the sweep, never a system
        stack.files = files
        yield stack


@pytest.fixture(scope="module", autouse=True)
def team(stack, page):
    """Ada signs up and forms the team Lovelace, once for the module (`page` is the upload test's)."""
    sign_up_and_form_a_team(page, stack.url)


def submit_system(page, url: str, image, method: str) -> int:
    page.goto(f"{url}/c/cup/dev/system/")
    assert "synthetic sw query" not in page.content()
    page.set_input_files("input[name=image]", str(image))
    page.fill("input[name=method_name]", method)
    page.click("form.upload-system button[type=submit]")
    page.wait_for_url(f"{url}/systems/*/")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def execution(stack, system: int) -> tuple:
    rows = stack.query("SELECT status, attempts, submission_id, status_reason FROM systems_execution "
                       "WHERE system_id = ? ORDER BY id DESC", system)
    return rows[0] if rows else (None, 0, None, "")


def by_hand(stack, tmp_path) -> dict:
    """The example system run by hand on the phase's topics and the same corpus, scored by the evaluator."""
    topics, output = tmp_path / "topics", tmp_path / "by-hand"
    topics.mkdir()
    output.mkdir()
    (topics / "sw.tsv").write_bytes(stack.files["topics"].read_bytes())
    subprocess.run([sys.executable, EXAMPLE / "bm25.py", "--topics", topics, "--corpus",
                    stack.folder / "corpus" / "cup", "--output", output], check=True, capture_output=True, cwd=ROOT)
    return expected_scores({**stack.files, "run": output / "sw.trec"})


def test_the_example_image_runs_on_hidden_topics_and_lands_on_the_board(stack, page, tmp_path):
    runner = stack.start_worker("runner", beat=False, queues="systems")
    system = submit_system(page, stack.url, example_image(), "BM25 in a box")
    wait_until(lambda: execution(stack, system)[0] not in (None, "queued", "running"), every=0.5,
               what=lambda: f"the execution to end\n{stack.log('runner')[-3000:]}")
    status, attempts, submission, reason = execution(stack, system)
    assert (status, attempts, reason) == ("done", 1, "") and submission
    wait_until(lambda: stack.query("SELECT status FROM submissions_submission WHERE id = ?", submission)
               == [("scored",)], every=0.5, what=lambda: f"its run to be scored\n{stack.log('worker')[-3000:]}")
    expected = by_hand(stack, tmp_path)["subsets"]["sw"]["nDCG@10"]
    assert expected > 0 and leaderboard_cell(page, stack.url, "Lovelace", "sw") == f"{expected:.3f}"
    page.goto(f"{stack.url}/systems/{system}/")
    card = page.locator(".execution").first
    assert card.get_attribute("data-status") == "done" and "MiB" in card.locator(".memory").inner_text()
    assert "synthetic sw query" not in page.content()
    stack.stop(runner)


def test_a_runner_killed_mid_execution_leaves_it_to_another(stack, page):
    doomed = stack.start_worker("doomed", beat=False, queues="systems", CUPBOARD_JOB_PAUSE="60")
    system = submit_system(page, stack.url, example_image(), "BM25 again")
    wait_until(lambda: execution(stack, system)[:2] == ("running", 1), every=0.5, what="claimed by the doomed runner")
    os.killpg(doomed.pid, signal.SIGKILL)
    doomed.wait(timeout=30)
    rescuer = stack.start_worker("rescuer", beat=False, queues="systems")
    wait_until(lambda: execution(stack, system)[0] == "done", every=0.5,
               what=lambda: f"run again by the rescuer\n{stack.log('rescuer')[-3000:]}")
    assert execution(stack, system)[1] == 2  # the same runs as the first system's: stored once, named
    stack.stop(rescuer)


def test_a_system_over_its_memory_limit_tells_the_team_why(stack, page, tmp_path):
    from scripts.build_system_image import build

    code = tmp_path / "hog"
    code.mkdir()
    (code / "hog.py").write_text("blocks = [bytearray(2 ** 20) for _ in range(4000)]\n")
    build(code, "hog.py", tmp_path / "hog.tar", tag="hog:1")
    tight = stack.start_worker("tight", beat=False, queues="systems", CUPBOARD_SYSTEM_MEMORY_BYTES=str(128 * 2 ** 20))
    system = submit_system(page, stack.url, tmp_path / "hog.tar", "memory hog")
    wait_until(lambda: execution(stack, system)[0] == "stopped", every=0.5,
               what=lambda: f"stopped\n{stack.log('tight')[-3000:]}")
    page.goto(f"{stack.url}/systems/{system}/")
    assert "more than its 128 MiB of memory" in page.locator(".execution .reason").first.inner_text()
    stack.stop(tight)
