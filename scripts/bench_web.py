"""`make bench-web`: how the web side scales (docs/benchmarks.md, "Web benchmark"). Not part of `make test`.

On its own PostgreSQL database (BENCH_WEB_DATABASE, default cupboard_bench_web, dropped and
made afresh on the machine's server at 127.0.0.1:5432): the MIRACL WSDM Cup definition, its
dev phase filled with 500 teams and 10,000 scored submissions (synthetic Score rows, 18
languages x 2 metrics), then
  (b) leaderboard_refresh (whole phase) and leaderboard_update (one scoring), one scoring's
      database work (its scores stored, the row updated), the page uncached and cached;
  (s) rank bands (leaderboards/standings.py) on the test-a phase made live: BAND_TEAMS teams
      with per-query values (QueryScores) on 18 languages x BAND_QUERIES queries, 2 metrics;
      the bands alone, the whole refresh, and one scoring's update (which re-tests the board);
  (a) wrk against gunicorn (3 sync workers, as docker/) on 127.0.0.1: the leaderboard page,
      JSON, CSV and a static file at concurrency 1, 10, 50, anonymous and logged in;
  (p) every page and file of the competition, anonymous and logged in, beside the static
      file, each with its goal met or missed (scripts/bench_web_pages.py);
BENCH_WEB_PARTS (default "bsapc") picks parts. Traffic goes to 127.0.0.1 only (gunicorn on
BENCH_WEB_PORT, default a free port), each wrk run lasts BENCH_WEB_SECONDS (default 5). The cache
is BENCH_WEB_CACHE_URL (default redis://127.0.0.1:6379/15, shared by the gunicorn workers as compose
shares it, and emptied at the start: signed-in people's pages are kept only in a shared cache;
locmem:// keeps one per worker).
"""
from __future__ import annotations

import gc
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DB = os.environ.get("BENCH_WEB_DATABASE", "cupboard_bench_web")
SECONDS = int(os.environ.get("BENCH_WEB_SECONDS", "5"))
PARTS = os.environ.get("BENCH_WEB_PARTS", "bsapc")  # a subset of the parts below, e.g. BENCH_WEB_PARTS=a
VAR = ROOT / "bench-data" / "web-var"  # uploaded files, the filesystem broker, logs: emptied each run
TEAMS, SUBMISSIONS = 500, 10_000
BAND_TEAMS, BAND_QUERIES = 50, 1_000
ENV = {**os.environ, "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{DB}", "CUPBOARD_DEBUG": "false",
       "SECRET_KEY": "bench-web-only-" + "x" * 40, "CUPBOARD_SSL_REDIRECT": "false", "CUPBOARD_SECURE_COOKIES": "false",
       "ALLOWED_HOSTS": "127.0.0.1", "CUPBOARD_CACHE_URL": os.environ.get("BENCH_WEB_CACHE_URL", "redis://127.0.0.1:6379/15"),
       "DJANGO_SETTINGS_MODULE": "cupboard.settings", "CUPBOARD_LOG_LEVEL": "WARNING",
       "CELERY_BROKER_URL": os.environ.get("BENCH_WEB_BROKER_URL", "filesystem://"),
       "CUPBOARD_VAR_DIR": str(VAR), "CUPBOARD_WORKER_CONCURRENCY": "2"}


def _manage(*args: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], env=ENV, check=True, stdout=subprocess.DEVNULL)


def _fresh_database() -> None:
    shutil.rmtree(VAR, ignore_errors=True)
    VAR.mkdir(parents=True)
    for sql in (f'DROP DATABASE IF EXISTS "{DB}"', f'CREATE DATABASE "{DB}"'):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True)
    _manage("migrate", "--noinput")
    _manage("collectstatic", "--noinput")


