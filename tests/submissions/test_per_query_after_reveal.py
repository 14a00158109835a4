"""Per-query values on a hidden-judgments final phase (the Cup's Test B: `hidden_qrels`,
`per_query_visible: false`): before the reveal nothing of them reaches a participant or the
public (the submission page, its status JSON, the JSON API, Compare, the per-topic report
and its CSV), whatever the phase shows of scores before its reveal; from the reveal, with the
judgments public, the per-query table, Compare and the per-topic reports open together, as
one rule (`Viewer.phase_shows_per_query`) says. Organizers see all of it throughout."""
from contextlib import nullcontext
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.competitions.models import Phase
from cupboard.submissions.models import QueryScores
from tests.factories import make_qrels_release
from tests.module_rows import module_rows
from tests.personas import client_for

from .conftest import JUDGMENTS, scoring_world
from .test_comparison import scored
from .test_per_topic import OTHER_SW


def _world_and_final():
    """The world, and team A's two runs and a baseline on Test B, scored on its hidden judgments."""
    world = scoring_world()
    make_qrels_release(world.test_b, JUDGMENTS)
    return world, (scored(world, phase=world.test_b), scored(world, phase=world.test_b, rankings=OTHER_SW),
                   scored(world, phase=world.test_b, baseline=True))


_built = module_rows({"world_and_final": _world_and_final})  # once for the module (tests/module_rows.py)


@pytest.fixture
def world_and_final(_built, db):
    return _built.get("world_and_final", _world_and_final)


@pytest.fixture
def world(world_and_final):
    return world_and_final[0]


@pytest.fixture
def final(world_and_final):
    return world_and_final[1]


def stored(submission) -> dict:
    """Its stored per-query values on sw, where it ran."""
    return QueryScores.objects.get(submission=submission, subset__code="sw").values


def long_values(submission) -> list[str]:
    """Its per-query values that no other figure of the page could print by chance (0.63092...)."""
    return [repr(v) for by_qid in stored(submission).values() for v in by_qid.values() if len(repr(v)) > 8]


def what_they_get(user, mine, other, baseline) -> dict[str, object]:
    """Everything of per-query values `user` can reach about `mine`: None where refused."""
    client = client_for(user)

    def answer(url, params=None):
        response = client.get(url, params or {})
        return response if response.status_code == 200 else None

    detail, status = answer(mine.get_absolute_url()), answer(reverse("submissions:status", args=[mine.pk]))
    api = None
    if user.is_authenticated:
        token = api_token_create(user=user)
        found = Client(HTTP_AUTHORIZATION=f"Token {token}").get(reverse("submissions:api_status", args=[mine.pk]))
        api = found.json() if found.status_code == 200 else None
    compare = reverse("submissions:compare", args=[mine.pk])
    baseline_status = answer(reverse("submissions:status", args=[baseline.pk]))
    return {
        "table": detail is not None and "Per-query values" in detail.content.decode(),
        "values on the page": detail is not None and any(value in detail.content.decode() for value in long_values(mine)),
        "comparable": list(detail.context["comparable"]) if detail is not None else [],
        "status": status.json()["per_query"] if status is not None else None,
        "api": api["per_query"] if api is not None else None,
        "compare own": answer(compare, {"with": other.pk}) is not None,
        "compare baseline": answer(compare, {"with": baseline.pk}) is not None,
        "baseline status": baseline_status.json()["per_query"] if baseline_status is not None else None,
        "report": answer(reverse("submissions:per_topic", args=[mine.pk])) is not None,
        "report csv": answer(reverse("submissions:per_topic_csv", args=[mine.pk])) is not None,
    }


NOTHING = {"table": False, "values on the page": False, "comparable": [], "status": {}, "api": {}, "compare own": False,
           "compare baseline": False, "report": False, "report csv": False}


@pytest.mark.parametrize("rule", list(Phase.BeforeReveal))
def test_before_the_reveal_nothing_per_query_reaches_a_participant_or_the_public(world, final, rule):
    Phase.objects.filter(pk=world.test_b.pk).update(before_reveal=rule)
    mine, other, baseline = final
    for user in (world.participant, world.teammate):
        got = what_they_get(user, mine, other, baseline)
        assert got["baseline status"] in ({}, None)
        assert {key: got[key] for key in NOTHING} == NOTHING, (user, rule)
    for user in (world.outsider, world.anonymous):  # another team, the public: not even the run
        got = what_they_get(user, mine, other, baseline)
        assert not any(got[key] for key in NOTHING), (user, rule)
        assert got["baseline status"] in ({}, None)


def test_from_the_reveal_the_table_compare_and_reports_open_together(world, final):
    mine, other, baseline = final
    with time_machine.travel(world.test_b.reveal_at + timedelta(seconds=1)):
        got = what_they_get(world.participant, mine, other, baseline)
        assert long_values(mine) and got["table"] and got["values on the page"]
        assert got["status"] == got["api"] and got["status"]["sw"] == stored(mine)
        assert set(got["comparable"]) == {other, baseline}
        assert got["compare own"] and got["compare baseline"] and got["report"] and got["report csv"]
        assert got["baseline status"] == {}  # a baseline's values themselves are never listed
        outsider = what_they_get(world.outsider, mine, other, baseline)  # another team still gets nothing of it
        assert not any(outsider[key] for key in NOTHING)
        assert not any(what_they_get(world.anonymous, mine, other, baseline)[key] for key in NOTHING)


def test_organizers_see_everything_before_and_after(world, final):
    mine, other, baseline = final
    expected = {"table": True, "comparable": [baseline, other], "compare own": True, "compare baseline": True,
                "report": True, "report csv": True}
    for instant in (None, world.test_b.reveal_at + timedelta(seconds=1)):
        with time_machine.travel(instant) if instant else nullcontext():
            got = what_they_get(world.organizer, mine, other, baseline)
            assert {key: got[key] for key in expected} == expected
            assert got["status"]["sw"] == got["api"]["sw"] == stored(mine)


def test_a_hidden_phase_without_a_reveal_instant_never_opens(world, final):
    """No reveal instant: the judgments are never public, so neither is anything per query."""
    Phase.objects.filter(pk=world.test_b.pk).update(reveal_at=None, before_reveal=Phase.BeforeReveal.EVERYTHING)
    mine, other, baseline = final
    got = what_they_get(world.participant, mine, other, baseline)
    assert {key: got[key] for key in NOTHING} == NOTHING
