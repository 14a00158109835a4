"""cupboard.supervise starts a worker again when it exits by itself, and stops it (once) when asked."""
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

from cupboard.supervise import Supervisor

ROOT = Path(__file__).resolve().parents[2]


def test_it_starts_a_worker_again_after_it_exits_by_itself(tmp_path):
    starts = tmp_path / "starts"
    supervisor = Supervisor(["sh", "-c", f"echo x >> {starts}; exit 3"], first_pause=0.05)
    threading.Timer(1.0, supervisor.stop).start()
    supervisor.run()
    assert len(starts.read_text().split()) >= 3  # 0.05 + 0.1 + 0.2 + 0.4 s of pauses fit in a second


def test_sigterm_stops_the_worker_once_and_gives_its_status(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text("import signal, sys, time\n"
                      "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n"
                      "print('up', flush=True)\n"
                      "time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-m", "cupboard.supervise", sys.executable, str(script)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "up\n"
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 7  # the worker's own status, not restarted
    assert time.monotonic() - started < 5
    assert "starting it again" not in process.stderr.read()


def test_the_image_runs_its_workers_under_the_supervisor():
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    assert compose["services"]["worker"]["command"][:5] == ["python", "-m", "cupboard.supervise", "celery", "-A"]