def _fill():
    """The dev phase with TEAMS teams and SUBMISSIONS scored submissions; (phase, a participant)."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from cupboard.competitions.services import competition_load
    from cupboard.submissions.models import Score, Submission
    from cupboard.teams.models import Membership, Team
    from scripts.bench_web_pages import fill_topics

    competition = competition_load(data=ROOT / "platform/cupboard/competitions/definitions/miracl-wsdm-cup.yaml")
    phase = competition.phases.get(slug="dev")
    phase.visibility, phase.reveal_at = phase.Visibility.LIVE, None
    phase.save()
    teams = Team.objects.bulk_create(Team(competition=competition, name=f"Team {i}", name_key=f"team {i}",
                                          slug=f"team-{i}", invite_code=f"bench-{i}") for i in range(TEAMS))
    now, rng = timezone.now(), random.Random(1)
    submissions = Submission.objects.bulk_create(
        Submission(phase=phase, team=teams[i % TEAMS], number=i // TEAMS + 1, method_name=f"run {i}",
                   status=Submission.Status.SCORED, scored_at=now) for i in range(SUBMISSIONS))
    subsets = list(competition.subsets.all())
    Score.objects.bulk_create((Score(submission=s, subset=subset, metric=metric, value=rng.random())
                               for s in submissions for subset in subsets for metric in competition.metrics),
                              batch_size=5000)
    user = User.objects.create_user("bench-participant", password="x")
    Membership.objects.create(competition=competition, team=teams[0], user=user)
    fill_topics(phase)
    return phase, user


def _scored_with_queries(phase, team, number: int, rng: random.Random):
    """A scored submission of `team` with per-query values on every subset (both metrics) and
    their means as its Score rows: what the worker stores after scoring a run."""
    from django.utils import timezone

    from cupboard.submissions.models import QueryScores, Score, Submission

    competition = phase.competition
    submission = Submission.objects.create(phase=phase, team=team, number=number, method_name=f"run {number}",
                                           status=Submission.Status.SCORED, scored_at=timezone.now())
    level = rng.random() * 0.4 + 0.3
    scores, per_query = [], []
    for subset in competition.subsets.all():
        values = {m: {f"{subset.code}-{q}": min(1.0, max(0.0, rng.gauss(level, 0.25))) for q in range(BAND_QUERIES)}
                  for m in competition.metrics}
        per_query.append(QueryScores(submission=submission, subset=subset, values=values))
        scores += [Score(submission=submission, subset=subset, metric=m, value=sum(v.values()) / len(v))
                   for m, v in values.items()]
    Score.objects.bulk_create(scores)
    QueryScores.objects.bulk_create(per_query)
    return submission


def _bands(competition) -> list[tuple[str, str]]:
    """(s): rank bands on BAND_TEAMS teams x 18 languages x BAND_QUERIES queries."""
    from cupboard.leaderboards.services import leaderboard_refresh, leaderboard_retest, leaderboard_update

    phase = competition.phases.get(slug="test-a")
    phase.visibility, phase.reveal_at, phase.hidden_qrels = phase.Visibility.LIVE, None, False
    phase.save()
    rng, teams = random.Random(2), list(competition.teams.order_by("pk")[:BAND_TEAMS])
    for number, team in enumerate(teams, start=1):
        _scored_with_queries(phase, team, number, rng)
    leaderboard_refresh(phase=phase)
    rows = phase.leaderboard_rows.count()

    def one_scoring():
        submission = _scored_with_queries(phase, teams[rng.randrange(len(teams))], 1000 + rng.randrange(10**6), rng)
        leaderboard_update(phase=phase, submission=submission)
    where = f"{BAND_TEAMS} teams x 18 languages x {BAND_QUERIES:,} queries, {rows} rows"
    cpu = time.process_time()
    wall = _timed(lambda: leaderboard_retest(phase=phase))
    cpu = (time.process_time() - cpu) / 3  # this process's CPU (every thread): what a busy machine does not inflate
    return [(f"rank bands alone, randomization test ({where})", f"{wall:.2f} s (CPU {cpu:.2f} s)"),
            (f"leaderboard_refresh with rank bands ({where})", f"{_timed(lambda: leaderboard_refresh(phase=phase)):.2f} s"),
            ("one scoring's database work + leaderboard_update with rank bands", f"{_timed(one_scoring):.2f} s")]


def _machine_speed() -> str:
    """A fixed pure-Python loop's CPU time: this machine's speed swings by half with its
    host's load, and every number of a run is to be read against it."""
    started = time.process_time()
    total = 0
    for i in range(3_000_000):
        total += i * i
    return f"a fixed 3M-step Python loop took {(time.process_time() - started) * 1000:.0f} ms of CPU"


