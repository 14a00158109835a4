"""Where in a competition's YAML file a problem is: `file:line: key.path: message`, the line of
the key (or of the nearest key above it that the file has, for a missing one), so an organizer
goes straight to it. The lines are read by evaluator/yaml_lines.py, which the command line's
`--definition FILE` uses too."""
from __future__ import annotations

from pathlib import Path

from evaluator.yaml_lines import key_lines, line_of


def located(problems: list[tuple[str, str]], *, source: str | Path | None = None, text: str | None = None) -> list[str]:
    """Each problem as `file:line: key.path: message` (file and line when known)."""
    lines = key_lines(text) if text else {}
    located = []
    for path, message in problems:
        where = f"{path or '(top)'}: {message}"
        if source is not None:
            line = line_of(path, lines)
            where = f"{Path(source).name}:{line}: {where}" if line else f"{Path(source).name}: {where}"
        located.append(where)
    return located
