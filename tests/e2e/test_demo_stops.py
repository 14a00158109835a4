"""`make demo` serves as a site would and Ctrl-C stops everything within 5 s: scripts/run-demo
with its server, its supervised worker and its beat all up; no debug page for a visitor, plotly
served gzipped and cached; then SIGINT to its process group as a terminal sends it. Before,
`celery worker -B` sat at "beat: Shutting down" for a minute and more."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cupboard.staticfiles import PLOTLY
from tests.e2e.stack import ROOT, ctrl_c_as_in_a_terminal, free_port, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.slow]  # the whole demo started and stopped


def group_members(pgid: int) -> list[int]:
    """Processes still alive in a process group (zombies are gone for our purpose)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


def _get(port: int, path: str, **headers) -> tuple[int, dict, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    result = response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    connection.close()
    return result


def _check_it_serves_as_a_site_would(port: int, var: Path) -> None:
    """Debug off: a missing page is the site's own 404, not Django's list of URL patterns; plotly
    (1.5 MB) crosses the network once, gzipped, under a hashed name cached for a year."""
    status, _, body = _get(port, "/no/such/page/")
    assert status == 404 and b"There is no such page" in body and b"URLconf" not in body
    hashed = json.loads((var / "static" / "staticfiles.json").read_text())["paths"][PLOTLY]
    status, headers, body = _get(port, f"/static/{hashed}", **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers.get("content-encoding") == "gzip", headers
    assert "immutable" in headers["cache-control"] and len(body) < 600_000


def test_the_demo_serves_as_a_site_would_and_ctrl_c_stops_it_within_five_seconds(tmp_path):
    port = free_port()
    env = {**os.environ, "CUPBOARD_VAR_DIR": str(tmp_path), "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
           "CELERY_BROKER_URL": "filesystem://", "PORT": str(port), "CUPBOARD_DEBUG": "false",
           "CUPBOARD_STATIC_ROOT": str(tmp_path / "static"), "VENV": str(Path(sys.executable).parents[1])}
    out = open(tmp_path / "run-demo.out", "wb")
    demo = subprocess.Popen([str(ROOT / "scripts" / "run-demo")], cwd=ROOT, env=env, stdout=out,
                            stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=ctrl_c_as_in_a_terminal)
    try:
        def listening():
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0
        wait_until(listening, what="the demo's server")
        wait_until(lambda: "ready" in (tmp_path / "worker.log").read_text(errors="replace"), what="the demo's worker")
        wait_until(lambda: "beat: Starting" in (tmp_path / "beat.log").read_text(errors="replace"), what="the demo's beat")
        _check_it_serves_as_a_site_would(port, tmp_path)
        pids = [int(p) for p in re.findall(r"(?:worker|beat|web) pid (\d+)", (tmp_path / "run-demo.out").read_text())]
        assert len(pids) == 3
        # Mails the worker writes link to the port the demo serves on, not to :8000.
        worker_env = Path(f"/proc/{pids[0]}/environ").read_bytes().split(b"\0")
        assert f"CUPBOARD_SITE_URL=http://127.0.0.1:{port}".encode() in worker_env
        assert all(group_members(pid) for pid in pids)

        started = time.monotonic()
        os.killpg(demo.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
        demo.wait(timeout=10)
        took = time.monotonic() - started
        assert took < 5, f"run-demo took {took:.1f} s to stop (this deadline is the point: Ctrl-C stops the demo within 5 s)"
        wait_until(lambda: not any(group_members(pid) for pid in pids), seconds=1,
                   what=f"every process of the demo to be gone: {[group_members(p) for p in pids]}")
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
        for pid in re.findall(r"(?:worker|beat|web) pid (\d+)", (tmp_path / "run-demo.out").read_text()):
            try:
                os.killpg(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        out.close()
