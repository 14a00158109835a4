"""Consent to release a run in the results archive from scripts too (issue 34): the command
line's `submit --release` and the Python client's `release_consent=True` send the API's
`release_consent` field, and the API stores it; without them the run is not released."""
import pytest
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.models import Submission
from evaluator.cli import main
from evaluator.client import cupboard as client_module

from .conftest import good_sw, run_bytes

pytestmark = pytest.mark.django_db


@pytest.fixture
def relayed(world, monkeypatch):
    """The client's upload body posted to the real API view through Django's test client."""
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=world.participant)}")

    def answer(self, url, body, *, patience=0, progress=None):
        path = reverse("submissions:api_upload", args=[world.competition.slug, "dev"])
        response = api.generic("POST", path, b"".join(body.chunks()), content_type=body.content_type)
        assert response.status_code == 201, response.content
        return response.json()
    monkeypatch.setattr(client_module.Cupboard, "_answer", answer)
    return world


@pytest.mark.parametrize("flag, consent", [(["--release"], True), ([], False)])
def test_the_command_line_sends_the_consent(relayed, tmp_path, flag, consent):
    run = tmp_path / "run.sw.txt"
    run.write_bytes(run_bytes(good_sw()))
    code = main(["submit", "--server", "http://cup.invalid", "--competition", relayed.competition.slug, "--phase", "dev",
                 "--method", "BM25", "--run", str(run), "--token", "t", *flag])
    assert code == 0
    assert Submission.objects.get().release_consent is consent


def test_the_python_client_sends_it(relayed, tmp_path):
    run = tmp_path / "run.sw.txt"
    run.write_bytes(run_bytes(good_sw()))
    client_module.Cupboard("http://cup.invalid", "t").upload(relayed.competition.slug, "dev", [str(run)],
                                                             method_name="BM25", release_consent=True)
    assert Submission.objects.get().release_consent is True
