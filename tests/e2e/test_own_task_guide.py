"""docs/your-own-task.md works as written: its shell blocks run in order, in an empty folder,
against a fresh database with a real worker (`make serve` itself is tested in test_serve.py),
and end with the baseline scored on the competition's leaderboard. The only changes made to
the text: the checkout's paths (the virtualenv, manage.py, the samples)."""
from __future__ import annotations

import subprocess
import urllib.request

import pytest

from tests.e2e.stack import BIN, ROOT, Stack, wait_until
from tests.e2e.test_guide_commands import guide, shell_blocks

pytestmark = [pytest.mark.worker, pytest.mark.slow]  # a server and a real worker


def as_run_here(block: str) -> str:
    return (block.replace(".venv/bin/python manage.py", f"{BIN}/python {ROOT}/manage.py")
            .replace(".venv/bin/python -m evaluator", f"{BIN}/python -m evaluator")
            .replace("S=evaluator/samples", f"S={ROOT}/evaluator/samples"))


def test_the_own_task_walk_through_runs_as_written(tmp_path):
    # the walk-through's blocks: not `make serve` (test_serve.py), nor the import of a second topic
    # variant, which the guide shows for a competition that declares variants (my-task does not)
    blocks = [b for b in shell_blocks(guide("your-own-task")) if "make serve" not in b and "--variant" not in b]
    assert len(blocks) == 4 and "evaluator score --definition" in blocks[2] and "submit_baseline" in blocks[-1]
    (tmp_path / "site").mkdir()
    work = tmp_path / "organizer"
    work.mkdir()
    with Stack(tmp_path / "site") as stack:
        stack.migrate()
        stack.manage("first_organizer", "--noinput")  # what `make serve` does first
        stack.start_worker()
        for block in blocks:
            result = subprocess.run(["bash", "-euo", "pipefail", "-c", as_run_here(block)], cwd=work,
                                    env={**stack.env, "CUPBOARD_SITE_DIR": str(ROOT)}, capture_output=True,
                                    text=True, timeout=300)
            assert result.returncode == 0, f"{block}\nexit {result.returncode}\n{result.stdout}\n{result.stderr}"
            if "evaluator score" in block:  # the definition's measures and its one average, Avg
                assert result.stdout.split("\n")[0].split() == ["metric", "sw", "yo", "Avg"], result.stdout
                assert [line.split()[0] for line in result.stdout.splitlines()[1:]] == ["nDCG@10", "R@100"]
        wait_until(lambda: stack.query("SELECT status FROM submissions_submission") == [("scored",)],
                   what=lambda: f"the baseline to be scored\n{stack.log('worker')}")
        stack.start_server()
        page = urllib.request.urlopen(f"{stack.url}/c/my-task/dev/leaderboard/", timeout=120).read().decode()
        assert "BM25" in page and "Swahili" in page and "Avg" in page
