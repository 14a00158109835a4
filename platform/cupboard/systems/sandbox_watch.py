"""Watching a running sandbox from outside: its processes, their CPU time and memory, from /proc.

rlimits bound each process on its own (a CPU-time limit per process, an address-space limit per
process); a system that forks gets a fresh budget in every child. So the runner also adds up the
processes of the sandbox's PID namespace several times a second and stops the whole namespace when
the total CPU time, the total resident memory or the number of processes reaches the limit. A
process's CPU time includes that of the children it has reaped (cutime/cstime), and the sandbox's
init reaps every orphan, so nothing that ran is missed. Memory is sampled, so the peak reported is
the highest seen (each process's own high-water mark, added up): the kernel's resource usage of the
runner's child would count the runner's own memory, which the child shares until it execs bwrap.
No Django here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Usage:
    processes: int = 0
    cpu_seconds: float = 0.0
    rss_bytes: int = 0
    peak_bytes: int = 0  # the sum of each live process's own peak resident memory (VmHWM)


def namespace_of(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _high_water(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def usage_in(namespace: str, *, leave_out: int) -> Usage:
    """The processes of a PID namespace (named as /proc/PID/ns/pid reads), all but `leave_out` counted."""
    usage = Usage()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if namespace_of(pid) != namespace:
            continue
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # it exited meanwhile: its time now shows in its parent's cutime
        fields = stat[stat.rfind(b")") + 2:].split()
        usage.cpu_seconds += sum(int(value) for value in fields[11:15]) / TICKS
        usage.rss_bytes += int(fields[21]) * PAGE
        usage.peak_bytes += _high_water(pid)
        if pid != leave_out:
            usage.processes += 1
    return usage
