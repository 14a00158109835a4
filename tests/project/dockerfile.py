"""What docker/Dockerfile does, read from the file, so tests that imitate the image stay in step with it."""
import json
import re
import shlex
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "docker" / "Dockerfile"


def _instructions() -> list[tuple[str, str]]:
    """(instruction, arguments) pairs, with backslash continuations joined."""
    joined, current = [], ""
    for line in DOCKERFILE.read_text().splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip().removesuffix("\\") + " "
        if not line.rstrip().endswith("\\"):
            joined.append(current.strip())
            current = ""
    return [tuple(line.split(None, 1)) for line in joined]


def copied_before_install() -> list[str]:
    """Sources of the `COPY src... dest` lines above the first `RUN pip install`."""
    sources = []
    for instruction, arguments in _instructions():
        if instruction == "RUN" and arguments.startswith("pip install"):
            return sources
        if instruction == "COPY" and "--from" not in arguments:
            sources += arguments.split()[:-1]
    raise AssertionError("the Dockerfile never runs pip install")


def copy_build_context(target: Path) -> Path:
    """Exactly the files the image copies before installing, in `target` (its /app)."""
    for source in copied_before_install():
        if (ROOT / source).is_dir():
            # as .dockerignore leaves out: bytecode, and the extension an editable install built in place
            shutil.copytree(ROOT / source, target / source, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        else:
            (target / source).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / source, target / source)
    return target


def image_env(moved: dict[str, Path]) -> dict[str, str]:
    """The image's `ENV name=value` settings, with the folders in `moved` (e.g. /app) put elsewhere."""
    env = {}
    for instruction, arguments in _instructions():
        if instruction == "ENV":
            for pair in shlex.split(arguments):
                name, value = pair.split("=", 1)
                for folder, replacement in moved.items():
                    if value == folder or value.startswith(folder + "/"):
                        value = str(replacement) + value[len(folder):]
                env[name] = value
    return env


def image_command() -> list[str]:
    """The image's default command (CMD in exec form)."""
    [command] = [arguments for instruction, arguments in _instructions() if instruction == "CMD"]
    return json.loads(command)


COMPOSE = ROOT / "docker" / "compose.yaml"


def compose() -> dict:
    import yaml

    return yaml.safe_load(COMPOSE.read_text())


def shipped_env(service: str = "web") -> dict[str, str]:
    """What `service` of docker/compose.yaml runs with when docker/.env is docker/env.example as
    shipped: the file's settings, then the compose file's `environment`, its `${NAME:-default}`
    filled from the file as compose does."""
    dotenv = {}
    for line in (ROOT / "docker" / "env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, value = line.split("=", 1)
            dotenv[name.strip()] = value.strip()

    def filled(value: str) -> str:
        return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}", lambda m: dotenv.get(m[1]) or m[2] or "", str(value))

    environment = compose()["services"][service].get("environment", {})
    return {**dotenv, **{name: filled(value) for name, value in environment.items()}}
