"""The demo's systems phase (LAReQA's blind round): a team's system, not its runs.

The example BM25 system (examples/systems/bm25) is built into an image with
scripts/build-system-image, uploaded by a team through `system_upload`, and run at once, as a
runner would (`execution_run`), on the phase's topics and a corpus written for it (each judged
passage; the relevant ones say their query's words). Its output goes through the upload's
validation and is scored: the blind round's board has the system beside the baselines. Where
this machine cannot run a sandbox (no bubblewrap, no user namespaces) or the checkout's
scripts/ are not there (an installed package), the demo says so and leaves the system queued
for a runner worker (`celery -A cupboard worker -Q systems`).
"""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile

from cupboard.competitions.models import Phase
from cupboard.submissions.scoring import submission_score
from cupboard.systems.execution import execution_run
from cupboard.systems.sandbox import sandbox_problem
from cupboard.systems.services import system_upload

from .data import SubsetData

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "systems" / "bm25"


def demo_system_run(*, phase: Phase, team, user, by_code: dict[str, SubsetData], log: Callable[[str], None]) -> None:
    """Upload the example system as `team`'s and run it now, when this machine can."""
    image = _example_image()
    if image is None:
        log(f"{phase}: no examples/systems or scripts/ here (an installed package): no example system")
        return
    _corpus_write(phase, by_code)
    system = system_upload(phase=phase, team=team, user=user, image=ContentFile(image, name="bm25.tar"),
                           method_name="BM25 (the example system)",
                           description="examples/systems/bm25: BM25 in pure Python, run by the platform on the "
                                       "blind round's topics", release_consent=True)
    problem = sandbox_problem()
    if problem:
        log(f"{phase}: the example system is uploaded but not run: this machine cannot sandbox ({problem}); "
            "it waits for a runner worker (celery -A cupboard worker -Q systems)")
        return
    execution = system.executions.get()
    outcome = execution_run(execution_id=execution.pk)
    execution.refresh_from_db()
    if execution.submission_id is not None:
        submission_score(submission_id=execution.submission_id)
    log(f"{phase}: the example system ran ({outcome}, {execution.wall_seconds or 0:.1f} s) and its runs were scored")


def _example_image() -> bytes | None:
    """The example's image tar, built from this checkout (kept under var/, built once)."""
    if not EXAMPLE.is_dir() or not (ROOT / "scripts" / "build_system_image.py").is_file():
        return None
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from scripts.build_system_image import build

    target = Path(settings.VAR_DIR) / "systems-images" / "demo-bm25.tar"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        build(EXAMPLE, "bm25.py", target, tag="bm25:demo")
    return target.read_bytes()


def _corpus_write(phase: Phase, by_code: dict[str, SubsetData]) -> None:
    """The phase's corpus where runners read it (CUPBOARD_SYSTEMS_CORPUS_DIR/<slug>/<code>.jsonl):
    every judged passage, a relevant one in its query's words."""
    folder = Path(settings.CUPBOARD_SYSTEMS_CORPUS_DIR) / phase.competition.slug
    folder.mkdir(parents=True, exist_ok=True)
    for code, piece in by_code.items():
        lines = []
        for qid, documents in piece.judgments.items():
            for docid, label in documents.items():
                text = piece.topics.get(qid, "") if label > 0 else f"a passage about something else {docid}"
                lines.append(json.dumps({"docid": docid, "text": text}, ensure_ascii=False))
        (folder / f"{code}.jsonl").write_text("\n".join(sorted(set(lines))) + "\n", encoding="utf-8")
