"""The site the backup tests back up and restore, and how the restored one is run.

`world()` builds it in this process's database and private storage. Run as a script, in a
process given its own DATABASE_URL (and storage), it builds it there and prints the moment
its exports are compared at and their hashes (export_hashes.py), as JSON:

    python -m tests.operations.site_world
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def world():
    """The judging scene on test B (hidden judgments, three scored runs, topics and qrels on
    both phases), a dev run, a pool export, and test B revealed: frozen results, commitments."""
    import time_machine

    from cupboard.flows.tasks import publish_due_events_task
    from cupboard.judging.pools import pool_export_build, pool_export_create
    from cupboard.leaderboards.models import FrozenSnapshot
    from cupboard.leaderboards.releases import final_results_release_due
    from tests.judging.conftest import build_scene, submit

    scene = build_scene("test-b")
    submit(scene.dev, team=scene.team_a, user=scene.participant, key="A")
    export = pool_export_create(phase=scene.test_b, actor=scene.organizer)
    assert pool_export_build(export_id=export.pk) == "done"
    with time_machine.travel(scene.test_b.reveal_at + timedelta(seconds=1), tick=False):
        publish_due_events_task()  # commitments, the reveal, and the final results frozen
        final_results_release_due()
    assert FrozenSnapshot.objects.filter(phase=scene.test_b).exists()
    return scene


def compared_at(scene):
    """A fixed moment after the reveal: pages say "3 days ago", so the hashes need one."""
    return scene.test_b.reveal_at + timedelta(days=1)


def site_env(database_url: str, var_dir: Path, **more: str) -> dict:
    """The environment of a site's process on `database_url` and its own var folder (its
    private storage there, unless `more` puts it on S3)."""
    env = {key: value for key, value in os.environ.items()
           if key not in {"CUPBOARD_PRIVATE_ROOT", "CUPBOARD_CACHE_URL"}}
    env.update(DATABASE_URL=database_url, CUPBOARD_VAR_DIR=str(var_dir), DJANGO_SETTINGS_MODULE="cupboard.settings",
               **more)
    return env


def run(env: dict, *args: str) -> subprocess.CompletedProcess:
    """`python args` in ROOT with `env`, to its end (five minutes at most)."""
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


if __name__ == "__main__":
    import django
    from django.test.utils import setup_test_environment

    django.setup()
    setup_test_environment()  # the test client's host, "testserver", allowed as in pytest
    from tests.operations.export_hashes import export_hashes

    at = compared_at(world())
    print(json.dumps({"at": at.isoformat(), "hashes": export_hashes(at)}))
