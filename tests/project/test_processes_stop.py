"""scripts/processes.sh (make serve, make demo) stops every process it started on Ctrl-C or
SIGTERM, also on a loaded host: a SIGTERM that comes while a process is still being started (its
`setsid` not run yet, so no process group to signal), and a second Ctrl-C while the first one's
stop waits for a slow process. Ctrl-C is sent as a terminal sends it, to the script's whole
process group (the started processes lead groups of their own). A real bash sources the real script; only `setsid` is held back, as a busy host
holds it, by a wrapper first on PATH that waits for a gate file."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

from tests.e2e.stack import ctrl_c_as_in_a_terminal
from tests.waiting import PATIENCE, wait_until

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("setsid") is None, reason="no setsid (util-linux) on this machine")


def _site(tmp_path: Path, child: str) -> tuple[subprocess.Popen, Path]:
    """A bash that sources processes.sh and starts `child` (a bash snippet, which writes its pid to
    `child.pid` first) with its `start`, then waits as serve does. Its `setsid` runs only once the
    file `gate` exists, writing its own pid to `setsid.pid` first. Returns the bash and tmp_path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    held = bin_dir / "setsid"
    held.write_text(f"#!/bin/sh\necho $$ > {tmp_path}/setsid.pid\n"
                    f"while [ ! -e {tmp_path}/gate ]; do sleep 0.05; done\nexec {shutil.which('setsid')} \"$@\"\n")
    held.chmod(0o755)
    script = (f"cd {ROOT}\nsource scripts/processes.sh\n"
              f"start - bash -c 'echo $$ > {tmp_path}/child.pid; {child}'\n"
              "echo started\nwait_for_web \"${pids[-1]}\"\n")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CUPBOARD_VAR_DIR": str(tmp_path / "var")}
    shell = subprocess.Popen(["bash", "-c", script], env=env, stdout=subprocess.PIPE, text=True,
                             start_new_session=True, preexec_fn=ctrl_c_as_in_a_terminal)  # the terminal's foreground group
    assert shell.stdout.readline() == "started\n"
    wait_until(lambda: (tmp_path / "setsid.pid").exists() and (tmp_path / "setsid.pid").read_text().strip(),
               what="setsid to be called")
    return shell, tmp_path


@pytest.fixture
def leftovers():
    """Pids to kill after the test whatever happened (a failing test must not leave a sleeper)."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _gone(pid: int) -> bool:
    """Ended: no such process, or a zombie nobody has reaped yet (a container's init may not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_sigterm_before_the_process_has_its_group_still_stops_it(tmp_path, leftovers):
    """SIGTERM to the script (as a service manager or `kill` sends it) while `setsid` has not run
    yet: there is no group to signal. The stop used to take the process for stopped and leave it to
    start later in a session of its own, for good."""
    shell, run = _site(tmp_path, "exec sleep 600")
    held = int((run / "setsid.pid").read_text())
    leftovers.append(held)
    shell.send_signal(signal.SIGTERM)
    assert shell.wait(timeout=PATIENCE) == 0
    # The deadline is the point: the stop promises every process gone within 5 s (10 s for the load).
    wait_until(lambda: _gone(held), what="the process being started to be stopped", seconds=10)
    (run / "gate").touch()


def test_a_second_ctrl_c_does_not_cut_the_stop_short(tmp_path, leftovers):
    """A process that ignores SIGTERM (a worker finishing a run) is killed after 3 s, even when
    Ctrl-C is pressed again meanwhile: the second one used to end the script and leave it running."""
    (tmp_path / "gate").touch()
    shell, run = _site(tmp_path, 'trap "" TERM; while :; do sleep 0.2; done')
    wait_until(lambda: (run / "child.pid").exists() and (run / "child.pid").read_text().strip(),
               what="the child to start")
    child = int((run / "child.pid").read_text())
    leftovers.append(child)
    os.killpg(shell.pid, signal.SIGINT)
    assert "stopping" in shell.stdout.readline()
    os.killpg(shell.pid, signal.SIGINT)
    assert shell.wait(timeout=PATIENCE) == 0, "the second Ctrl-C ended the stop"
    wait_until(lambda: _gone(child), what="the child to be killed")
