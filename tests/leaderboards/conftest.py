"""Scored submissions written straight to the database, so leaderboard tests need no
evaluator run: each test states the per-subset means it ranks."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from cupboard.competitions.models import Phase, QrelsRelease
from cupboard.submissions.models import Score, Submission
from cupboard.teams.models import Team
from tests.module_rows import module_rows
from tests.personas import build_cast
from tests.submissions.openapi_check import check_every_answer


def make_scored(phase: Phase, *, team: Team | None = None, method: str = "bm25",
                scores: dict[str, dict[str, float]] | None = None, minutes_ago: int = 0,
                status: str = Submission.Status.SCORED, selected: bool = False, disqualified: bool = False,
                release: QrelsRelease | None = None) -> Submission:
    """A submission of `team` (a baseline when None) with Score rows {subset: {metric: value}},
    created `minutes_ago` minutes before now."""
    owner = {"team": team} if team else {"team": None, "is_baseline": True}
    number = Submission.objects.filter(phase=phase, team=team).count() + 1
    submission = Submission.objects.create(
        phase=phase, number=number, method_name=method, status=status, selected_for_final=selected,
        disqualified=disqualified, qrels_release=release, scored_at=timezone.now(), **owner)
    # created_at is auto_now_add: move it afterwards to order submissions in time.
    Submission.objects.filter(pk=submission.pk).update(created_at=timezone.now() - timedelta(minutes=minutes_ago))
    subsets = {s.code: s for s in phase.competition.subsets.all()}
    Score.objects.bulk_create(Score(submission=submission, subset=subsets[code], metric=metric, value=value)
                              for code, by_metric in (scores or {}).items() for metric, value in by_metric.items())
    submission.refresh_from_db()
    return submission


def ndcg(**by_subset: float) -> dict[str, dict[str, float]]:
    """Scores of nDCG@10 only, e.g. ndcg(sw=0.5, te=0.3)."""
    return {code: {"nDCG@10": value} for code, value in by_subset.items()}


# Built once for a module whose database tests all take it (tests/module_rows.py).
_casts = module_rows({"cast": build_cast})


@pytest.fixture
def cast(_casts, db):
    return _casts.get("cast", build_cast)


@pytest.fixture(autouse=True)
def json_answers_match_the_openapi_document(monkeypatch):
    """Every leaderboard JSON answer in these tests (leaderboard.json, official.json,
    history.json) is checked against the OpenAPI document, as the API's are in tests/submissions."""
    check_every_answer(monkeypatch)


# For the browser tests: requested after the module's `board` (its data), since playwright runs
# an event loop in this thread, and Django refuses database calls from a thread with a running loop.
@pytest.fixture
def page(board):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        yield browser.new_page(viewport={"width": 1280, "height": 900})
        browser.close()
