"""Why the server answered 500: the exceptions in the stack's logs, per scenario.

Before each scenario a marker line is appended to every log (the processes write with
O_APPEND too, so lines do not interleave); afterwards each section's tracebacks are
reduced to their last exception line and counted: `5x django.db.utils.OperationalError:
deadlock detected` (quoted paths and long numbers blanked, so one kind of error is one line).
"""
from __future__ import annotations

import re
from pathlib import Path

MARK = "=== loadtest scenario: "
_EXCEPTION = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Detected|Exit|Timeout|Lost)\w*)(?::\s?(.*))?$")


def mark(paths: list[Path], scenario: str) -> None:
    for path in paths:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"\n{MARK}{scenario} ===\n")


def sections(path: Path) -> dict[str, str]:
    """{scenario: the log's text while it ran} (text before the first marker is left out)."""
    out, name = {}, None
    if not path.exists():
        return out
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(MARK):
            name = line[len(MARK):].removesuffix(" ===")
            out[name] = ""
        elif name is not None:
            out[name] += line + "\n"
    return out


def causes(text: str, *, start: str = "Internal Server Error:") -> dict[str, int]:
    """{last exception line of each traceback after a `start` line: count}."""
    counted = {}
    for chunk in text.split(start)[1:]:
        lines = chunk.splitlines()
        found = [(i, m) for i, m in enumerate(map(_EXCEPTION.match, lines)) if m]
        if not found:
            continue
        index, last = found[-1]
        if any("above exception" in line for line in lines[index:]):
            continue  # a link of a chain: counted once, by the traceback that ends it
        line = _generic(f"{last.group(1)}: {last.group(2) or ''}".strip().rstrip(":"))
        counted[line] = counted.get(line, 0) + 1
    return counted


def _generic(line: str) -> str:
    """One wording per kind of error: quoted paths and long numbers (ports, ids) blanked, at most 110 characters."""
    return re.sub(r"\b\d{4,}\b", "N", re.sub(r"'[^']*'", "'...'", line))[:110]


def summary(counted: dict[str, int]) -> str:
    return "; ".join(f"{n}x {line}" for line, n in sorted(counted.items(), key=lambda item: -item[1]))


def scenario_causes(web: Path, workers: list[Path]) -> dict[str, list[str]]:
    """{scenario: notes}: the 500s' exceptions in the web log, every traceback's in the workers' logs."""
    notes: dict[str, list[str]] = {}
    for name, text in sections(web).items():
        if counted := causes(text):
            notes.setdefault(name, []).append("web log, 500s: " + summary(counted))
    merged: dict[str, dict[str, int]] = {}
    for path in workers:
        for name, text in sections(path).items():
            for line, n in causes(text, start="Traceback (most recent call last):").items():
                merged.setdefault(name, {})[line] = merged.get(name, {}).get(line, 0) + n
    for name, counted in merged.items():
        notes.setdefault(name, []).append("worker logs, tracebacks: " + summary(counted))
    for name, counted in _supervisor_restarts(workers).items():
        notes.setdefault(name, []).append("cupboard.supervise started celery again after: " + summary(counted))
    return notes


def _supervisor_restarts(workers: list[Path]) -> dict[str, dict[str, int]]:
    """{scenario: {"status N": count}} from cupboard.supervise's lines (kills show as status -9)."""
    out: dict[str, dict[str, int]] = {}
    for path in workers:
        for name, text in sections(path).items():
            for found in re.finditer(r"^supervise: \S+ exited with (status -?\d+)", text, re.M):
                out.setdefault(name, {})[found.group(1)] = out.get(name, {}).get(found.group(1), 0) + 1
    return out