def _timed(action, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _one_scoring(phase, team=None):
    """What a scoring does beyond the evaluator: store its scores, mark it scored, update the
    board; the submission (of `team`, else of any team)."""
    from django.db import transaction
    from django.utils import timezone

    from cupboard.leaderboards.services import leaderboard_update
    from cupboard.submissions.models import Score, Submission

    team = team or phase.competition.teams.order_by("?").first()
    with transaction.atomic():
        submission = Submission.objects.create(phase=phase, team=team, number=10_000 + Submission.objects.count(),
                                               method_name="new", status=Submission.Status.SCORING)
        Score.objects.bulk_create(Score(submission=submission, subset=s, metric=m, value=random.random())
                                  for s in phase.competition.subsets.all() for m in phase.competition.metrics)
        Submission.objects.filter(pk=submission.pk).update(status=Submission.Status.SCORED, scored_at=timezone.now())
    leaderboard_update(phase=phase, submission=submission)
    return submission


def _server_side(phase, user) -> list[tuple[str, str]]:
    from django.core.cache import cache
    from django.test import Client

    from cupboard.leaderboards.services import leaderboard_refresh

    page = phase.get_absolute_url()
    anonymous = Client(HTTP_HOST="127.0.0.1")
    rows = [("leaderboard_refresh, whole phase (10,000 submissions)", f"{_timed(lambda: leaderboard_refresh(phase=phase)):.2f} s"),
            ("one scoring's database work + leaderboard_update", f"{_timed(lambda: _one_scoring(phase), 5) * 1000:.0f} ms")]

    def uncached():
        cache.clear()
        assert anonymous.get(page).status_code == 200
    cpu = time.process_time()
    wall = _timed(uncached, 5)
    cpu = (time.process_time() - cpu) / 5  # this process only: the database's share runs beside it
    rows.append(("leaderboard page, uncached (500 rows, 18 languages)", f"{wall * 1000:.0f} ms (CPU {cpu * 1000:.0f} ms)"))
    rows.append(("leaderboard page, cached", f"{_timed(lambda: anonymous.get(page), 20) * 1000:.1f} ms"))
    return rows


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wrk(url: str, connections: int, cookie: str | None, gzip: bool = True) -> str:
    command = ["wrk", f"-t{min(2, connections)}", f"-c{connections}", f"-d{SECONDS}s", "--timeout", "10s",
               "--latency", url]
    if cookie:
        command[1:1] = ["-H", f"Cookie: {cookie}"]
    if gzip:  # as every browser asks
        command[1:1] = ["-H", "Accept-Encoding: gzip, deflate, br"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    errors = sum(int(n) for n in re.findall(r"(?:Non-2xx or 3xx responses|errors: \w+ \d+, \w+ \d+, \w+ \d+, \w+):? (\d+)", out))
    return f"{rate:,.0f}/s p99 {p99_ms:.0f} ms" + (f" ({errors} errors)" if errors else "")


@contextmanager
def _gunicorn():
    """gunicorn with 3 sync workers, as docker/ runs it; yields its base URL once it answers."""
    from django.templatetags.static import static

    port = int(os.environ.get("BENCH_WEB_PORT") or _free_port())
    server = subprocess.Popen([str(Path(sys.executable).with_name("gunicorn")), "cupboard.wsgi", "--bind",
                               f"127.0.0.1:{port}", "--workers", "3", "--timeout", "600", "--log-level", "warning"],
                              env=ENV, cwd=ROOT)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while subprocess.run(["curl", "-sf", "-o", "/dev/null", base + static("cupboard.css")]).returncode:
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not start")
            time.sleep(0.5)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=30)


def _cookie(user) -> str:
    """A logged-in browser's cookies: its session, and the CSRF cookie its first page set."""
    from django.test import Client

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    client.get("/")
    return "; ".join(f"{name}={client.cookies[name].value}" for name in ("sessionid", "csrftoken")
                     if name in client.cookies)


def _pages(base: str, phase, user) -> list[list[str]]:
    from django.templatetags.static import static

    from cupboard.submissions.models import Submission
    from scripts.bench_web_pages import page_rows

    team = user.memberships.get().team
    mine = Submission.objects.filter(team=team, phase=phase).order_by("pk").first()
    return page_rows(base, phase, mine, _cookie(user), static("cupboard.css"),
                     lambda: _one_scoring(phase, team), SECONDS)


def _load(base: str, phase, user) -> list[list[str]]:
    from django.templatetags.static import static
    from django.urls import reverse

    cookie = _cookie(user)
    page = phase.get_absolute_url()
    args = [phase.competition.slug, phase.slug]
    targets = [("page", page), ("JSON", reverse("leaderboards:export_json", args=args)),
               ("CSV", reverse("leaderboards:export_csv", args=args)), ("static CSS", static("cupboard.css"))]
    for _, url in targets:  # warm: the first request of a version renders it
        for who_cookie in (None, cookie):
            subprocess.run(["curl", "-sf", "--compressed", "-o", "/dev/null", "-H", f"Cookie: {who_cookie or ''}",
                            base + url])
    table = []
    for who, who_cookie in (("anonymous", None), ("logged in", cookie)):
        for connections in (1, 10, 50):
            table.append([who, str(connections)] + [_wrk(base + url, connections, who_cookie) for _, url in targets])
    table.append(["anonymous, no gzip", "10"] + [_wrk(base + url, 10, None, gzip=False) for _, url in targets])
    return table


def _table(head: str, rows) -> None:
    print(f"\n{head}")
    for row in rows:
        print("| " + " | ".join(row) + " |", flush=True)


def main() -> None:
    os.environ.update(ENV)
    speed = _machine_speed()
    _fresh_database()
    import django

    django.setup()
    from django.core.cache import cache

    cache.clear()  # nothing kept from an earlier run's database, whose ids and versions this one repeats
    started = time.perf_counter()
    phase, user = _fill()
    print(f"filled {TEAMS} teams, {SUBMISSIONS:,} submissions in {time.perf_counter() - started:.0f} s")
    from cupboard.leaderboards.services import leaderboard_refresh
    from scripts.bench_web_upload import upload_rows

    leaderboard_refresh(phase=phase)
    # What filling left in this process is the bench's, not a web worker's: keep the cyclic
    # collector from walking it during every timed render (a gunicorn worker holds none of it).
    gc.collect()
    gc.freeze()
    if "b" in PARTS:
        _table("| measure (PostgreSQL, 2 cores) | time |\n|---|---:|", _server_side(phase, user))
    if "s" in PARTS:
        _table("| rank bands (PostgreSQL, 2 cores) | time |\n|---|---:|", _bands(phase.competition))
    with _gunicorn() as base:
        if "a" in PARTS:
            _table("| viewer | concurrency | page | JSON | CSV | static CSS |\n|---|---:|---|---|---|---|",
                   _load(base, phase, user))
        if "p" in PARTS:
            _table("| URL (dev phase, 500 teams) | viewer | req/s at c=10 | share (reference measured beside it) | p99 "
                   "| server CPU per request (reference's) | errors (c=10, c=50) | goal |\n"
                   "|---|---|---:|---:|---:|---:|---:|---|", _pages(base, phase, user))
        if "c" in PARTS:
            _table("| (c) one submission, 2 cores, worker concurrency 2 | time |\n|---|---:|",
                   upload_rows(base, ENV, VAR))
    print(f"\nmachine speed: {speed} at the start, {_machine_speed()} at the end")
    average = os.getloadavg()
    print(f"\nload average {average[0]:.2f} {average[1]:.2f} {average[2]:.2f}; wrk {SECONDS} s per cell, "
          "Accept-Encoding: gzip but the last row; gunicorn 3 sync workers")


if __name__ == "__main__":
    main()
