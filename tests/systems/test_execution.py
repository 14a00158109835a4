"""An execution in this process, with the real sandbox: the example system's output becomes the
team's submission through the upload's validation and is scored exactly as the same system's
runs made by hand; a system stopped at its memory limit tells the team why; a determinism check
compares two outputs; no topic reaches what the team reads. Skipped where the host cannot sandbox."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings

from cupboard.submissions.models import Score
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from cupboard.systems.execution import execution_run
from cupboard.systems.models import Execution
from cupboard.systems.sandbox import sandbox_problem
from cupboard.systems.services import system_determinism_check, system_upload
from scripts.build_system_image import build
from tests.submissions.conftest import upload
from tests.systems.conftest import QUERIES, QUERY_MARKER, image_upload
from tests.systems.image_tars import EXAMPLE, example_image

pytestmark = [pytest.mark.skipif(bool(sandbox_problem()), reason=f"no sandbox here: {sandbox_problem()}"),
              pytest.mark.django_db]

# Passages whose ids the dev judgments hold (tests/submissions/conftest.py JUDGMENTS), in words
# the queries share, so BM25 ranks judged documents.
CORPUS = {"sw": {"10#0": "swordfish sw 1", "11#0": "sw 1 swordfish swordfish", "12#0": "sw 1", "20#0": "sw 2 swordfish",
                 "21#0": "sw 2", "30#0": "sw 3 swordfish"},
          "te": {"10#1": "te 1 swordfish", "20#1": "te 2 swordfish", "99#1": "nothing here"}}


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for code, passages in CORPUS.items():
        (folder / f"{code}.jsonl").write_text("".join(json.dumps({"docid": d, "text": t}) + "\n"
                                                      for d, t in passages.items()))
    return folder


@pytest.fixture
def corpus(tmp_path, blind):
    root = tmp_path / "corpus"
    write_corpus(root / blind.competition.slug)
    with override_settings(CUPBOARD_SYSTEMS_CORPUS_DIR=root):
        yield root / blind.competition.slug


def test_the_example_system_is_scored_as_its_runs_made_by_hand(blind, corpus, tmp_path):
    system = system_upload(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="BM25 box",
                           image=image_upload(example_image().read_bytes(), "bm25.tar"))
    execution = system.executions.get()
    assert execution_run(execution_id=execution.pk) == Execution.Status.DONE
    execution.refresh_from_db()
    assert execution.exit_code == 0 and execution.submission is not None and execution.topics.keys() == {"sw", "te"}
    assert execution.image_sha256 and execution.command == ["python3", "/app/bm25.py"] and execution.output_sha256
    assert execution.cpu_seconds > 0 and execution.max_rss_bytes > 0 and execution.limits["wall_seconds"] > 0
    assert QUERY_MARKER not in execution.log_tail + execution.status_reason
    assert submission_score(submission_id=execution.submission.pk) == "scored"
    # The same system by hand, on the same topics and corpus, uploaded as the organizers' baseline.
    topics, by_hand = tmp_path / "topics", tmp_path / "by-hand"
    topics.mkdir()
    by_hand.mkdir()
    for code in ("sw", "te"):
        (topics / f"{code}.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES[code].items()))
    subprocess.run([sys.executable, EXAMPLE / "bm25.py", "--topics", topics, "--corpus", corpus, "--output", by_hand],
                   check=True, capture_output=True)
    baseline = submission_create(phase=blind.dev, team=None, user=blind.organizer, method_name="BM25 by hand",
                                 is_baseline=True, files=[(upload(f"run.{c}.txt", (by_hand / f"{c}.trec").read_bytes()),
                                                           c) for c in ("sw", "te")])
    assert submission_score(submission_id=baseline.pk) == "scored"
    ran = {(s.subset.code, s.metric): s.value for s in Score.objects.filter(submission=execution.submission)}
    made = {(s.subset.code, s.metric): s.value for s in Score.objects.filter(submission=baseline)}
    assert ran == made and len(ran) >= 4 and any(value > 0 for value in ran.values())


def test_determinism_is_two_executions_with_the_same_output(blind, corpus):
    system = system_upload(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="BM25 box",
                           image=image_upload(example_image().read_bytes(), "bm25.tar"))
    first, second = system_determinism_check(system=system, actor=blind.organizer)
    for execution in (first, second):
        assert execution_run(execution_id=execution.pk) == Execution.Status.DONE
        execution.refresh_from_db()
        assert execution.submission is None
    assert first.output_sha256 == second.output_sha256 and len(first.output_files) == 2


@override_settings(CUPBOARD_SYSTEM_MEMORY_BYTES=128 * 2 ** 20)
def test_a_system_over_its_memory_is_stopped_and_the_team_reads_why(blind, corpus, tmp_path):
    code = tmp_path / "hog"
    code.mkdir()
    (code / "hog.py").write_text("import sys\nprint('allocating', file=sys.stderr)\nblocks = [bytearray(2 ** 20) "
                                 "for _ in range(2000)]\n")
    build(code, "hog.py", tmp_path / "hog.tar", tag="hog:1")
    system = system_upload(phase=blind.dev, team=blind.team_a, user=blind.participant, method_name="hog",
                           image=image_upload((tmp_path / "hog.tar").read_bytes(), "hog.tar"))
    execution = system.executions.get()
    assert execution_run(execution_id=execution.pk) == Execution.Status.STOPPED
    execution.refresh_from_db()
    assert execution.stopped_for == "memory" and "128 MiB of memory" in execution.status_reason
    assert execution.submission is None and "allocating" in execution.log_tail
