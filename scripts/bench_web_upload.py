"""`make bench-web` part (c): one full test-B-sized submission from upload to "scored".

A competition shaped as the WSDM Cup (18 MIRACL languages) whose phase holds synthetic
topics and judgments of the test-B sizes (17,362 queries, `evaluator.synthetic`), loaded
through the organizers' services; a team with an API token. One submission of 18 run files
at depth 100 (1.7 M lines, uploaded plain) and one at depth 1000 (17 M lines, uploaded
gzipped: plain it is ~0.7 GB, above CUPBOARD_MAX_UPLOAD_BYTES) go through the real path: a
multipart POST to the JSON API on gunicorn, as `python -m evaluator submit` sends it, then a
real Celery worker scores it. The time is from the POST's first byte to the row's status
`scored`, polled in the database every 50 ms. The data is generated once into
bench-data/web-test-b/ and reused.
"""
from __future__ import annotations

import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "bench-data" / "web-test-b"
SLUG = "bench-test-b"
DEPTHS = (100, 1000)


def _generate() -> dict[int, list[Path]]:
    """Topics and qrels (DATA/phase) and one submission per depth; made once."""
    from evaluator.synthetic import MIRACL_TEST_B_QUERY_COUNTS, make_qrels, make_run, make_topics

    runs = {}
    for depth in DEPTHS:
        folder = DATA / f"depth-{depth}"
        suffix = ".txt.gz" if depth > 100 else ".txt"
        runs[depth] = [folder / f"run.bench.{code}.test-b{suffix}" for code in MIRACL_TEST_B_QUERY_COUNTS]
        if (folder / ".complete").exists():
            continue
        print(f"generating a test-B-sized submission at depth {depth} into {folder} (once) ...", flush=True)
        for code, count in MIRACL_TEST_B_QUERY_COUNTS.items():
            if not (DATA / "phase" / f"qrels.{code}.tsv").exists():
                make_topics(DATA / "phase" / f"topics.{code}.tsv", language=code, count=count)
                make_qrels(DATA / "phase" / f"qrels.{code}.tsv", language=code, count=count)
        for path, (code, count) in zip(runs[depth], MIRACL_TEST_B_QUERY_COUNTS.items(), strict=True):
            make_run(path, language=code, count=count, depth=depth, tag="bench")
        (folder / ".complete").touch()
    return runs


def _competition() -> str:
    """The competition, its phase's topics and qrels, a team; returns the team's API token."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    from cupboard.accounts.services import api_token_create
    from cupboard.competitions.services import competition_load, qrels_release_create
    from cupboard.competitions.topic_files import topics_import
    from cupboard.teams.services import team_create
    from scripts.loadtest.competition import definition

    organizer = User.objects.create_user("loadtest-organizer", "organizer@example.org")
    competition = competition_load(data={**definition(timezone.now()), "slug": SLUG, "title": "test-B sized",
                                         "max_run_depth": max(DEPTHS)},
                                   actor=organizer)
    phase = competition.phases.get(slug="dev")
    codes = list(competition.subsets.values_list("code", flat=True))
    for code in codes:
        topics_import(phase=phase, subset=code, file=DATA / "phase" / f"topics.{code}.tsv",
                      name=f"topics.{code}.tsv", actor=organizer)
    qrels_release_create(phase=phase, files={c: DATA / "phase" / f"qrels.{c}.tsv" for c in codes},
                         names={c: f"qrels.{c}.tsv" for c in codes}, actor=organizer, note="bench")
    user = User.objects.create_user("bench-uploader", "uploader@example.org")
    team_create(competition=competition, user=user, name="Uploaders")
    return api_token_create(user=user)


@contextmanager
def _worker(env: dict, log: Path):
    """A Celery worker as compose runs one, ready to take tasks."""
    worker = subprocess.Popen([str(Path(sys.executable).with_name("celery")), "-A", "cupboard", "worker",
                               "--loglevel=INFO"], env=env, cwd=ROOT, stdout=log.open("w"), stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while " ready." not in log.read_text(errors="replace"):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the celery worker did not start (see {log})")
            time.sleep(0.2)
        yield
    finally:
        worker.terminate()
        worker.wait(timeout=60)


def _upload_to_scored(base: str, token: str, files: list[Path], method: str) -> tuple[float, float]:
    """(seconds until the POST was answered, seconds until the submission was scored)."""
    from cupboard.submissions.models import Submission
    from scripts.loadtest.datasets import RunSet
    from scripts.loadtest.uploads import Client, Upload

    upload = Upload(scenario="bench", number=0, team=0, run_set=RunSet(0, tuple(files), ()))
    upload = Client(base, SLUG, "dev", [token], timeout=900).send(upload)
    if upload.status not in (200, 201) or upload.submission_id is None:
        raise RuntimeError(f"upload {method} answered {upload.status}: {upload.error}")
    rows = Submission.objects.filter(pk=upload.submission_id)
    deadline = time.monotonic() + 900
    while (status := rows.values_list("status", flat=True).get()) != Submission.Status.SCORED:
        if status in (Submission.Status.FAILED, Submission.Status.REJECTED) or time.monotonic() > deadline:
            raise RuntimeError(f"submission {upload.submission_id} ended {status}")
        time.sleep(0.05)
    return upload.finished - upload.started, time.time() - upload.started


def upload_rows(base: str, env: dict, folder: Path) -> list[tuple[str, str]]:
    """Table rows of part (c), against the gunicorn at `base`."""
    runs = _generate()
    token = _competition()
    rows = []
    with _worker(env, folder / "worker.log"):
        for depth in DEPTHS:
            answered, scored = _upload_to_scored(base, token, runs[depth], f"depth {depth}")
            size = sum(p.stat().st_size for p in runs[depth]) / 1e6
            rows.append((f"upload to scored: test-B sized (18 languages, 17,362 queries), depth {depth}, "
                         f"{size:.0f} MB{' gzipped' if depth > 100 else ''}",
                         f"{scored:.1f} s (answered after {answered:.1f} s)"))
    return rows

