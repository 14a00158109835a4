"""A control group for one sandbox, where the host lets the runner make one: hard limits the kernel keeps.

rlimits and the /proc watcher (sandbox_watch.py) work everywhere, but the watcher samples: memory
allocated and touched between two samples, or processes forked between them, go over the limit for
up to a tenth of a second. A cgroup closes that gap: its memory limit (the execution's memory plus
its tmpfs sizes, since tmpfs pages are charged to it too) makes the kernel reclaim or kill inside the
sandbox, never elsewhere on the host; its pids limit refuses the fork itself; and its CPU accounting
is exact. The runner makes it as a child of its own cgroup (cgroup v1 hierarchies memory, pids,
cpuacct; or v2 where memory and pids are delegated to the runner's cgroup); the runner's child joins
it before it starts bwrap, so nothing of the sandbox is ever outside it; the runner removes it
afterwards, and a runner that was killed has its cgroup, and whatever is left in it, removed by the
next runner on the host. Only root can do this here; elsewhere
`Cgroup.make` returns None and the watcher alone keeps the limits. No Django here.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
_serial = itertools.count()


def _own_cgroups() -> dict[str, str]:
    """{controller: path} of this process (cgroup v1), and "" for its cgroup v2 path."""
    found: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            found[controller] = path
    return found


def _v1_mount(controller: str) -> Path | None:
    for name in (controller, "cpu,cpuacct", "cpuacct,cpu"):
        if (ROOT / name / "cgroup.procs").exists() and controller in name.split(","):
            return ROOT / name
    return None


class Cgroup:
    """One sandbox's cgroup: directories per controller (v1) or one directory (v2)."""

    def __init__(self, dirs: dict[str, Path], version: int):
        self.dirs, self.version = dirs, version

    @classmethod
    def make(cls, *, memory_bytes: int, processes: int) -> Cgroup | None:
        """A new cgroup with these limits, or None where the host does not let the runner make one."""
        if os.geteuid() != 0:
            return None
        name = f"cupboard-sandbox-{os.getpid()}-{next(_serial)}"
        made: dict[str, Path] = {}
        try:
            own = _own_cgroups()
            mounts = {c: _v1_mount(c) for c in ("memory", "pids", "cpuacct")}
            if all(mounts.values()) and all(c in own for c in mounts):
                for controller, mount in mounts.items():
                    assert mount is not None
                    made[controller] = mount / own[controller].lstrip("/") / name
                    _sweep(made[controller].parent)
                    made[controller].mkdir()
                cgroup = cls(made, 1)
                cgroup._write("memory", "memory.limit_in_bytes", memory_bytes)
                cgroup._write("pids", "pids.max", processes)
                return cgroup
            base = ROOT / own.get("", "/").lstrip("/")
            delegated = (base / "cgroup.subtree_control").read_text().split()
            if "memory" in delegated and "pids" in delegated:
                made[""] = base / name
                _sweep(base)
                made[""].mkdir()
                cgroup = cls(made, 2)
                cgroup._write("", "memory.max", memory_bytes)
                cgroup._write("", "memory.swap.max", 0)
                cgroup._write("", "pids.max", processes)
                return cgroup
        except (OSError, ValueError):
            pass
        for directory in made.values():
            _remove(directory)
        return None

    def _dir(self, controller: str) -> Path:
        return self.dirs[controller if self.version == 1 else ""]

    def _write(self, controller: str, name: str, value: int) -> None:
        (self._dir(controller) / name).write_text(str(value))

    def _read(self, controller: str, name: str) -> str:
        try:
            return (self._dir(controller) / name).read_text()
        except OSError:
            return ""

    def procs_files(self) -> list[str]:
        """Where a process writes its pid to join (the runner's child does, before it starts bwrap)."""
        return sorted(str(directory / "cgroup.procs") for directory in set(self.dirs.values()))

    def cpu_seconds(self) -> float:
        if self.version == 1:
            usage = self._read("cpuacct", "cpuacct.usage").strip()
            return int(usage) / 1e9 if usage else 0.0
        return _field(self._read("", "cpu.stat"), "usage_usec") / 1e6

    def out_of_memory(self) -> bool:
        """Did the kernel kill a process of the sandbox for the memory limit?"""
        if self.version == 1:
            return _field(self._read("memory", "memory.oom_control"), "oom_kill") > 0
        return _field(self._read("", "memory.events"), "oom_kill") > 0

    def refused_a_process(self) -> bool:
        """Did the pids limit refuse a fork?"""
        return _field(self._read("pids", "pids.events"), "max") > 0

    def remove(self) -> None:
        """Kills whatever is left in it, then removes it."""
        deadline = time.monotonic() + 30
        for directory in set(self.dirs.values()):
            while time.monotonic() < deadline:
                pids = [int(pid) for pid in _lines(directory / "cgroup.procs")]
                if not pids:
                    break
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
                time.sleep(0.01)
            _remove(directory)


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


def _field(text: str, name: str) -> int:
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0


def _sweep(parent: Path) -> None:
    """Removes the cgroups of runners that died without removing theirs, killing what is left in them:
    a runner killed in the instant between starting bwrap and its taking SIGKILL with it may leave a
    sandbox running unwatched (its rlimits still hold; its wall-clock limit was the runner's)."""
    for directory in parent.glob("cupboard-sandbox-*-*"):
        try:
            os.kill(int(directory.name.split("-")[2]), 0)
            continue  # its runner is alive: its own to remove
        except ProcessLookupError:
            Cgroup({"": directory}, 2).remove()
        except (ValueError, OSError):
            continue


def _remove(directory: Path) -> None:
    deadline = time.monotonic() + 10
    while directory.exists():
        try:
            directory.rmdir()
        except OSError:
            if time.monotonic() > deadline:
                return  # left for the operator: still busy after every process was killed
            time.sleep(0.01)
