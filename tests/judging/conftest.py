"""A phase with runs that retrieve unjudged documents, for the judging cycle's tests.

The personas' cup, dev phase (open judgments) and test-b (hidden until its reveal). In sw,
query 1 has relevant a1, a2 and non-relevant n1; query 2 relevant b1. Runs (best first):

    team A   q1: a1 u1 u2 n1     q2: b1 u3       (u* unjudged)
    team B   q1: a2 u1 x1 x2     q2: x3 x4
    baseline q1: a1 a2 n1 u1     q2: b1
"""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from cupboard.competitions.services import qrels_release_create
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_topics, qrels_text
from tests.module_rows import module_rows
from tests.personas import Cast, build_cast

# MIRACL docids are ARTICLE#PASSAGE: the short names above, spelled that way.
D = {"a1": "101#0", "a2": "102#0", "n1": "103#0", "b1": "201#0", "u1": "901#1", "u2": "902#1", "u3": "903#1",
     "x1": "911#1", "x2": "912#1", "x3": "913#1", "x4": "914#1", "t1": "301#0", "t2": "302#0"}
JUDGMENTS = {"sw": {"1": {D["a1"]: 1, D["a2"]: 1, D["n1"]: 0}, "2": {D["b1"]: 1}},
             "te": {"1": {D["t1"]: 1}, "2": {D["t2"]: 1}}}
TOPICS = {"1": "mvua inanyesha", "2": "=formula looking query"}
RUNS = {
    "A": {"1": ["a1", "u1", "u2", "n1"], "2": ["b1", "u3"]},
    "B": {"1": ["a2", "u1", "x1", "x2"], "2": ["x3", "x4"]},
    "base": {"1": ["a1", "a2", "n1", "u1"], "2": ["b1"]},
}


def run_file(name: str, rankings: dict[str, list[str]], tag: str = "judging") -> SimpleUploadedFile:
    lines = [f"{qid} Q0 {D[docid]} {rank} {100 - rank} {tag}\n"
             for qid, docids in rankings.items() for rank, docid in enumerate(docids, start=1)]
    return SimpleUploadedFile(name, "".join(lines).encode(), content_type="text/plain")


@dataclass
class Scene:
    cast: Cast
    dev: object
    test_b: object
    sub_a: Submission
    sub_b: Submission
    baseline: Submission

    def __getattr__(self, name):
        if name.startswith("__") or "cast" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self.cast, name)


def submit(phase, *, team, user, key: str, baseline: bool = False) -> Submission:
    files = [(run_file(f"run.{key}.sw.txt", RUNS[key]), "sw")]
    submission = submission_create(phase=phase, team=team, user=user, files=files, method_name=f"method {key}",
                                   is_baseline=baseline)
    assert submission_score(submission_id=submission.pk) == "scored"
    submission.refresh_from_db()
    return submission


def build_scene(phase_slug: str = "dev") -> Scene:
    cast = build_cast()
    dev, test_b = cast.competition.phases.get(slug="dev"), cast.competition.phases.get(slug="test-b")
    for phase in (dev, test_b):
        for code in ("sw", "te"):
            make_topics(phase, code, TOPICS)
        qrels_release_create(phase=phase, files={c: qrels_text(j) for c, j in JUDGMENTS.items()},
                             actor=cast.organizer)
    phase = dev if phase_slug == "dev" else test_b
    return Scene(cast=cast, dev=dev, test_b=test_b,
                 sub_a=submit(phase, team=cast.team_a, user=cast.participant, key="A"),
                 sub_b=submit(phase, team=cast.team_b, user=cast.outsider, key="B"),
                 baseline=submit(phase, team=None, user=cast.organizer, key="base", baseline=True))


def _hidden_scene() -> Scene:
    return build_scene("test-b")


# Built once for a module whose database tests all take the same one (tests/module_rows.py).
_scenes = module_rows({"scene": build_scene, "hidden_scene": _hidden_scene})


@pytest.fixture
def scene(_scenes, db) -> Scene:
    return _scenes.get("scene", build_scene)


@pytest.fixture
def hidden_scene(_scenes, db) -> Scene:
    """The same runs on test B, whose judgments are hidden until its reveal."""
    return _scenes.get("hidden_scene", _hidden_scene)
