"""`make bench-per-topic`: how long the per-topic CSVs take on a phase of TREC's size
(docs/benchmarks.md, "Per-topic CSVs"). Not part of `make test`.

On its own PostgreSQL database (BENCH_PER_TOPIC_DATABASE, default cupboard_bench_per_topic,
dropped and made afresh on the machine's server at 127.0.0.1:5432): the MIRACL WSDM Cup
definition, its dev phase with RUNS scored runs of RUNS teams on its 18 languages x TOPICS
topics, each with its per-query values (QueryScores, both metrics, as the worker stores
them) and a run file per language, on one qrels release. Then, through Django's test client
(the whole request: the view, its SQL, the CSV written), the median of REPEAT requests of:
the organizers' phase-wide CSV, one run's CSV as an organizer (full precision) and as its
team (rounded), and one run's report page on one language; each uncached (Django's cache
emptied before every request: the first request after a scoring) and cached. Prints a table.
"""
from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DB = os.environ.get("BENCH_PER_TOPIC_DATABASE", "cupboard_bench_per_topic")
RUNS, TOPICS, REPEAT = 100, 400, 5
ENV = {"DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB}", "CUPBOARD_DEBUG": "false",
       "SECRET_KEY": "bench-per-topic-only-" + "x" * 40, "ALLOWED_HOSTS": "127.0.0.1,testserver",
       "CUPBOARD_SSL_REDIRECT": "false", "DJANGO_SETTINGS_MODULE": "cupboard.settings",
       "CUPBOARD_LOG_LEVEL": "WARNING", "CUPBOARD_VAR_DIR": str(ROOT / "bench-data" / "per-topic-var")}


def _fresh_database() -> None:
    for sql in (f'DROP DATABASE IF EXISTS "{DB}"', f'CREATE DATABASE "{DB}"'):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True)
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "--noinput"], env={**os.environ, **ENV},
                   check=True, stdout=subprocess.DEVNULL)


def _value(rng: random.Random, level: float) -> float:
    """A metric's value on one topic as evaluators give them: often 0 or 1, else any float."""
    found = rng.gauss(level, 0.3)
    return 0.0 if found <= 0 else 1.0 if found >= 1 else found


def _fill():
    """The dev phase with RUNS scored runs (one per team); (phase, an organizer, a participant, a run)."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from cupboard.competitions.models import QrelsRelease
    from cupboard.competitions.services import competition_load
    from cupboard.submissions.models import QueryScores, RunFile, Submission
    from cupboard.teams.models import Membership, Team

    competition = competition_load(data=ROOT / "platform/cupboard/competitions/definitions/miracl-wsdm-cup.yaml")
    phase = competition.phases.get(slug="dev")
    phase.visibility, phase.reveal_at, phase.freeze_at = phase.Visibility.LIVE, None, None
    phase.save()
    release = QrelsRelease.objects.create(phase=phase, number=1)
    teams = Team.objects.bulk_create(Team(competition=competition, name=f"Team {i}", name_key=f"team {i}",
                                          slug=f"team-{i}", invite_code=f"bench-{i}") for i in range(RUNS))
    runs = Submission.objects.bulk_create(
        Submission(phase=phase, team=team, number=1, method_name=f"run {i}", status=Submission.Status.SCORED,
                   scored_at=timezone.now(), qrels_release=release) for i, team in enumerate(teams))
    rng, subsets = random.Random(1), list(competition.subsets.all())
    for run in runs:
        level = rng.random() * 0.4 + 0.3
        QueryScores.objects.bulk_create(
            QueryScores(submission=run, subset=subset, values={
                metric: {str(q): _value(rng, level) for q in range(1, TOPICS + 1)} for metric in competition.metrics})
            for subset in subsets)
    RunFile.objects.bulk_create(RunFile(submission=run, subset=subset, file=f"runs/bench-{run.pk}-{subset.code}",
                                        original_name="run.txt", sha256="0" * 64, size=1)
                                for run in runs for subset in subsets)
    organizer = User.objects.create_user("bench-organizer", password="x", is_staff=True)
    participant = User.objects.create_user("bench-participant", password="x")
    Membership.objects.create(competition=competition, team=teams[0], user=participant)
    return phase, organizer, participant, runs[0]


def _timed(action) -> float:
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _getter(user, url: str):
    from django.test import Client

    client = Client()
    client.force_login(user)

    def get() -> bytes:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        return b"".join(response.streaming_content) if response.streaming else response.content
    return get


def _uncached(get) -> bytes:
    """A request as the first after a scoring makes it: nothing of it in the cache."""
    from django.core.cache import cache

    cache.clear()
    return get()


def _rows(phase, organizer, participant, run) -> list[tuple[str, str]]:
    from django.urls import reverse

    where = f"18 languages x {TOPICS} topics x 2 measures, {RUNS} runs"
    cases = [(f"organizers' phase-wide CSV ({where})", organizer,
              reverse("competitions:manage_per_topic", args=[phase.competition.slug, phase.slug])),
             ("one run's CSV, as an organizer (full precision)", organizer,
              reverse("submissions:per_topic_csv", args=[run.pk])),
             ("one run's CSV, as its team (rounded)", participant, reverse("submissions:per_topic_csv", args=[run.pk])),
             ("one run's report page (one language and measure), as its team", participant,
              reverse("submissions:per_topic", args=[run.pk]) + "?subset=ar")]
    rows = []
    for label, user, url in cases:
        get = _getter(user, url)
        size = len(get())  # a first request outside the timing (sessions, the viewer's first reads)
        for state, action in (("uncached", partial(_uncached, get)), ("cached", get)):
            cpu = time.process_time()
            wall = _timed(action)
            cpu = (time.process_time() - cpu) / REPEAT
            rows.append((f"{label}, {state}", f"{wall:.2f} s (CPU {cpu:.2f} s), {size / 1e6:.1f} MB"))
    return rows


def main() -> None:
    os.environ.update(ENV)
    _fresh_database()
    import django

    django.setup()
    started = time.perf_counter()
    found = _fill()
    print(f"filled {RUNS} runs x 18 languages x {TOPICS} topics in {time.perf_counter() - started:.0f} s")
    print(f"\n| per-topic CSVs (PostgreSQL, 2 cores, median of {REPEAT}) | time |\n|---|---:|")
    for label, value in _rows(*found):
        print(f"| {label} | {value} |", flush=True)
    average = os.getloadavg()
    print(f"\nload average {average[0]:.2f} {average[1]:.2f} {average[2]:.2f}")


if __name__ == "__main__":
    main()
