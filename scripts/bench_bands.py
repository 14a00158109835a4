"""`make bench-bands`: a deadline's burst of runs with rank bands on (docs/benchmarks.md, "Bands at a deadline").

On its own PostgreSQL database (BENCH_BANDS_DATABASE, default cupboard_bench_bands, dropped and made
afresh at 127.0.0.1:5432): the MIRACL WSDM Cup's test-a phase made live with TEAMS teams, each with a
scored run carrying per-query values (QueryScores) on its 18 languages x QUERIES queries, 2 metrics,
and the board with its bands. Then a burst of RUNS more runs (the teams' last ones), stored as the
worker stores a scored run (its Score and QueryScores rows) and each followed by its board update
(`leaderboard_update`, what the run-scored follow-up calls), by SCORERS threads side by side as that
many worker processes would; a real Celery worker (concurrency 2, as compose) runs the bands jobs
(leaderboards/bands.py). Printed: one synchronous re-test of the board (what each update paid
before), the board updates' times, and the time from the last run's board update to its bands on
the board. Not part of `make test`.
"""
from __future__ import annotations

import os
import queue
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DB = os.environ.get("BENCH_BANDS_DATABASE", "cupboard_bench_bands")
TEAMS, QUERIES = 50, 1_000
RUNS = int(os.environ.get("BENCH_BANDS_RUNS", "200"))
SCORERS = int(os.environ.get("BENCH_BANDS_SCORERS", "2"))
GOAL = 60.0  # seconds from the last run scored to its bands on the board (issue 35)
VAR = ROOT / "bench-data" / "bands-var"
ENV = {**os.environ, "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB}", "CUPBOARD_DEBUG": "false",
       "SECRET_KEY": "bench-bands-only-" + "x" * 40, "DJANGO_SETTINGS_MODULE": "cupboard.settings",
       "CUPBOARD_LOG_LEVEL": "WARNING", "CELERY_BROKER_URL": os.environ.get("BENCH_BANDS_BROKER_URL", "filesystem://"),
       "CUPBOARD_VAR_DIR": str(VAR), "CUPBOARD_WORKER_CONCURRENCY": "2"}


def _fresh_database() -> None:
    shutil.rmtree(VAR, ignore_errors=True)
    VAR.mkdir(parents=True)
    for sql in (f'DROP DATABASE IF EXISTS "{DB}"', f'CREATE DATABASE "{DB}"'):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True)
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput"], env=ENV, check=True,
                   stdout=subprocess.DEVNULL)


def _values(codes: list[str], metrics: list[str], seed: int) -> dict[str, dict[str, dict[str, float]]]:
    """A run's per-query values {subset code: {metric: {qid: value}}} around a level of its own."""
    rng = np.random.default_rng(seed)
    level = rng.random() * 0.4 + 0.3
    return {code: {m: dict(zip([f"{code}-{q}" for q in range(QUERIES)],
                               np.clip(rng.normal(level, 0.25, QUERIES), 0, 1).tolist(), strict=True))
                   for m in metrics} for code in codes}


def _store(phase, team, number: int, values: dict):
    """What the worker stores for a scored run: the submission scored, its means and per-query values."""
    from django.db import transaction
    from django.utils import timezone

    from cupboard.submissions.models import QueryScores, Score, Submission

    subsets = {s.code: s for s in phase.competition.subsets.all()}
    with transaction.atomic():
        submission = Submission.objects.create(phase=phase, team=team, number=number, method_name=f"run {number}",
                                               status=Submission.Status.SCORED, scored_at=timezone.now())
        Score.objects.bulk_create(Score(submission=submission, subset=subsets[code], metric=m,
                                        value=sum(v.values()) / len(v))
                                  for code, by_metric in values.items() for m, v in by_metric.items())
        QueryScores.objects.bulk_create(QueryScores(submission=submission, subset=subsets[code], values=by_metric)
                                        for code, by_metric in values.items())
    return submission


def _board():
    """The live test-a phase with one scored run per team and its bands; (phase, teams)."""
    from cupboard.competitions.services import competition_load
    from cupboard.leaderboards.services import leaderboard_refresh
    from cupboard.teams.models import Team

    competition = competition_load(data=ROOT / "platform/cupboard/competitions/definitions/miracl-wsdm-cup.yaml")
    phase = competition.phases.get(slug="test-a")
    phase.visibility, phase.reveal_at, phase.hidden_qrels = phase.Visibility.LIVE, None, False
    phase.save()
    teams = Team.objects.bulk_create(Team(competition=competition, name=f"Team {i}", name_key=f"team {i}",
                                          slug=f"team-{i}", invite_code=f"bench-{i}") for i in range(TEAMS))
    codes = [s.code for s in competition.subsets.all()]
    for k, team in enumerate(teams):
        _store(phase, team, 1, _values(codes, competition.metrics, seed=k))
    leaderboard_refresh(phase=phase)
    return phase, teams


