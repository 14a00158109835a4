"""PostgreSQL stops under a production-shaped server (gunicorn, debug off): pages answer a
short 503 page, the API a JSON 503, both with Retry-After; an upload in flight gets its
answer instead of a connection reset, and `python -m evaluator submit` exits 3 (try again later)
with the Retry-After; once the database is back everything answers again.

The database is a cluster of the test's own (tests/e2e/throwaway.py), never the machine's.
"""
from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from tests.e2e.stack import ROOT, api_upload, make_participant, prepared_stack, wait_until
from tests.e2e.throwaway import ThrowawayPostgres, postgres_bin
from tests.waiting import PATIENCE

pytestmark = [pytest.mark.skipif(postgres_bin() is None, reason="no PostgreSQL server in /usr/lib/postgresql"),
              pytest.mark.worker, pytest.mark.slow]

PRODUCTION = {"CUPBOARD_DEBUG": "false", "SECRET_KEY": "outage-test-only", "CUPBOARD_SSL_REDIRECT": "false",
              "CUPBOARD_SECURE_COOKIES": "false"}


def fetch(url: str, token: str = "") -> tuple[int, dict, str]:
    """(status, headers, body) of a GET, whatever the status."""
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def test_a_database_outage_answers_503_with_retry_after_and_the_site_comes_back(tmp_path):
    with ThrowawayPostgres() as pg:
        stack, files = prepared_stack(tmp_path, DATABASE_URL=pg.create_database("cupboard"))
        with stack:
            token = make_participant(stack)
            stack.start_gunicorn(**PRODUCTION)
            assert fetch(stack.url + "/")[0] == 200
            pg.stop()

            # A page kept whole (competitions/page_cache.py) may still be served while the state
            # its process read is fresh (CUPBOARD_BOARD_STATE_SECONDS); then the outage shows.
            status, headers, page = wait_until(lambda: (answer := fetch(stack.url + "/"))[0] == 503 and answer,
                                               what="the home page to answer the outage")
            assert (status, headers["Retry-After"]) == (503, "30") and "Back in a moment" in page
            assert headers["Content-Type"].startswith("text/html")

            big = tmp_path / "run.big.sw.txt"  # ~20 MB: far more than the socket buffers hold
            big.write_bytes(files["run"].read_bytes() * (20_000_000 // files["run"].stat().st_size + 1))
            status, answer = api_upload(stack, token, big)  # a reset would raise ServerError here
            assert status == 503 and answer["errors"][0]["code"] == "unavailable"

            cli = subprocess.run([sys.executable, "-m", "evaluator", "submit", "--server", stack.url, "--competition",
                                  "cup", "--phase", "dev", "--method", "e2e", "--run", str(files["run"]),
                                  "--token", token], cwd=ROOT, capture_output=True, text=True, timeout=PATIENCE)
            assert cli.returncode == 3 and "nothing was stored; try again in 30 s" in cli.stderr, cli.stderr

            status, headers, body = fetch(stack.url + "/submissions/api/1/", token)
            assert (status, headers["Retry-After"]) == (503, "30")
            assert json.loads(body)["errors"][0]["code"] == "unavailable"

            pg.start()
            wait_until(lambda: fetch(stack.url + "/")[0] == 200, what="the site to answer again")
            status, answer = api_upload(stack, token, files["run"])
            assert status == 201, answer
            assert "Internal Server Error" not in stack.log("server")
