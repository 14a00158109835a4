"""A world to submit into: the personas' competition (known sw, te; surprise yo) with topics
for both phases and judgments for the dev phase, plus helpers that write run files."""
import gzip

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from evaluator.client import cupboard as client_module
from tests.factories import make_qrels_release, make_topics
from tests.module_rows import module_rows
from tests.personas import Cast, build_cast

from .openapi_check import check_document, check_every_answer

QIDS = ["1", "2", "3"]
# sw: query 1 has relevant docs 10#0 (label 1) and 11#0 (label 2); query 2 has 20#0; query 3 none judged relevant.
JUDGMENTS = {
    "sw": {"1": {"10#0": 1, "11#0": 2, "12#0": 0}, "2": {"20#0": 1, "21#0": 0}, "3": {"30#0": 0}},
    "te": {"1": {"10#1": 1}, "2": {"20#1": 1}},
    "yo": {"1": {"10#2": 1}},
}


def run_bytes(rankings: dict[str, list[str]], *, tag: str = "test") -> bytes:
    """A TREC run: qid -> docids best first."""
    lines = [f"{qid} Q0 {docid} {rank} {100 - rank} {tag}\n"
             for qid, docids in rankings.items() for rank, docid in enumerate(docids, start=1)]
    return "".join(lines).encode()


def upload(name: str, rankings: dict[str, list[str]] | bytes, *, gz: bool = False) -> SimpleUploadedFile:
    content = rankings if isinstance(rankings, bytes) else run_bytes(rankings)
    if gz:
        content = gzip.compress(content)
    return SimpleUploadedFile(name, content, content_type="text/plain")


def good_sw() -> dict[str, list[str]]:
    return {"1": ["11#0", "10#0", "12#0"], "2": ["21#0", "20#0"], "3": ["30#0"]}


def scoring_world() -> Cast:
    """The cast's cup with topics in every language of dev and test B, and dev's judgments."""
    cast = build_cast()
    competition = cast.competition
    cast.dev = competition.phases.get(slug="dev")
    cast.test_b = competition.phases.get(slug="test-b")
    for phase in (cast.dev, cast.test_b):
        for code in ("sw", "te", "yo"):
            make_topics(phase, code, QIDS)
    make_qrels_release(cast.dev, JUDGMENTS)
    return cast


# Built once for a module whose database tests all take it (tests/module_rows.py); a module that
# imports `world` imports `_worlds` with it.
_worlds = module_rows({"world": scoring_world})


@pytest.fixture
def world(_worlds, db) -> Cast:
    return _worlds.get("world", scoring_world)


@pytest.fixture
def relayed(world, monkeypatch):
    """`world`, with the command line's and the Python client's uploads posted to the real API view
    through Django's test client (no server to start), as the participant's token: what a script sends
    is what the view stores. An upload the view refuses fails the test there."""
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=world.participant)}")

    def answer(self, url, body, *, patience=0, progress=None):
        path = reverse("submissions:api_upload", args=[world.competition.slug, "dev"])
        response = api.generic("POST", path, b"".join(body.chunks()), content_type=body.content_type)
        assert response.status_code == 201, response.content
        return response.json()
    monkeypatch.setattr(client_module.Cupboard, "_answer", answer)
    return world


@pytest.fixture(autouse=True)
def api_answers_match_the_openapi_document(monkeypatch):
    """Every answer the API gives in these tests is checked against docs/openapi.json's source:
    a status it does not list, or a body off its schema, fails the test that got it."""
    check_every_answer(monkeypatch)


@pytest.fixture(autouse=True)
def cli_answers_match_the_openapi_document(monkeypatch):
    """The CLI's side: every answer `python -m evaluator` reads from a live server in these
    tests (phase definitions, uploads, statuses: all through evaluator.client's Cupboard)
    is checked against the document too."""
    from urllib.parse import urlsplit

    from evaluator.client import cupboard

    def call_api(url, token, body=None, *, _original=cupboard.call_api, **kwargs):
        status, document = _original(url, token, body, **kwargs)
        if "retry_after" not in document:  # the client's own note on a 429/503, not the server's
            check_document("POST" if body is not None else "GET", urlsplit(url).path, status, document)
        return status, document
    monkeypatch.setattr(cupboard, "call_api", call_api)
