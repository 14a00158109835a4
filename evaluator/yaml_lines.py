"""Where in a YAML file a key is: {key path: line}, read from the YAML's node tree, which
knows every key's line, so a problem with a competition definition names its line
(`my-task.yaml:12: metrics[1]: ...`) for the platform's loader and the command line alike."""
from __future__ import annotations

import re
from typing import Any


def line_of(path: str, lines: dict[str, int]) -> int | None:
    """The line of `path`, or of the nearest key above it that the file has (a missing key's parent)."""
    while path:
        if path in lines:
            return lines[path]
        parent = re.sub(r"(^|\.)[^.\[\]]*$|\[\d+\]$", "", path)
        path = parent if parent != path else ""
    return None


def key_lines(text: str) -> dict[str, int]:
    """{key path: 1-based line} of every key and list item of a YAML text (`phases[1].slug`)."""
    import yaml

    from .yaml_bounded import LOADER

    try:
        root = yaml.compose(text, Loader=LOADER)
    except yaml.YAMLError:
        return {}
    lines: dict[str, int] = {}

    def walk(node: Any, path: str) -> None:
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
