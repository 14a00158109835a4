"""The platform and its clients keep one API contract (evaluator/client/api.py): the URL
patterns, statuses, upload fields and answers the platform has are the contract's, and the
command the How to submit page prints is one the CLI parses."""
import html
import re
import shlex

import pytest
from django.conf import settings
from django.urls import resolve, reverse

from cupboard import outages
from cupboard.accounts.services import api_token_create
from cupboard.competitions import run_metadata
from cupboard.submissions import api as views
from cupboard.submissions.forms import ApiUploadForm
from cupboard.submissions.models import Submission
from evaluator.cli import build_parser
from evaluator.client import api as contract
from tests.personas import client_for

from .conftest import good_sw, upload


def test_the_api_urls_are_the_contracts_routes():
    upload_path = contract.path_of(contract.UPLOAD_ROUTE, competition_slug="cup", phase_slug="test-b")
    status_path = contract.path_of(contract.STATUS_ROUTE, pk=42)
    assert (upload_path, status_path) == ("/submissions/api/cup/test-b/", "/submissions/api/42/")
    assert reverse("submissions:api_upload", args=["cup", "test-b"]) == upload_path
    assert reverse("submissions:api_status", args=[42]) == status_path
    assert resolve(upload_path).func is views.upload and resolve(status_path).func is views.status
    assert contract.upload_url("https://cup.example.org/", "cup", "dev") == "https://cup.example.org/submissions/api/cup/dev/"
    assert upload_path.startswith(outages.API_PREFIX) and status_path.startswith(contract.PREFIX)
    definition_path = contract.path_of(contract.DEFINITION_ROUTE, competition_slug="cup", phase_slug="test-b")
    assert reverse("submissions:api_definition", args=["cup", "test-b"]) == definition_path
    assert resolve(definition_path).func is views.definition and definition_path.startswith(contract.PREFIX)
    assert contract.definition_url("https://cup.example.org", "cup", "dev") == \
        "https://cup.example.org/submissions/api/cup/dev/definition/"


def test_the_statuses_and_upload_fields_are_the_contracts():
    assert tuple(Submission.Status.values) == contract.STATUSES
    assert contract.DONE == set(contract.STATUSES) - set(Submission.PENDING)
    form = ApiUploadForm(subsets=[], metadata_fields=[])
    fields = {contract.METHOD_NAME, contract.DESCRIPTION, contract.PAPER_URL, contract.CODE_URL, contract.IS_BASELINE,
              contract.FILES, contract.RELEASE_CONSENT, contract.JUDGING_PRIORITY, contract.TOPIC_FIELDS}
    assert fields <= set(form.fields)
    assert run_metadata.PREFIX == contract.META_PREFIX


@pytest.fixture
def api(world):
    from django.test import Client

    return Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} {api_token_create(user=world.participant)}")


def test_the_answers_hold_the_fields_clients_read(world, api):
    path = contract.path_of(contract.UPLOAD_ROUTE, competition_slug=world.competition.slug, phase_slug="dev")
    created = api.post(path, {contract.METHOD_NAME: "BM25", contract.FILES: [upload("run.sw.txt", good_sw())]})
    assert created.status_code == 201 and set(contract.UPLOAD_ANSWER_FIELDS) <= set(created.json())
    assert created.json()["status"] in contract.STATUSES
    state = api.get(contract.path_of(contract.STATUS_ROUTE, pk=created.json()["id"]))
    assert state.status_code == 200 and set(contract.ANSWER_FIELDS) <= set(state.json())
    refused = api.post(path, {contract.METHOD_NAME: "BM25"})
    assert refused.status_code == 400 and [set(e) for e in refused.json()["errors"]] == [set(contract.ERROR_FIELDS)]
    definition = api.get(contract.path_of(contract.DEFINITION_ROUTE, competition_slug=world.competition.slug,
                                          phase_slug="dev"))
    assert definition.status_code == 200 and set(definition.json()) == set(contract.DEFINITION_FIELDS)


def test_the_how_to_submit_command_is_one_the_cli_parses(world):
    page = client_for(world.participant).get(reverse("competitions:how_to_submit", args=[world.competition.slug]))
    command = re.findall(r'<pre class="command">(.*?)</pre>', page.content.decode(), re.S)[0]  # dev's
    argv = shlex.split(html.unescape(command).replace("\\\n", " "))
    assert argv[0] == "cupboard-eval"
    args = build_parser().parse_args(argv[1:])
    assert (args.command, args.competition, args.phase, args.wait) == ("submit", world.competition.slug, "dev", True)
    assert args.method == "my first run" and args.server == settings.SITE_URL
    assert args.run == ["run.mine.sw.dev.txt", "run.mine.te.dev.txt"] and len(args.topics) == 2
