"""`make serve`: an empty site of one's own in one command (scripts/serve), with debug off, a
first organizer who can sign in, web, worker and beat; run again, it keeps its key and data."""
from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.stack import ROOT, ctrl_c_as_in_a_terminal, free_port, wait_until
from tests.waiting import PATIENCE

pytestmark = [pytest.mark.worker, pytest.mark.slow]


def _serve(tmp_path: Path, port: int) -> tuple[subprocess.Popen, Path]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUPBOARD_", "DATABASE_URL", "SECRET_KEY",
                                                                      "CELERY_"))}
    env.update(CUPBOARD_VAR_DIR=str(tmp_path), CUPBOARD_STATIC_ROOT=str(tmp_path / "static"), PORT=str(port),
               VENV=str(Path(sys.executable).parents[1]))
    out = tmp_path / f"serve-{port}.out"
    process = subprocess.Popen([str(ROOT / "scripts" / "serve")], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=out.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
                               preexec_fn=ctrl_c_as_in_a_terminal)
    wait_until(lambda: "cupboard on http" in out.read_text() or process.poll() is not None, what="scripts/serve to start")
    assert process.poll() is None, out.read_text()
    wait_until(lambda: _listening(port), what="gunicorn")
    return process, out


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _stop(process: subprocess.Popen, out: Path) -> None:
    """Ctrl-C, as a person stops it; whatever it started is killed when it does not stop, so a failed wait
    leaves no worker behind restarting on a deleted folder."""
    os.killpg(process.pid, signal.SIGINT)  # how soon it stops is test_demo_stops' business, not this test's
    try:
        process.wait(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        for group in [process.pid, *map(int, re.findall(r"^\w+ pid (\d+)", out.read_text(), re.M))]:
            try:
                os.killpg(group, signal.SIGKILL)
            except ProcessLookupError:
                pass
        raise


def _sign_in(port: int, username: str, password: str) -> str:
    """Signs in through the log-in form as a browser does; the profile page it then gets."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    base = f"http://127.0.0.1:{port}"
    form = opener.open(f"{base}/accounts/login/", timeout=120).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "username": username, "password": password})
    opener.open(urllib.request.Request(f"{base}/accounts/login/", data=data.encode(),
                                       headers={"Referer": f"{base}/accounts/login/"}), timeout=30).read()
    return opener.open(f"{base}/accounts/profile/", timeout=120).read().decode()


def test_an_empty_site_of_ones_own_starts_signs_in_and_keeps_its_key(tmp_path):
    port = free_port()
    process, out = _serve(tmp_path, port)
    try:
        password = re.search(r"First organizer: organizer, password: (\S+)", out.read_text()).group(1)
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=120)
        assert page.status == 200 and not page.geturl().startswith("https")  # plain http, no redirect
        css = re.search(r'href="(/static/[^"]+\.css)"', page.read().decode()).group(1)
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}{css}", timeout=120).status == 200
        assert "organizer" in _sign_in(port, "organizer", password)
        wait_until(lambda: "ready" in (tmp_path / "worker.log").read_text(errors="replace"), what="the worker")
        wait_until(lambda: "beat: Starting" in (tmp_path / "beat.log").read_text(errors="replace"), what="the beat")
        assert "DEBUG" not in (tmp_path / "web.log").read_text()
    finally:
        _stop(process, out)
    key = (tmp_path / "secret-key").read_text()

    process, out = _serve(tmp_path, port)
    try:
        assert "1 account(s) exist already: nothing to do." in out.read_text()
        assert "organizer" in _sign_in(port, "organizer", password)
    finally:
        _stop(process, out)
    assert (tmp_path / "secret-key").read_text() == key
