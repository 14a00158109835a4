"""X-Forwarded-For and X-Forwarded-Proto are believed from the proxies named in
CUPBOARD_TRUSTED_PROXIES only (none by default), and docker/ ships the proxy it names: the
web publishes no port of its own (issue 24: with gunicorn published and the header trusted,
rotating it passed 45 of 45 failed log-ins and 14 of 14 sign-ups)."""
import json
import os
import subprocess
import sys
from ipaddress import ip_network

import pytest
from django.test import Client, override_settings

from tests.waiting import PATIENCE

from .dockerfile import ROOT, compose, shipped_env

# Run with the shipped settings (docker/env.example and compose.yaml), on a database and a
# cache of its own: a client straight at the web rotates X-Forwarded-For, then one behind the
# proxy forges entries before the address the proxy appends, then another client of the proxy.
_ROTATE = """
import json, django
django.setup()
from django.core.management import call_command
from django.test import Client
from django.test.utils import setup_test_environment
from django.urls import reverse
setup_test_environment()
call_command("migrate", verbosity=0)
proxy = {proxy!r}

def log_in(address, forwarded):
    client = Client(REMOTE_ADDR=address, HTTP_X_FORWARDED_FOR=forwarded, HTTP_X_FORWARDED_PROTO="https")
    return client.post(reverse("accounts:login"), {{"username": "nobody", "password": "guess"}}, secure=True).status_code

def sign_up(address, forwarded, name):
    client = Client(REMOTE_ADDR=address, HTTP_X_FORWARDED_FOR=forwarded, HTTP_X_FORWARDED_PROTO="https")
    return client.post(reverse("accounts:signup"), {{"username": name, "email": name + "@example.org",
                       "password1": "a-Long-passw0rd", "password2": "a-Long-passw0rd"}}, secure=True).status_code

print(json.dumps({{
    "direct log-ins": [log_in("198.51.100.7", f"203.0.113.{{i}}") for i in range(4)],
    "direct sign-ups": [sign_up("198.51.100.7", f"203.0.113.{{i}}", f"direct{{i}}") for i in range(3)],
    "proxied log-ins": [log_in(proxy, f"203.0.113.{{i}}, 198.51.100.9") for i in range(4)],
    "proxied sign-ups": [sign_up(proxy, f"203.0.113.{{i}}, 198.51.100.9", f"proxied{{i}}") for i in range(3)],
    "another client": sign_up(proxy, "198.51.100.10", "another"),
}}))
"""


def _proxy() -> tuple[str, dict]:
    """The compose service the web trusts, and it."""
    trusted = shipped_env("web").get("CUPBOARD_TRUSTED_PROXIES", "")
    for name, service in compose()["services"].items():
        address = (service.get("networks") or {}).get("default", {}) or {}
        if address.get("ipv4_address") and address["ipv4_address"] in trusted.split(","):
            return name, service
    raise AssertionError(f"no compose service has the address the web trusts ({trusted!r})")


def test_the_compose_file_ships_the_proxy_the_web_trusts_and_publishes_only_it():
    services = compose()["services"]
    assert "CUPBOARD_BEHIND_PROXY" not in shipped_env("web")
    name, proxy = _proxy()
    assert {"80:80", "443:443"} <= set(proxy["ports"])
    assert [n for n, service in services.items() if service.get("ports")] == [name]  # gunicorn: inside only
    assert "web:8000" in proxy["command"]


@pytest.mark.slow  # a fresh process with the shipped settings migrates its own database
def test_rotating_x_forwarded_for_passes_no_limit_with_the_shipped_settings(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUPBOARD_", "DATABASE_URL", "SECRET_KEY"))}
    env |= shipped_env("web") | {
        "DATABASE_URL": f"sqlite:///{tmp_path}/db.sqlite3", "CUPBOARD_CACHE_URL": "locmem://",
        "CUPBOARD_VAR_DIR": str(tmp_path), "CUPBOARD_SITE_DIR": str(ROOT), "DJANGO_SETTINGS_MODULE": "cupboard.settings",
        "CUPBOARD_RATES": "login-account=3/15m,signup-address=2/h"}
    proxy = _proxy()[1]["networks"]["default"]["ipv4_address"]
    result = subprocess.run([sys.executable, "-c", _ROTATE.format(proxy=proxy)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=PATIENCE)
    assert result.returncode == 0, result.stderr[-3000:]
    answers = json.loads(result.stdout.splitlines()[-1])
    assert answers["direct log-ins"] == [200, 200, 200, 429]
    assert answers["direct sign-ups"] == [302, 302, 429]
    assert answers["proxied log-ins"] == [200, 200, 200, 429]
    assert answers["proxied sign-ups"] == [302, 302, 429]
    assert answers["another client"] == 302


def test_the_old_switch_fails_loudly(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUPBOARD_", "DATABASE_URL", "SECRET_KEY"))}
    env |= {"CUPBOARD_DEBUG": "true", "CUPBOARD_VAR_DIR": str(tmp_path), "CUPBOARD_BEHIND_PROXY": "true"}
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=PATIENCE)
    assert result.returncode != 0 and "CUPBOARD_TRUSTED_PROXIES" in result.stderr


def test_a_bad_address_fails_loudly(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUPBOARD_", "DATABASE_URL", "SECRET_KEY"))}
    env |= {"CUPBOARD_DEBUG": "true", "CUPBOARD_VAR_DIR": str(tmp_path), "CUPBOARD_TRUSTED_PROXIES": "172.30.0.300"}
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=PATIENCE)
    assert result.returncode != 0 and "CUPBOARD_TRUSTED_PROXIES" in result.stderr and "172.30.0.300" in result.stderr


@pytest.mark.django_db
def test_x_forwarded_proto_is_believed_from_the_proxy_only():
    """SECURE_PROXY_SSL_HEADER believes anyone's header: a client straight at gunicorn saying
    "https" over plain HTTP was answered as if over TLS (here: not sent to https)."""
    with override_settings(CUPBOARD_TRUSTED_PROXIES=(ip_network("10.0.0.2"),), SECURE_SSL_REDIRECT=True,
                           SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"), ALLOWED_HOSTS=["cup.example"]):
        direct = Client(REMOTE_ADDR="198.51.100.7", HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="cup.example").get("/")
        assert direct.status_code == 301 and direct["Location"] == "https://cup.example/"
        proxied = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="cup.example").get("/")
        assert proxied.status_code == 200
        plain = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_PROTO="http", HTTP_HOST="cup.example").get("/")
        assert plain.status_code == 301
