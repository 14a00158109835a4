"""The demo serves its final state (issue 32): loaded as `make demo` loads it, every commit's
follow-ups run (tests/demo/loaded.py), when `load_demo` returns no run is queued or being scored,
every board is built from scores of the phase's current judgments, and DuReader's archive holds
every consented run and names the address the demo is served at. A re-queued run would leave its
board for minutes and come back, and an archive built meanwhile would be frozen without it."""
import io
import json
import zipfile

import pytest

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import Competition
from cupboard.competitions.selectors import current_qrels_release
from cupboard.demo.plan import COMPETITIONS, RELEASING
from cupboard.leaderboards.models import ResultsArchive
from cupboard.submissions.models import Submission
from tests.demo.loaded import SERVED_AT, loaded_demo

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_loaded_demo_is_in_its_final_state():
    """One test for both checks: this file's transactions are real (the database is emptied
    after each test)."""
    loaded_demo()
    no_run_is_queued_and_every_run_is_scored_with_its_phases_current_judgments()
    dureader_s_archive_holds_every_consented_run_and_names_the_address_served_at()


def no_run_is_queued_and_every_run_is_scored_with_its_phases_current_judgments():
    assert Submission.objects.count() > 0
    pending = list(Submission.objects.exclude(status=Submission.Status.SCORED).values_list("phase__slug", "status"))
    assert pending == [], "runs left for a worker when the demo starts serving"
    for submission in Submission.objects.select_related("phase"):
        assert submission.qrels_release == current_qrels_release(submission.phase), submission
    # Only the phases whose judgments the demo changes were re-scored; no phase re-queued the
    # runs it had just scored with its first judgments.
    judged = {Competition.objects.get(slug=plan.slug).phases.get(slug=plan.judging_phase).pk
              for plan in COMPETITIONS if plan.judging_phase}
    rescored = {details["phase"] for details in
                AuditEvent.objects.filter(action=AuditEvent.Action.RESCORED).values_list("details", flat=True)}
    assert judged and rescored <= judged, rescored

def dureader_s_archive_holds_every_consented_run_and_names_the_address_served_at():
    phase = Competition.objects.get(slug="dureader-retrieval").phases.get(is_final=True)
    archive = ResultsArchive.objects.get(phase=phase, status="done")
    assert archive.runs == len(RELEASING) + 3, "the consented runs and the three baselines"
    with archive.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as zipped:
        runs = json.loads(zipped.read("runs/runs.json"))["runs"]
        readme, citation = zipped.read("README.md").decode(), zipped.read("CITATION.bib").decode()
    released = [run for run in runs if run["released"]]  # runs.json records every counted run; these with their files
    assert len(released) == len(RELEASING) + 3 and len(runs) >= len(released)
    for text in (readme, citation):
        assert SERVED_AT in text and "127.0.0.1:8000" not in text
