"""Every operation the OpenAPI document describes is called here, and every status it lists
for it is seen, each answer checked against the document (status, Retry-After, body).

The operations are read from the document itself (cupboard/operations/openapi.py), so an
operation added to any app's part without an exercise below fails `test_every_documented_
operation_is_exercised`, and one whose code answers a status or a body the document does
not list fails the check of that answer. The refusals every operation shares (a wrong token,
too many requests with one, the outage's 503) are exercised alike for all; the rest per
operation: successes and refusals, organizer against public rounding, a private board before
its reveal, the leaderboard's ?as_of= and run-metadata filter, and the official results once
frozen."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

import pytest
import time_machine
from django.db import OperationalError
from django.test import Client, override_settings

from cupboard.accounts.services import api_token_create
from cupboard.competitions.models import Phase
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.leaderboards.snapshots import snapshot_freeze
from cupboard.operations.openapi import openapi_document
from cupboard.submissions import api
from cupboard.submissions.models import QueryScores, Submission
from cupboard.systems.services import system_upload
from evaluator.client import api as contract
from tests.factories import set_run_metadata
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for
from tests.rate_windows import at_a_window_start
from tests.submissions.conftest import _worlds, good_sw, upload, world  # noqa: F401 - the world fixture
from tests.submissions.openapi_check import check_answer
from tests.systems.conftest import image_upload

OPERATIONS = [(path, method, operation["operationId"], sorted(operation["responses"]))
              for path, methods in openapi_document()["paths"].items() for method, operation in methods.items()]


@dataclass
class Calls:
    """One operation's calls: each must be that operation and is checked against the document."""

    template: str
    method: str
    world: object
    statuses: set[str] = field(default_factory=set)

    def path(self, **values) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), self.template)

    def __call__(self, client: Client, path: str, data: dict | None = None, **headers):
        assert re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", self.template), path), (path, self.template)
        send = client.post if self.method == "post" else client.get
        response = send(path, data or {}, **headers)
        assert check_answer(self.method.upper(), path, response), f"{path} answered {response.status_code}, unchecked"
        self.statuses.add(str(response.status_code))
        return response

    def token(self, persona: str) -> Client:
        """A client sending `persona`'s API token (and no session)."""
        user = getattr(self.world, persona)
        return Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} {api_token_create(user=user)}")


def _slugs(phase: str = "dev") -> dict:
    return {"competition_slug": "cup", "phase_slug": phase}


def _upload(calls: Calls) -> str:
    client, path = calls.token("participant"), calls.path(**_slugs())
    run = {contract.METHOD_NAME: "BM25"}
    assert calls(client, path, {**run, contract.FILES: [upload("run.sw.txt", good_sw())]}).status_code == 201
    repeat = calls(client, path, {**run, contract.FILES: [upload("run.sw.txt", good_sw())]})
    assert repeat.status_code == 200 and repeat.json()["repeat"] is True
    refused = calls(client, path, run)  # no run file
    assert refused.status_code == 400 and Submission.objects.count() == 1
    assert calls(client, calls.path(**_slugs("nope")), run).status_code == 404
    return path


def _definition(calls: Calls) -> str:
    path = calls.path(**_slugs())
    assert [s["code"] for s in calls(Client(), path).json()["subsets"]] == ["sw", "te"]
    assert [s["code"] for s in calls(calls.token("organizer"), path).json()["subsets"]] == ["sw", "te", "yo"]
    assert calls(Client(), calls.path(**_slugs("nope"))).status_code == 404
    return path


def _status(calls: Calls) -> str:
    mine = make_scored(calls.world.dev, team=calls.world.team_a, scores=ndcg(sw=0.5))
    theirs = make_scored(calls.world.dev, team=calls.world.team_b, scores=ndcg(sw=0.5))
    path = calls.path(pk=mine.pk)
    assert calls(calls.token("participant"), path).json()["scores"]["sw"]["nDCG@10"] == 0.5
    assert calls(calls.token("participant"), calls.path(pk=theirs.pk)).status_code == 404
    return path


def _competitions(calls: Calls) -> str:
    path = calls.path()
    public = calls(Client(), path).json()["competitions"]
    assert [p["leaderboard_visible"] for c in public if c["slug"] == "cup" for p in c["phases"]] == [True, False]
    organizer = calls(calls.token("organizer"), path).json()["competitions"]
    assert [p["leaderboard_visible"] for c in organizer if c["slug"] == "cup" for p in c["phases"]] == [True, True]
    return path


