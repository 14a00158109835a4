"""The demo's judging in the browser (demo/assessment.py), on the judging tests' phase: two
assessors named, a corpus generated for the pool, one round judged whole with its overlap
resolved and made a qrels version; the same assessor's second task half judged, to resume."""
from __future__ import annotations

import pytest

from cupboard.demo.assessment import demo_assessment
from cupboard.judging.judgments import round_agreement
from cupboard.judging.pools import pool_export_build, pool_export_create
from tests.factories import make_user
from tests.judging.conftest import build_scene

pytestmark = pytest.mark.django_db


def test_the_demo_judges_a_pool_in_the_browser_and_releases_it():
    scene = build_scene()
    export = pool_export_create(phase=scene.dev, actor=scene.organizer, depth=4)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    assessors = [make_user("assessor"), make_user("assessor2")]
    logged: list[str] = []
    demo_assessment(phase=scene.dev, organizer=scene.organizer, assessors=assessors, seed=1, log=logged.append)
    assert set(scene.competition.assessors.all()) == set(assessors)
    [judging_round] = scene.dev.judging_rounds.all()  # the pool has sw only: no second round
    assert judging_round.qrels_release.number == 2 and "qrels v2" in logged[0]
    [agreement] = round_agreement(judging_round)
    assert agreement["pairs"] >= 1  # 20 % of the queries (rounded up) judged by both
    assert all(item.text and item.label is not None
               for task in judging_round.assignments.all() for item in task.items.all())
    assert scene.dev.corpora.get().documents == export.counts[0]["documents"]
