"""The runner's scratch folder of one execution: the unpacked image, the phase's hidden topics
and what the system wrote. The runner removes it when the execution ends; a runner killed in the
middle (SIGKILL, out of memory, a lost host) cannot, and its folder, topics included, would stay
in the temp dir for good. So each folder is named after the process that made it - its pid and
its start time, as a pid is reused - and every execution first removes the folders of processes
that are gone. A live runner's folder is never touched, so runners sharing a temp dir are safe.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

PREFIX = "cupboard-execution-"


def _process_key(pid: int) -> str | None:
    """"<pid>.<start time in clock ticks>" of a live process; "<pid>" where /proc does not say
    the start time; None when there is no such process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        return f"{pid}.{fields[19]}"  # field 22 of proc(5), counted after the command's ")"
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # another user's: alive
    return str(pid)


def stale_removed(root: Path) -> list[Path]:
    """Removes the scratch folders under `root` whose process is gone (or whose pid now belongs to
    another process); returns them. Folders named otherwise are left alone."""
    removed = []
    for folder in root.glob(PREFIX + "*"):
        owner = folder.name[len(PREFIX):].partition("-")[0]
        pid = owner.partition(".")[0]
        if not pid.isdigit():
            continue
        key = _process_key(int(pid))
        if key is None or ("." in owner and "." in key and key != owner):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def scratch_folder(root: Path | None = None) -> Path:
    """A new private folder (0700) for one execution under `root` (the temp dir), once the
    folders of dead runners there are removed."""
    root = Path(root or tempfile.gettempdir())
    stale_removed(root)
    return Path(tempfile.mkdtemp(prefix=f"{PREFIX}{_process_key(os.getpid())}-", dir=root))