def _submissions(calls: Calls) -> str:
    made = make_scored(calls.world.dev, team=calls.world.team_a, scores=ndcg(sw=0.5))
    path = calls.path(**_slugs())
    assert [s["id"] for s in calls(calls.token("participant"), path).json()["submissions"]] == [made.pk]
    assert calls(calls.token("organizer"), path).status_code == 403  # in no team
    assert calls(calls.token("participant"), calls.path(**_slugs("nope"))).status_code == 404
    return path


def _boards(world) -> None:
    """Team A on dev (values with more digits than the site shows, per-query values for rank
    bands) and on the private test B, with run metadata to filter on."""
    set_run_metadata(world.competition)
    for phase in (world.dev, world.test_b):
        run = make_scored(phase, team=world.team_a, scores=ndcg(sw=0.123456, te=0.654321))
        Submission.objects.filter(pk=run.pk).update(metadata={"run_type": "automatic", "zero_shot": True})
        QueryScores.objects.create(submission=run, subset=world.competition.subsets.get(code="sw"),
                                   values={"nDCG@10": {"1": 0.2, "2": 0.046912}})
        leaderboard_refresh(phase=phase)


def _rounded(document: dict) -> bool:
    values = [v for row in document["rows"] for table in (row["values"], row["averages"])
              for by_metric in table.values() for v in by_metric.values() if v is not None]
    return bool(values) and all(round(v, 3) == v for v in values)


def _leaderboard(calls: Calls) -> str:
    _boards(calls.world)
    path = calls.path(**_slugs())
    public = calls(Client(), path).json()
    assert public["rounded_to"] == 3 and _rounded(public) and public["rows"][0]["values"]["sw"]["nDCG@10"] == 0.123
    assert public["significance"]["metric"] == "nDCG@10" and public["rows"][0]["standings"]["sw"]["ci"]
    organizer = calls(client_for(calls.world.organizer), path).json()
    assert organizer["rounded_to"] is None and not _rounded(organizer)
    assert calls(calls.token("organizer"), path).json() == organizer
    kept = calls(Client(), path, {"meta_run_type": "automatic"}).json()
    assert kept["filter"] == {"run_type": "automatic"} and len(kept["rows"]) == 1
    assert calls(Client(), path, {"meta_run_type": "manual"}).json()["rows"] == []
    past = calls(Client(REMOTE_ADDR="192.0.2.1"), path, {"as_of": "2020-01-01"}).json()
    assert past["as_of"].startswith("2020-01-01") and past["rows"] == []
    assert calls(Client(), path, {"as_of": "soon"}).json()["errors"][0]["code"] == "bad-as-of"
    private = calls.path(**_slugs("test-b"))
    assert calls(Client(), private).json()["errors"][0]["code"] == "leaderboard-not-public"
    assert calls(calls.token("participant"), private).status_code == 403
    assert calls(client_for(calls.world.organizer), private).json()["rows"][0]["team"] == "Team A"
    assert calls(Client(), calls.path(**_slugs("nope"))).status_code == 404
    with override_settings(CUPBOARD_RATES={"as-of-address": "1/m"}), at_a_window_start():
        asked = [calls(Client(REMOTE_ADDR="192.0.2.2"), path, {"as_of": "2020-01-01"}) for _ in range(2)]
    assert asked[-1].status_code == 429
    return path


def _official(calls: Calls) -> str:
    _boards(calls.world)
    path = calls.path(**_slugs("test-b"))
    assert calls(Client(), path).status_code == 404  # not revealed, not frozen
    assert calls(Client(), calls.path(**_slugs())).status_code == 404  # not a final phase
    after = calls.world.test_b.reveal_at + timedelta(minutes=1)
    with time_machine.travel(after, tick=False):
        assert snapshot_freeze(phase=calls.world.test_b, now=after) is not None
        frozen = calls(Client(), path).json()
        assert frozen["rounded_to"] == 3 and _rounded(frozen) and frozen["rows"][0]["team"] == "Team A"
        assert calls(calls.token("organizer"), path).json() == frozen  # the public's, frozen: the same for all
    return path


