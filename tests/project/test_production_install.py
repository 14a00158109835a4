"""The image's install, without Docker: what docker/Dockerfile copies, installed as it installs it
(`pip install .`, not editable) into a fresh virtualenv, run with the image's environment (debug
off) behind a TLS proxy: migrate, a competition, collectstatic, then gunicorn as the image runs it.

Honest and fast: the package under test (cupboard, evaluator, and the pages) is built and installed
from the copied files alone; only its pinned dependencies are borrowed from the project's
virtualenv, by a path line in the fresh one (not a site dir: the editable install there stays out).
"""
import gzip
import http.client
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from cupboard.staticfiles import PLOTLY
from tests.e2e.stack import free_port, wait_until
from tests.waiting import PATIENCE

from .dockerfile import copy_build_context, image_command, image_env

pytestmark = pytest.mark.slow  # a fresh virtualenv and a non-editable install

SECRET = "production-install-test-" + "k" * 40


def _run(argv: list, *, cwd: Path, env: dict | None = None, timeout: float = PATIENCE) -> str:
    result = subprocess.run([str(arg) for arg in argv], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, f"{argv}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def _fresh_venv(folder: Path) -> Path:
    """A virtualenv that sees the project's dependencies but no cupboard."""
    _run([sys.executable, "-m", "venv", "--without-pip", folder], cwd=folder.parent)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = folder / "lib" / version / "site-packages"
    (site / "project-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return folder / "bin" / "python"


def _image_environment(app: Path, var: Path) -> dict:
    inherited = {k: v for k, v in os.environ.items()
                 if not k.startswith(("CUPBOARD_", "DATABASE_URL", "CELERY_", "SECRET_KEY", "DJANGO_"))}
    return {**inherited, **image_env({"/app": app, "/var/lib/cupboard": var}),
            "SECRET_KEY": SECRET, "CUPBOARD_TRUSTED_PROXIES": "127.0.0.1"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The base URL's port of gunicorn serving the installed package, and its install folders."""
    tmp = tmp_path_factory.mktemp("image")
    app, var = copy_build_context(tmp / "app"), tmp / "var"
    python = _fresh_venv(tmp / "venv")
    _run([python, "-m", "pip", "install", "--quiet", "--no-index", "--no-build-isolation", "--no-deps",
          "--ignore-installed", ".[s3]"], cwd=app)
    package = Path(_run([python, "-c", "import cupboard; print(cupboard.__file__)"], cwd=tmp).strip()).parent
    env = _image_environment(app, var)
    for args in (["migrate", "--noinput"], ["load_competition", package / "competitions/definitions/lareqa.yaml"],
                 ["collectstatic", "--noinput"]):
        _run([python, "manage.py", *args], cwd=app, env=env)
    port = free_port()
    command = image_command()
    assert command[0] == "gunicorn"
    command = [python, "-m", *command]
    command[command.index("--bind") + 1] = f"127.0.0.1:{port}"
    command[command.index("--workers") + 1] = "1"
    log = open(tmp / "gunicorn.log", "wb")
    process = subprocess.Popen([str(arg) for arg in command], cwd=app, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: _listening(port) or process.poll() is not None, what="gunicorn")
        assert process.poll() is None, (tmp / "gunicorn.log").read_text()
        yield {"port": port, "package": package, "static_root": Path(env["CUPBOARD_STATIC_ROOT"]),
               "python": python, "app": app, "env": env}
    finally:
        process.terminate()
        process.wait(timeout=15)
        log.close()


def _listening(port: int) -> bool:
    try:
        http.client.HTTPConnection("127.0.0.1", port, timeout=1).connect()
        return True
    except OSError:
        return False


def get(server, path: str, **headers) -> tuple[int, dict, bytes]:
    """One request as a TLS proxy forwards it; redirects are not followed."""
    connection = http.client.HTTPConnection("127.0.0.1", server["port"], timeout=120)
    connection.request("GET", path, headers={"X-Forwarded-Proto": "https", "Host": "127.0.0.1", **headers})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def test_it_runs_the_package_installed_not_the_copied_sources(server):
    assert "site-packages" in server["package"].parts


def test_the_installed_package_refuses_to_start_without_a_secret(server):
    """Only a checkout may keep a key of its own in var/: an image must be given SECRET_KEY."""
    env = {k: v for k, v in server["env"].items() if k != "SECRET_KEY"}
    result = subprocess.run([str(server["python"]), "manage.py", "check"], cwd=server["app"], env=env,
                            capture_output=True, text=True, timeout=PATIENCE)
    assert result.returncode != 0
    assert "SECRET_KEY (or SECRET_KEY_FILE) is required" in result.stderr
    assert not (Path(env["CUPBOARD_VAR_DIR"]) / "secret-key").exists()


def test_pages_answer_200(server):
    for path in ("/", "/c/lareqa/", "/c/lareqa/leaderboards/", "/accounts/login/", "/admin/login/"):
        status, _, body = get(server, path)
        assert status == 200, (path, status, body[:2000])
    assert b"LAReQA" in get(server, "/")[2]


def test_health_and_readiness_answer_a_probe_by_address(server):
    """A balancer asks by the process's address (not in ALLOWED_HOSTS) over plain http."""
    for path in ("/healthz", "/readyz"):
        status, headers, body = get(server, path, Host="10.1.2.3:8000", **{"X-Forwarded-Proto": "http"})
        assert (status, json.loads(body)["status"]) == (200, "ok"), (path, body)


def test_the_static_files_the_pages_name_are_served(server):
    for page in ("/", "/admin/login/"):
        names = re.findall(rb'(?:href|src)="(/static/[^"]+)"', get(server, page)[2])
        assert names, page
        for name in names:
            status, headers, body = get(server, name.decode())
            assert status == 200 and body, (page, name, status)
            assert "immutable" in headers["cache-control"], (name, headers)  # a hashed name


def test_plotly_is_served_gzipped_and_cacheable_for_a_year(server):
    manifest = json.loads((server["static_root"] / "staticfiles.json").read_text())
    status, headers, body = get(server, "/static/" + manifest["paths"][PLOTLY], **{"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    max_age = int(re.search(r"max-age=(\d+)", headers["cache-control"]).group(1))
    assert max_age >= 365 * 24 * 3600 and "immutable" in headers["cache-control"]
    original = (Path(__file__).resolve().parents[2] / "static" / PLOTLY).read_bytes()
    assert len(body) < len(original) / 2 and gzip.decompress(body) == original


def test_an_unknown_page_is_a_plain_404(server):
    status, _, body = get(server, "/no-such-page/")
    assert status == 404
    assert b"URLconf" not in body and b"admin/" not in body
