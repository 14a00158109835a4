"""CPU per test file, for finding what the daily loop spends (docs/development.md): each process
adds up its own CPU and its waited-for children's (getrusage) around every test, set-up and
teardown included, per file, and writes it to FILECPU_OUT (one JSON per xdist worker). A loaded
machine stretches wall time, not CPU. Not loaded by default:

    FILECPU_OUT=var/filecpu .venv/bin/python -m pytest -p no:cacheprovider -p tests.filecpu -n 2 ...
    .venv/bin/python -m tests.filecpu var/filecpu      # the files, most CPU first
"""
import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

_seconds: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu(), time.monotonic()
    try:
        return (yield)
    finally:
        row = _seconds[item.nodeid.split("::")[0]]
        row[0] += _cpu() - cpu
        row[1] += time.monotonic() - wall
        row[2] += 1


def pytest_sessionfinish(session):
    folder = Path(os.environ.get("FILECPU_OUT", "var/filecpu"))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.json").write_text(json.dumps(_seconds))


if __name__ == "__main__":
    files = {name: row for path in Path(sys.argv[1]).glob("*.json") for name, row in json.loads(path.read_text()).items()}
    print(f"{sum(row[0] for row in files.values()):.1f} s of CPU in {len(files)} files (cpu s, wall s, tests)")
    for name, (cpu, wall, tests) in sorted(files.items(), key=lambda item: -item[1][0]):
        print(f"{cpu:7.2f} {wall:7.2f} {tests:5d}  {name}")
