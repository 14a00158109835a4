"""`make loadtest` / `python -m scripts.loadtest [--quick]`: see the package docstring."""
from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from cupboard.demo.data import SHARED_DATA

from . import __doc__ as ABOUT
from .database import Database
from .datasets import origin, phase_folder, run_sets
from .logs import scenario_causes
from .report import summarise, table
from .scenarios import FULL, QUICK, TEAMS, Runner
from .stack import ROOT, Stack
from .uploads import Client


class Stop(Exception):
    """SIGTERM, SIGINT or the time limit: tear the stack down and leave."""


def _stop(signum, frame):
    raise Stop(signal.Signals(signum).name)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m scripts.loadtest", description=ABOUT.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer uploads and shorter spans (a few minutes)")
    parser.add_argument("--data", type=Path, default=SHARED_DATA,
                        help="folder with miracl-v1.0-dev/ (default: ../shared/data; synthetic data without it)")
    parser.add_argument("--cache", type=Path, default=Path(os.getenv("CUPBOARD_LOADTEST_DATA", ROOT / "loadtest-data")),
                        help="where the generated submissions are kept between runs (default: loadtest-data/)")
    parser.add_argument("--keep", action="store_true", help="keep the stack's temp folder (databases, run files)")
    parser.add_argument("--max-minutes", type=float, default=40.0, help="stop everything after this long")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    sizes = QUICK if args.quick else FULL
    data_dir = args.data if args.data and (args.data / "miracl-v1.0-dev").is_dir() else None
    sets = run_sets(args.cache, data_dir, -(-sizes.uploads // TEAMS))
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
        signal.signal(signum, _stop)
    signal.alarm(int(args.max_minutes * 60))
    started = time.time()
    stack = Stack(keep=args.keep)
    logs = ROOT / "var" / "loadtest" / time.strftime("%Y%m%d-%H%M%S")
    try:
        print(f"stack in {stack.folder}; logs will be copied to {logs}", file=sys.stderr, flush=True)
        facts = stack.start(setup_args=[str(phase_folder(args.cache, data_dir))])
        stack.workers_ready()
        database = Database(stack.postgres.url)
        client = Client(stack.url, facts["competition"], facts["phase"], [t["token"] for t in facts["teams"]])
        scenarios = Runner(stack=stack, client=client, database=database, sets=sets, sizes=sizes).run_all()
        causes = scenario_causes(stack.log("gunicorn"), [stack.log(f"worker{i}") for i in range(len(stack.workers))])
        for scenario, name, code in stack.restarts:
            causes.setdefault(scenario, []).append(f"{name} exited by itself (status {code}); restarted")
        lines = [summarise(s, database.rows(s.name) or {}, database.duplicated(s.name), causes.get(s.name, []))
                 for s in scenarios]
    except Stop as reason:
        print(f"stopped ({reason}); tearing the stack down", file=sys.stderr)
        return 2
    finally:
        signal.alarm(0)
        stack.stop()
        _keep_logs(stack, logs)
        stack.remove()
    text = _report(lines, sets=sets, cache=args.cache, minutes=(time.time() - started) / 60,
                   quick=args.quick)
    print(text)
    (logs / "report.md").write_text(text + "\n")
    bad = any(line.cells[c] != "0" for line in lines for c in ("500", "lost", "dup"))
    return 1 if bad else 0


def _keep_logs(stack: Stack, logs: Path) -> None:
    logs.mkdir(parents=True, exist_ok=True)
    for path in [*(stack.folder / "logs").glob("*.log"), stack.postgres.log, stack.redis.folder / "redis.log"]:
        if path.exists():
            shutil.copy(path, logs / path.name)


def _report(lines, *, sets, cache: Path, minutes: float, quick: bool) -> str:
    size = sum(s.size for s in sets[:4]) / 4 / 1e6
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    head = [f"cupboard load test{' (--quick)' if quick else ''}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: "
            f"{os.cpu_count()} cores, load average {load} at the end; {minutes:.1f} min in all",
            f"data: {origin(cache)}; 18 run files of depth 100 per upload, {size:.1f} MB on average", ""]
    notes = [""] + [f"- {line.cells['scenario']}: {note}" for line in lines for note in line.notes]
    return "\n".join(head) + table(lines) + "\n" + "\n".join(notes)


if __name__ == "__main__":
    sys.exit(main())
