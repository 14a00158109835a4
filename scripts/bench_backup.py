"""`make bench-backup`: peak memory and time of `manage.py backup` and `manage.py restore`
(docs/benchmarks.md, "Backup and restore"). Not part of `make test`.

On its own PostgreSQL databases (BENCH_BACKUP_DATABASE, default cupboard_bench_backup, and the
same name + "_restored", dropped and made afresh on the server at 127.0.0.1:5432):

  demo     `load_demo` with the shipped samples (BENCH_BACKUP_DATA=real: ../shared/data);
  larger   the demo plus BENCH_BACKUP_SUBMISSIONS (default 2,000) copies of its scored
           submissions, each with per-query values of 2 metrics x BENCH_BACKUP_QUERIES
           (default 1,000) queries, the rows that grow with a real competition.

Each is backed up, then restored into the fresh second database and an empty folder, each
command in its own process, debug off as on a site; the peak resident memory is that
process's (wait4's ru_maxrss).
"""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DB = os.environ.get("BENCH_BACKUP_DATABASE", "cupboard_bench_backup")
SUBMISSIONS = int(os.environ.get("BENCH_BACKUP_SUBMISSIONS", "2000"))
QUERIES = int(os.environ.get("BENCH_BACKUP_QUERIES", "1000"))
DATA = ROOT.parent / "shared" / "data" if os.environ.get("BENCH_BACKUP_DATA") == "real" else ROOT / "no-shared-data"
WORK = ROOT / "bench-data" / "backup"  # var folders and archives: emptied each run


def _env(database: str, var: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith("CUPBOARD_") and key not in {"DATABASE_URL", "CELERY_BROKER_URL"}}
    # Debug off, as on a site: with it on, Django keeps the last 9,000 statements, each INSERT
    # of per-query values with its ~60 KB of JSON (a restore of 'larger' then took 100 MB more).
    return {**env, "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{database}", "CUPBOARD_DEBUG": "false",
            "SECRET_KEY": "bench-backup-only-" + "x" * 40, "CUPBOARD_VAR_DIR": str(var),
            "DJANGO_SETTINGS_MODULE": "cupboard.settings", "CUPBOARD_LOG_LEVEL": "WARNING",
            "CELERY_BROKER_URL": "filesystem://"}


def _fresh(database: str) -> None:
    for sql in (f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)', f'CREATE DATABASE "{database}"'):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True)


def _measured(env: dict, *args: str) -> tuple[float, float]:
    """Run `manage.py args` to its end: (its peak RSS in MB, its wall seconds)."""
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, str(ROOT / "manage.py"), *args], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"manage.py {' '.join(args)} failed: {process.stderr.read().decode()[-2000:]}")
    return usage.ru_maxrss / 1024, time.monotonic() - started


def _manage(env: dict, *args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], env=env, check=True, stdout=subprocess.DEVNULL)


GROW = """
import random
from django.db import transaction
from cupboard.submissions.models import QueryScores, Score, Submission

random.seed(7)
scored = QueryScores.objects.filter(submission__status="scored").select_related("submission").order_by("pk")
sources = [(scores.submission, scores.subset_id) for scores in scored]
with transaction.atomic():
    for start in range(0, SUBMISSIONS, 500):
        picked = [(index, *sources[index % len(sources)]) for index in range(start, min(start + 500, SUBMISSIONS))]
        made = Submission.objects.bulk_create(
            Submission(phase_id=copy.phase_id, team_id=copy.team_id, submitted_by_id=copy.submitted_by_id,
                       number=10_000 + index, method_name=f"copy {index} of {copy.method_name}", status="scored",
                       metadata=copy.metadata) for index, copy, _ in picked)
        QueryScores.objects.bulk_create(
            QueryScores(submission=submission, subset_id=subset,
                        values={metric: {f"q{qid}": random.random() for qid in range(QUERIES)}
                                for metric in ("ndcg_cut_10", "recall_100")})
            for submission, (_, _, subset) in zip(made, picked))
        Score.objects.bulk_create(Score(submission=submission, subset_id=subset, metric="ndcg_cut_10",
                                        value=random.random()) for submission, (_, _, subset) in zip(made, picked))
"""


def _rows(env: dict) -> int:
    out = subprocess.run([sys.executable, str(ROOT / "manage.py"), "shell", "-c",
                          "from cupboard.operations.restore import rows_present; print(sum(rows_present().values()))"],
                         env=env, check=True, capture_output=True, text=True)
    return int(out.stdout.split()[-1])


def _round_trip(name: str, env: dict) -> list[str]:
    archive = WORK / f"{name}.tar.gz"
    backup_mb, backup_s = _measured(env, "backup", str(archive))
    _fresh(f"{DB}_restored")
    restored = _env(f"{DB}_restored", WORK / f"{name}-restored-var")
    _manage(restored, "migrate", "--noinput")
    restore_mb, restore_s = _measured(restored, "restore", str(archive))
    row = [name, f"{_rows(env):,}", f"{archive.stat().st_size / 2**20:.1f}", f"{backup_mb:.0f}", f"{backup_s:.1f}",
           f"{restore_mb:.0f}", f"{restore_s:.1f}"]
    print("| " + " | ".join(row) + " |", flush=True)
    return row


def main() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    env = _env(DB, WORK / "var")
    _fresh(DB)
    _manage(env, "migrate", "--noinput")
    _manage(env, "load_demo", "--data", str(DATA))
    baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"(this script: {baseline:.0f} MB; {SUBMISSIONS:,} copies x {QUERIES:,} queries x 2 metrics in 'larger')")
    print("| database | rows | archive MB (gz) | backup peak RSS MB | backup s | restore peak RSS MB | restore s |")
    print("|---|---|---|---|---|---|---|", flush=True)
    _round_trip("demo", env)
    _manage(env, "shell", "-c", GROW.replace("SUBMISSIONS", str(SUBMISSIONS)).replace("QUERIES", str(QUERIES)))
    _round_trip("larger", env)


if __name__ == "__main__":
    main()
