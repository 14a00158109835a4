"""Run metadata through every way in: the service, the upload form, the JSON API and
`python -m evaluator submit --meta` (a real HTTP round trip). Each refusal names the field
and stores nothing; what is stored shows on the submission's page and in the exports."""
import json
import os
import subprocess
import sys

import pytest
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.exports import phase_submissions_csv
from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_create
from tests.factories import set_run_metadata
from tests.personas import client_for
from tests.waiting import PATIENCE

from .conftest import good_sw, upload

GOOD = {"meta_run_type": "manual", "meta_zero_shot": "yes", "meta_model": "mDPR", "meta_parameters_m": "178",
        "meta_code": "https://example.org/code"}
STORED = {"run_type": "manual", "zero_shot": True, "model": "mDPR", "parameters_m": 178,
          "code": "https://example.org/code"}


@pytest.fixture
def cup(world):
    set_run_metadata(world.competition)
    return world


def upload_url(world):
    return reverse("submissions:upload", args=[world.competition.slug, "dev"])


def test_the_service_refuses_values_the_fields_refuse_and_stores_nothing(cup):
    with pytest.raises(SubmissionRefused) as caught:
        submission_create(phase=cup.dev, team=cup.team_a, user=cup.participant, method_name="x",
                          files=[(upload("run.sw.txt", good_sw()), None)], metadata={"run_type": "semi"})
    assert caught.value.code == "invalid_metadata"
    assert "run_type: must be one of automatic, manual" in caught.value.message
    assert "zero_shot: Zero-shot is required" in caught.value.message and not Submission.objects.exists()
    baseline = submission_create(phase=cup.dev, team=None, user=cup.organizer, method_name="BM25", is_baseline=True,
                                 files=[(upload("run.sw.txt", good_sw()), None)], metadata={"model": "BM25"})
    assert baseline.metadata == {"model": "BM25"}  # organizers' baselines may leave required fields empty


def test_the_form_names_each_wrong_field_keeps_the_input_and_stores_nothing(cup):
    client = client_for(cup.participant)
    page = client.get(upload_url(cup)).content.decode()
    assert 'name="meta_run_type"' in page and "No MIRACL training data used" in page and "Model (optional)" in page
    response = client.post(upload_url(cup), {"files": [upload("run.sw.txt", good_sw())], "method_name": "x",
                                              **GOOD, "meta_run_type": "semi", "meta_parameters_m": "big"})
    assert response.status_code == 400 and not Submission.objects.exists()
    errors = response.context["form"].errors
    assert errors["meta_run_type"] == ["must be one of automatic, manual, not 'semi'"]
    assert "whole number" in errors["meta_parameters_m"][0] and "meta_model" not in errors
    assert 'value="mDPR"' in response.content.decode()  # what was typed is kept


def test_the_form_stores_typed_values_and_the_page_shows_them(cup):
    client = client_for(cup.participant)
    response = client.post(upload_url(cup), {"files": [upload("run.sw.txt", good_sw())], "method_name": "x", **GOOD})
    submission = Submission.objects.get()
    assert response.status_code == 302 and submission.metadata == STORED
    page = client.get(submission.get_absolute_url()).content.decode()
    assert "About this run" in page and "<dd>Manual</dd>" in page and "<dd>yes</dd>" in page
    assert 'href="https://example.org/code"' in page
    # Another team may not open it: its metadata is as private as the submission.
    assert client_for(cup.outsider).get(submission.get_absolute_url()).status_code == 404


def test_the_api_takes_meta_fields_and_answers_errors_as_data(cup):
    from django.test import Client

    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=cup.participant)}")
    url = reverse("submissions:api_upload", args=[cup.competition.slug, "dev"])
    bad = api.post(url, {"method_name": "x", "files": [upload("run.sw.txt", good_sw())], **GOOD,
                         "meta_zero_shot": "maybe", "meta_modle": "typo"})
    assert bad.status_code == 400 and not Submission.objects.exists()
    messages = [e["message"] for e in bad.json()["errors"]]
    assert "meta_zero_shot: say yes or no, not 'maybe'" in messages
    assert any(m.startswith("meta_modle: no such field") for m in messages)
    good = api.post(url, {"method_name": "x", "files": [upload("run.sw.txt", good_sw())], **GOOD})
    assert good.status_code == 201 and good.json()["metadata"] == STORED
    status = api.get(reverse("submissions:api_status", args=[good.json()["id"]])).json()
    assert status["metadata"] == STORED


def test_the_organizers_export_has_a_column_per_field(cup):
    submission_create(phase=cup.dev, team=cup.team_a, user=cup.participant, method_name="x",
                      files=[(upload("run.sw.txt", good_sw()), None)], metadata=dict(STORED))
    header, row = phase_submissions_csv(phase=cup.dev).splitlines()[:2]
    columns = dict(zip(header.split(","), row.split(","), strict=True))
    assert (columns["meta:run_type"], columns["meta:zero_shot"], columns["meta:parameters_m"]) == ("manual", "yes",
                                                                                                 "178")


@pytest.mark.django_db(transaction=True)
def test_the_command_line_sends_meta_values_over_http(live_server, tmp_path):
    from tests.factories import make_qrels_release, make_topics
    from tests.personas import build_cast

    from .conftest import JUDGMENTS, QIDS, run_bytes

    cast = build_cast()
    set_run_metadata(cast.competition)
    dev = cast.competition.phases.get(slug="dev")
    make_topics(dev, "sw", QIDS)
    make_qrels_release(dev, JUDGMENTS)
    run = tmp_path / "run.mine.sw.dev.txt"
    run.write_bytes(run_bytes(good_sw()))
    env = {**os.environ, "CUPBOARD_TOKEN": api_token_create(user=cast.participant)}

    def submit(*meta: str) -> subprocess.CompletedProcess:
        argv = [sys.executable, "-m", "evaluator", "submit", "--server", live_server.url, "--competition", "cup",
                "--phase", "dev", "--method", "shell", "--run", str(run), "--format", "json",
                *(f"--meta={m}" for m in meta)]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=PATIENCE)

    refused = submit("run_type=automatic", "zero_shot=perhaps")
    assert refused.returncode == 1 and not Submission.objects.exists()
    assert "meta_zero_shot: say yes or no" in json.loads(refused.stdout)["errors"][0]["message"]
    malformed = submit("run_type")
    assert malformed.returncode == 2 and "write NAME=VALUE" in malformed.stderr
    done = submit("run_type=automatic", "zero_shot=no", "parameters_m=110")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["metadata"] == {"run_type": "automatic", "zero_shot": False, "parameters_m": 110}
    assert Submission.objects.get().metadata == {"run_type": "automatic", "zero_shot": False, "parameters_m": 110}


def test_the_how_to_submit_page_lists_the_fields_and_puts_the_required_ones_in_the_command(cup):
    page = client_for(None).get(reverse("competitions:how_to_submit", args=[cup.competition.slug])).content.decode()
    assert 'id="run-metadata"' in page and "<code>run_type</code>" in page and "<code>manual</code> (Manual)" in page
    assert "--meta run_type=automatic \\\n    --meta zero_shot=yes" in page
    assert "--meta model" not in page  # optional fields are listed, not put in the command
