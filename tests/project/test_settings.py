"""Settings come from the environment, strictly, and production settings pass Django's deploy checks."""
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from cupboard.envconfig import database_from_url, envbool
from tests.waiting import PATIENCE

ROOT = Path(__file__).resolve().parents[2]


def _manage(*args, **env):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CUPBOARD_", "DATABASE_URL", "SECRET_KEY"))}
    full_env.update(env)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=full_env,
                          capture_output=True, text=True, timeout=PATIENCE)


def test_it_passes_check_deploy_with_production_settings(tmp_path):
    result = _manage("check", "--deploy", "--fail-level", "WARNING",
                     CUPBOARD_DEBUG="false", SECRET_KEY="x" * 20 + "-production-secret-0123456789-abcdefghij",
                     ALLOWED_HOSTS="cupboard.example.org", CUPBOARD_VAR_DIR=str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_checkout_without_a_secret_makes_one_and_keeps_it(tmp_path):
    """The organizer's commands work in a checkout with debug off; an installed package still
    refuses (test_production_install.py)."""
    key = "from django.conf import settings; print(settings.SECRET_KEY)"
    first = _manage("shell", "-c", key, CUPBOARD_DEBUG="false", CUPBOARD_VAR_DIR=str(tmp_path))
    assert first.returncode == 0, first.stderr
    kept = tmp_path / "secret-key"
    assert kept.stat().st_mode & 0o777 == 0o600
    assert first.stdout.strip().splitlines()[-1] == kept.read_text().strip()
    assert len(kept.read_text().strip()) >= 50
    assert _manage("shell", "-c", key, CUPBOARD_DEBUG="false", CUPBOARD_VAR_DIR=str(tmp_path)).stdout == first.stdout


def test_an_empty_kept_secret_is_an_error_that_says_what_to_do(tmp_path):
    (tmp_path / "secret-key").write_text("")
    result = _manage("check", CUPBOARD_DEBUG="false", CUPBOARD_VAR_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "secret-key is empty: remove it to make a new key, or set SECRET_KEY" in result.stderr


def test_it_reads_the_secret_from_a_file(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("k3y-from-a-file-" + "abcdefghijklmnopqrstuvwxyz0123456789" + "\n")
    result = _manage("check", "--deploy", "--fail-level", "WARNING", CUPBOARD_DEBUG="false",
                     SECRET_KEY_FILE=str(secret), ALLOWED_HOSTS="x.org", CUPBOARD_VAR_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr


def test_it_parses_booleans_strictly(monkeypatch):
    monkeypatch.setenv("CUPBOARD_X", "Yes")
    assert envbool("CUPBOARD_X", "false") is True
    monkeypatch.setenv("CUPBOARD_X", "ture")
    with pytest.raises(ImproperlyConfigured, match="CUPBOARD_X"):
        envbool("CUPBOARD_X", "false")


def test_it_reads_database_urls():
    pg = database_from_url("postgres://alice:p%40ss@db.example:6543/cup?sslmode=require")
    assert (pg["ENGINE"], pg["NAME"], pg["USER"], pg["PASSWORD"], pg["HOST"], pg["PORT"]) == (
        "django.db.backends.postgresql", "cup", "alice", "p@ss", "db.example", "6543")
    assert pg["OPTIONS"] == {"sslmode": "require"}
    assert database_from_url("sqlite:////abs/db.sqlite3")["NAME"] == "/abs/db.sqlite3"
    assert database_from_url("sqlite:///rel/db.sqlite3")["NAME"] == "rel/db.sqlite3"
    with pytest.raises(ImproperlyConfigured):
        database_from_url("mysql://x/y")


REQUEST = """
from django.test import Client
client = Client(HTTP_HOST="localhost")
for path in ("/no-such-page/", "/static/cupboard.css", "/static/plotly/plotly-cupboard.min.js"):
    response = client.get(path, secure=True)
    body = response.content if hasattr(response, "content") else b"".join(response.streaming_content)
    print(path, response.status_code, body[:4000])
"""


def test_debug_is_off_by_default_and_pages_and_static_files_still_work(tmp_path):
    """Only a secret is set: the 404 page lists no URL patterns, WhiteNoise serves static from the checkout."""
    result = _manage("shell", "-c", REQUEST, SECRET_KEY="k" * 50, CUPBOARD_VAR_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    not_found, static, plotly = [line for line in result.stdout.splitlines() if line.startswith("/")]
    assert not_found.startswith("/no-such-page/ 404 ")
    assert "URLconf" not in not_found and "admin/" not in not_found
    assert static.startswith("/static/cupboard.css 200 ")
    assert plotly.startswith("/static/plotly/plotly-cupboard.min.js 200 ")