def _burst(phase, runs: list) -> tuple[list[float], float, float]:
    """Store (its values drawn then, as a scoring computes them) and board-update every run, SCORERS at a time; (each update's seconds, the burst's
    start and the last update's end, both on time.monotonic())."""
    from django.db import connection

    from cupboard.leaderboards.services import leaderboard_update

    codes, metrics = [s.code for s in phase.competition.subsets.all()], phase.competition.metrics
    todo: queue.Queue = queue.Queue()
    for run in runs:
        todo.put(run)
    updates: list[float] = []
    ends: list[float] = []

    def scorer():
        try:
            while True:
                try:
                    team, number, seed = todo.get_nowait()
                except queue.Empty:
                    return
                submission = _store(phase, team, number, _values(codes, metrics, seed))
                started = time.monotonic()
                leaderboard_update(phase=phase, submission=submission)
                ends.append(time.monotonic())
                updates.append(ends[-1] - started)
        finally:
            connection.close()

    began = time.monotonic()
    threads = [threading.Thread(target=scorer) for _ in range(SCORERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return updates, began, max(ends)


def _landed(phase, deadline: float) -> float | None:
    """When (time.monotonic()) the bands job had landed the bands of every board write, or None by `deadline`."""
    from django.db.models import F

    from cupboard.leaderboards.models import BandsJob

    while time.monotonic() < deadline:
        if BandsJob.objects.filter(phase=phase, landed=F("wanted"), status=BandsJob.Status.DONE).exists():
            return time.monotonic()
        time.sleep(0.05)
    return None


def main() -> None:
    os.environ.update(ENV)
    _fresh_database()
    import django

    django.setup()
    from cupboard.leaderboards.models import BandsJob
    from cupboard.leaderboards.services import leaderboard_retest
    from scripts.bench_web_upload import _worker

    started = time.perf_counter()
    phase, teams = _board()
    print(f"board of {TEAMS} teams x 18 languages x {QUERIES:,} queries, 2 metrics: "
          f"{time.perf_counter() - started:.0f} s to fill")
    retest, cpu = time.perf_counter(), time.process_time()
    leaderboard_retest(phase=phase)
    retest, cpu = time.perf_counter() - retest, time.process_time() - cpu  # CPU: what a busy machine does not inflate
    runs = [(teams[k % TEAMS], 2 + k // TEAMS, TEAMS + k) for k in range(RUNS)]  # (team, number, seed)
    log = VAR / "worker.log"
    with _worker(ENV, log):
        updates, began, last = _burst(phase, runs)
        landed = _landed(phase, last + 10 * GOAL)
    ended = [line for line in log.read_text(errors="replace").splitlines()
             if "compute_bands[" in line and "succeeded" in line]
    landings = sum("'landed'" in line for line in ended)
    gave_way = sum("'gave-way'" in line for line in ended)
    job = BandsJob.objects.get(phase=phase)
    waited = None if landed is None else landed - last
    load = os.getloadavg()
    rows = [
        ("one re-test of the whole board, synchronous (what each update paid before)",
         f"{retest:.2f} s (CPU {cpu:.2f} s)"),
        (f"burst: {RUNS} runs stored and board-updated, {SCORERS} scorers", f"{last - began:.1f} s"),
        ("one board update (bands not waited for): median / max",
         f"{statistics.median(updates) * 1000:.0f} ms / {max(updates) * 1000:.0f} ms"),
        (f"bands computations landed / given way to newer writes (board writes: {job.wanted})",
         f"{landings} / {gave_way}"),
        ("last run's board update to its bands on the board",
         "not within 10 min" if waited is None else f"{waited:.1f} s ({waited / retest:.1f} re-tests' time)"),
    ]
    print("\n| bands at a deadline (PostgreSQL, 2 cores) | time |\n|---|---:|")
    for what, value in rows:
        print(f"| {what} | {value} |")
    met = waited is not None and waited <= GOAL
    print(f"\ngoal: bands on the board within {GOAL:.0f} s of the last run scored: {'met' if met else 'MISSED'}")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the end")


if __name__ == "__main__":
    main()