def _history(calls: Calls) -> str:
    _boards(calls.world)
    path = calls.path(**_slugs())
    public = calls(Client(), path).json()
    assert public["rounded_to"] == 3 and [p["value"] for p in public["points"]] == [0.389]
    organizer = calls(calls.token("organizer"), path).json()
    assert organizer["rounded_to"] is None and organizer["points"][0]["value"] == pytest.approx((0.123456 + 0.654321) / 3)
    private = calls.path(**_slugs("test-b"))
    assert calls(Client(), private).json()["errors"][0]["code"] == "leaderboard-not-public"
    assert [p["team"] for p in calls(client_for(calls.world.organizer), private).json()["points"]] == ["Team A"]
    assert calls(Client(), calls.path(**_slugs("nope"))).status_code == 404
    return path


def _systems_phase(world) -> None:
    """The world's dev phase made a systems phase (blind: teams upload images)."""
    Phase.objects.filter(pk=world.dev.pk).update(kind=Phase.Kind.SYSTEMS)
    world.dev.refresh_from_db()


def _system_upload(calls: Calls) -> str:
    _systems_phase(calls.world)
    client, path = calls.token("participant"), calls.path(**_slugs())
    made = calls(client, path, {"image": image_upload(), "method_name": "BM25 in a box"})
    assert made.status_code == 201 and made.json()["executions"][0]["status"] == "queued"
    assert calls(client, path, {"method_name": "no image"}).status_code == 400
    assert calls(client, calls.path(**_slugs("nope")), {"image": image_upload(), "method_name": "x"}).status_code == 404
    return path


def _system_status(calls: Calls) -> str:
    _systems_phase(calls.world)
    system = system_upload(phase=calls.world.dev, team=calls.world.team_a, user=calls.world.participant,
                           method_name="BM25 in a box", image=image_upload())
    path = calls.path(pk=system.pk)
    assert calls(calls.token("participant"), path).json()["executions"][0]["status"] == "queued"
    assert calls(client_for(calls.world.teammate), path).json()["sha256"] == system.sha256  # the page's session
    assert calls(calls.token("outsider"), path).status_code == 404  # another team's
    return path


EXERCISES: dict[str, Callable[[Calls], str]] = {
    "upload": _upload, "definition": _definition, "status": _status, "competitions": _competitions,
    "submissions": _submissions, "leaderboard": _leaderboard, "official": _official, "history": _history,
    "system_upload": _system_upload, "system_status": _system_status,
}


def _shared_refusals(calls: Calls, path: str, monkeypatch) -> None:
    """A wrong token (401), too many requests with one (429), and an outage (503: the
    database cannot be reached as the token is looked up)."""
    assert calls(Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} nope"), path).status_code == 401
    with override_settings(CUPBOARD_RATES={"api-token": "1/m"}), at_a_window_start():
        client = calls.token("participant")
        assert [calls(client, path).status_code for _ in range(2)][-1] == 429
    def unreachable(raw):
        raise OperationalError("connection refused")
    monkeypatch.setattr(api, "user_from_token", unreachable)
    assert calls(Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} abc"), path).status_code == 503


@pytest.mark.parametrize(("template", "method", "operation_id", "documented"), OPERATIONS,
                         ids=[f"{method.upper()} {path}" for path, method, _, _ in OPERATIONS])
def test_every_documented_operation_is_exercised(world, monkeypatch, template, method, operation_id,  # noqa: F811
                                                 documented):
    exercise = EXERCISES.get(operation_id)
    assert exercise is not None, f"{method.upper()} {template} ({operation_id}) is documented but no test calls it"
    calls = Calls(template=template, method=method, world=world)
    _shared_refusals(calls, exercise(calls), monkeypatch)
    assert sorted(calls.statuses) == documented, f"{operation_id}: statuses seen differ from those documented"


def test_an_undocumented_status_fails_the_check(world):  # noqa: F811
    """The exercises' check is not a rubber stamp: a leaderboard refusal the document omits fails."""
    from django.http import JsonResponse

    path = contract.page_path(contract.HISTORY_ROUTE, **_slugs())
    with pytest.raises(AssertionError, match="omits"):
        check_answer("GET", path, JsonResponse({"errors": []}, status=410))
    with pytest.raises(AssertionError, match="does not match"):
        check_answer("GET", path, JsonResponse({"competition": "cup"}))
