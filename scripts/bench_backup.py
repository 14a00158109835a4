"""`make bench-backup`: peak memory and time of `manage.py backup` and `manage.py restore`
(docs/benchmarks.md, "Backup and restore"). Not part of `make test`.

On its own PostgreSQL databases (BENCH_BACKUP_DATABASE, default cupboard_bench_backup, and the
same name + "_restored", dropped and made afresh on the server at 127.0.0.1:5432):

  demo     `load_demo` with the shipped samples (BENCH_BACKUP_DATA=real: ../shared/data);
  larger   the demo plus BENCH_BACKUP_SUBMISSIONS (default 2,000) copies of its scored
           submissions, each with per-query values of 2 metrics x BENCH_BACKUP_QUERIES
           (default 1,000) queries, the rows that grow with a real competition;
  s3       an empty site whose bucket (moto's server) holds one run file of BENCH_BACKUP_S3_MB
           (default 600) MB, restored into an empty bucket.

BENCH_BACKUP_PARTS (default "rows,s3") picks the parts: rows (demo and larger), s3.

Each is backed up, then restored into the fresh second database and an empty folder (bucket),
each command in its own process, debug off as on a site; the peak resident memory is that
process's (wait4's ru_maxrss; this script stays small, for a child forked from a large process
would report that one's peak).
"""
from __future__ import annotations

import os
import resource
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DB = os.environ.get("BENCH_BACKUP_DATABASE", "cupboard_bench_backup")
SUBMISSIONS = int(os.environ.get("BENCH_BACKUP_SUBMISSIONS", "2000"))
QUERIES = int(os.environ.get("BENCH_BACKUP_QUERIES", "1000"))
DATA = ROOT.parent / "shared" / "data" if os.environ.get("BENCH_BACKUP_DATA") == "real" else ROOT / "no-shared-data"
PARTS = os.environ.get("BENCH_BACKUP_PARTS", "rows,s3").split(",")  # rows: demo and larger; s3
S3_MB = int(os.environ.get("BENCH_BACKUP_S3_MB", "600"))
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


def _round_trip(name: str, env: dict, **restored_more: str) -> list[str]:
    archive = WORK / f"{name.split()[0]}.tar.gz"
    backup_mb, backup_s = _measured(env, "backup", str(archive))
    _fresh(f"{DB}_restored")
    restored = {**_env(f"{DB}_restored", WORK / f"{name.split()[0]}-restored-var"), **restored_more}
    _manage(restored, "migrate", "--noinput")
    restore_mb, restore_s = _measured(restored, "restore", str(archive))
    row = [name, f"{_rows(env):,}", f"{archive.stat().st_size / 2**20:.1f}", f"{backup_mb:.0f}", f"{backup_s:.1f}",
           f"{restore_mb:.0f}", f"{restore_s:.1f}"]
    print("| " + " | ".join(row) + " |", flush=True)
    return row


def main() -> None:
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    print(f"({SUBMISSIONS:,} copies x {QUERIES:,} queries x 2 metrics in 'larger')")
    print("| database | rows | archive MB (gz) | backup peak RSS MB | backup s | restore peak RSS MB | restore s |")
    print("|---|---|---|---|---|---|---|", flush=True)
    if "rows" in PARTS:
        env = _env(DB, WORK / "var")
        _fresh(DB)
        _manage(env, "migrate", "--noinput")
        _manage(env, "load_demo", "--data", str(DATA))
        _round_trip("demo", env)
        _manage(env, "shell", "-c", GROW.replace("SUBMISSIONS", str(SUBMISSIONS)).replace("QUERIES", str(QUERIES)))
        _round_trip("larger", env)
    if "s3" in PARTS:
        _s3_round_trip()
    print(f"(this script's own peak: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB)")


def _s3_round_trip() -> None:
    """One large run file in moto's bucket, backed up and restored into an empty bucket."""
    import boto3

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    moto = subprocess.Popen([str(Path(sys.executable).parent / "moto_server"), "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        client = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", aws_access_key_id="bench",
                              aws_secret_access_key="bench", region_name="us-east-1")
        for _ in range(100):
            try:
                client.create_bucket(Bucket="site")
                break
            except Exception:  # not listening yet
                time.sleep(0.3)
        client.create_bucket(Bucket="restored")
        subprocess.run(["dd", "if=/dev/urandom", f"of={WORK / 'run.bin'}", "bs=1M", f"count={S3_MB}", "status=none"],
                       check=True)
        client.upload_file(str(WORK / "run.bin"), "site", "runs/2026/11/large.txt")  # in parts: this process stays small
        s3 = {"CUPBOARD_STORAGE": "s3", "CUPBOARD_S3_ENDPOINT_URL": f"http://127.0.0.1:{port}",
              "CUPBOARD_S3_ACCESS_KEY": "bench", "CUPBOARD_S3_SECRET_KEY": "bench", "AWS_DEFAULT_REGION": "us-east-1"}
        _fresh(DB)
        env = {**_env(DB, WORK / "s3-var"), **s3, "CUPBOARD_S3_BUCKET": "site"}
        _manage(env, "migrate", "--noinput")
        _round_trip(f"s3 ({S3_MB} MB file)", env, **s3, CUPBOARD_S3_BUCKET="restored")
        assert client.head_object(Bucket="restored", Key="runs/2026/11/large.txt")["ContentLength"] == S3_MB * 2**20
    finally:
        moto.terminate()
        moto.wait()


if __name__ == "__main__":
    main()
