"""docker/ is kept correct by reading (no Docker engine runs here), except for what can be
checked without one: the files the Dockerfile copies before `pip install` must be enough to
build the package, and every service in the compose file must run a command that exists."""
import re
import subprocess
import sys
import zipfile

from .dockerfile import DOCKERFILE, copy_build_context


def test_the_files_the_image_copies_build_the_package(tmp_path):
    context = copy_build_context(tmp_path / "context")
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                             "--wheel-dir", str(tmp_path / "dist"), str(context)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("cupboard-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"cupboard/settings.py", "cupboard/competitions/definitions/miracl-wsdm-cup.yaml",
            "evaluator/cli/submit.py", "evaluator/client/http.py", "evaluator/engines/scoring.py",
            "evaluator/io/runs.py", "evaluator/__main__.py"} <= names
    assert any(re.search(r"\.dist-info/licenses/LICENSE$", name) for name in names)


def test_every_compose_service_runs_something_the_image_has():
    import yaml

    compose = yaml.safe_load((DOCKERFILE.parent / "compose.yaml").read_text())
    # Services of other images (PostgreSQL, Redis, the proxy) run those images' programs.
    commands = {name: service.get("command") for name, service in compose["services"].items() if "build" in service}
    for name, command in commands.items():
        argv = command if isinstance(command, list) else (command or "").split()
        if not argv:
            continue
        program = argv[0]
        assert program in {"python", "gunicorn", "celery", "sh"}, f"{name}: {program}"
        if program == "python" and argv[1:2] == ["manage.py"]:
            from django.core.management import get_commands

            assert argv[2] in get_commands(), f"{name}: manage.py {argv[2]}"
        if program == "celery":
            assert argv[1:3] == ["-A", "cupboard"], f"{name}: {argv}"
