"""Where in a competition's YAML file a problem is: `file:line: key.path: message`, the line of
the key (or of the nearest key above it that the file has, for a missing one), so an organizer
goes straight to it. Read from the YAML's node tree, which knows every key's line."""
from __future__ import annotations

import re
from pathlib import Path

import yaml


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


def line_of(path: str, lines: dict[str, int]) -> int | None:
    """The line of `path`, or of the nearest key above it that the file has (a missing key's parent)."""
    while path:
        if path in lines:
            return lines[path]
        parent = re.sub(r"(^|\.)[^.\[\]]*$|\[\d+\]$", "", path)
        path = parent if parent != path else ""
    return None


def key_lines(text: str) -> dict[str, int]:
    """{key path: 1-based line} of every key and list item of a YAML text."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return {}
    lines: dict[str, int] = {}

    def walk(node, path: str) -> None:
        if isinstance(node, yaml.MappingNode):
            for key_node, value in node.value:
                child = f"{path}.{key_node.value}" if path else str(key_node.value)
                lines[child] = key_node.start_mark.line + 1
                walk(value, child)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                lines[f"{path}[{index}]"] = item.start_mark.line + 1
                walk(item, f"{path}[{index}]")

    walk(root, "")
    return lines
