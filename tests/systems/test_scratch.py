"""A runner killed in the middle of an execution leaves its scratch folder (the unpacked image and
the hidden topics) behind; the next execution on the host removes it, and never the folder of a
runner still at work (cupboard/systems/scratch.py)."""
from __future__ import annotations

import os
import subprocess
import sys

from cupboard.systems.scratch import PREFIX, scratch_folder


def test_the_folders_of_dead_runners_go_and_the_living_ones_stay(tmp_path):
    # A runner that made its folder and was killed before its cleanup (its own code, in a process of its own).
    made = subprocess.run([sys.executable, "-c", "import sys, pathlib; from cupboard.systems.scratch import "
                           "scratch_folder; f = scratch_folder(pathlib.Path(sys.argv[1])); "
                           "(f / 'topics.tsv').write_text('1\\tsecret query'); print(f)", str(tmp_path)],
                          capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    dead = tmp_path / made.stdout.strip().rpartition("/")[2]
    assert (dead / "topics.tsv").exists()
    live = scratch_folder(tmp_path)  # this process: alive
    pid = os.getpid()
    reused = tmp_path / f"{PREFIX}{pid}.1-x"  # this pid, another start time: its process is gone
    reused.mkdir()
    other = tmp_path / f"{PREFIX}notes"  # not a runner's name
    other.mkdir()

    again = scratch_folder(tmp_path)
    assert not dead.exists() and not reused.exists()
    assert live.exists() and again.exists() and other.exists()
    assert again.name.startswith(f"{PREFIX}{pid}.") and oct(again.stat().st_mode & 0o777) == "0o700"
