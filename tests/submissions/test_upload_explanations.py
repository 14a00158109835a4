"""Uploads that explain themselves: coverage per language, the wrong-language hint, "not a
text file", the true number of problems, messages without raw codes, a disabled form with
its reason, and a repeat said to be one."""
import os

import pytest
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.models import Submission
from cupboard.teams.models import Membership
from tests.factories import make_phase, make_topics
from tests.personas import client_for

from .conftest import good_sw, run_bytes, upload


def upload_url(world, phase="dev"):
    return reverse("submissions:upload", args=[world.competition.slug, phase])


def post(client, world, files, *, phase="dev", method="BM25"):
    return client.post(upload_url(world, phase), {"method_name": method, "files": files})


@pytest.fixture
def participant(world):
    return client_for(world.participant)


@pytest.fixture
def api(world):
    return Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=world.participant)}")


@pytest.fixture
def own_ids(world):
    """A phase whose languages have topic ids of their own (sw s1-s4, te t1-t4, yo y1-y4)."""
    phase = make_phase(world.competition, slug="own-ids")
    for code in ("sw", "te", "yo"):
        make_topics(phase, code, [f"{code[0]}{n}" for n in range(1, 5)])
    return phase


def test_it_warns_of_missing_queries_on_the_page_and_in_the_status(world, participant):
    response = post(participant, world, [upload("run.sw.txt", {"1": ["10#0"]})])
    submission = Submission.objects.get()
    page = participant.get(submission.get_absolute_url()).content.decode()
    assert "sw: 1 of 3 queries; the 2 missing count 0" in page and 'id="coverage"' in page
    data = participant.get(reverse("submissions:status", args=[submission.pk])).json()
    assert data["warnings"] == ["sw: 1 of 3 queries; the 2 missing count 0"]
    assert data["coverage"] == [{"subset": "sw", "queries": 1, "topics": 3, "missing": 2}]
    assert response.status_code == 302


def test_a_complete_run_gets_no_warning(world, participant):
    post(participant, world, [upload("run.sw.txt", good_sw())])
    submission = Submission.objects.get()
    assert 'id="coverage"' not in participant.get(submission.get_absolute_url()).content.decode()
    assert participant.get(reverse("submissions:status", args=[submission.pk])).json()["warnings"] == []


def test_the_api_answer_carries_the_coverage_warning(world, api):
    response = api.post(reverse("submissions:api_upload", args=[world.competition.slug, "dev"]),
                        {"method_name": "BM25", "files": [upload("run.sw.txt", {"1": ["10#0"], "2": ["20#0"]})]})
    assert response.status_code == 201
    assert response.json()["warnings"] == ["sw: 2 of 3 queries; the 1 missing count 0"]


def test_it_hints_at_the_wrong_language(world, participant, own_ids):
    te_run = run_bytes({f"t{n}": ["10#1"] for n in range(1, 5)})
    response = post(participant, world, [upload("run.sw.txt", te_run)], phase=own_ids.slug)
    page = response.content.decode()
    assert response.status_code == 400
    assert "these query ids are te&#x27;s topics (Telugu), not sw&#x27;s: is the file named for the wrong language?" \
        in page or "these query ids are te's topics" in page
    assert "4 problems in the run files" in page  # the hint is not counted as a problem


def test_the_hint_never_names_a_hidden_language(world, participant, own_ids):
    yo_run = run_bytes({f"y{n}": ["10#2"] for n in range(1, 5)})
    response = post(participant, world, [upload("run.sw.txt", yo_run)], phase=own_ids.slug)
    page = response.content.decode()
    assert response.status_code == 400 and "wrong language" not in page
    assert "yo&#x27;s" not in page and "yo's" not in page and "Yoruba" not in page


def test_the_api_gives_the_hint_with_its_code(world, api, own_ids):
    te_run = run_bytes({f"t{n}": ["10#1"] for n in range(1, 5)})
    response = api.post(reverse("submissions:api_upload", args=[world.competition.slug, own_ids.slug]),
                        {"method_name": "BM25", "files": [upload("run.sw.txt", te_run)]})
    errors = response.json()["errors"]
    assert errors[0]["code"] == "wrong-language" and errors[0]["file"] == "run.sw.txt"
    assert {e["code"] for e in errors[1:]} == {"unknown-qid"}


def test_a_binary_file_is_refused_once_as_not_text(world, participant):
    response = post(participant, world, [upload("run.sw.txt", b"\x89PNG\r\n\x1a\n" + os.urandom(4000))])
    page = response.content.decode()
    assert response.status_code == 400
    assert page.count("not a text file") == 1 and "NUL" not in page and "UTF-8" not in page
    assert "1 problem in the run files" in page


def test_it_says_25_plus_when_the_list_was_cut(world, participant):
    bad = b"".join(b"1 Q0 10#0 %d nan t\n" % n for n in range(1, 200))
    page = post(participant, world, [upload("run.sw.txt", bad)]).content.decode()
    assert "25+ problems in the run files" in page and "25 problem(s)" not in page


def test_messages_on_the_page_carry_no_raw_codes(world, participant):
    page = post(participant, world, [upload("run.sw.txt", run_bytes({"99": ["10#0"]}))]).content.decode()
    assert "is not in the topics" in page and "unknown-qid" not in page


def test_the_form_is_disabled_with_the_reason_without_a_team(world):
    Membership.objects.filter(user=world.participant).delete()
    page = client_for(world.participant).get(upload_url(world)).content.decode()
    assert 'id="blocked"' in page and "You are not in a team" in page and "<fieldset disabled" in page


def test_the_form_is_disabled_with_the_reason_without_quota(world, participant):
    # test-b allows 5 a day: use them (each a different run, so none is a repeat)
    for n in range(5):
        post(participant, world, [upload("run.sw.txt", {"1": [f"1{n}#0"]})], phase="test-b")
    page = participant.get(upload_url(world, "test-b")).content.decode()
    assert "<fieldset disabled" in page and "Your team used all 5 submissions of today (UTC)" in page
    assert "0 left" in page


def test_the_form_is_enabled_with_quota_left(world, participant):
    page = participant.get(upload_url(world, "test-b")).content.decode()
    assert "<fieldset disabled" not in page and "5 left" in page


def test_a_repeat_is_said_to_be_one(world, participant):
    participant.get(post(participant, world, [upload("run.sw.txt", good_sw())], method="BM25").url)  # its message
    response = post(participant, world, [upload("run.sw.txt", good_sw())], method="BM25 again")
    first = Submission.objects.get()
    assert response.status_code == 302 and response.url == first.get_absolute_url()
    page = participant.get(response.url).content.decode()
    assert "already stored as submission #1 (BM25)" in page and "BM25 again" in page and "being scored" not in page


def test_the_api_says_already_stored(world, api):
    url = reverse("submissions:api_upload", args=[world.competition.slug, "dev"])
    api.post(url, {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())]})
    again = api.post(url, {"method_name": "BM25", "files": [upload("run.sw.txt", good_sw())]}).json()
    assert again["repeat"] is True and "already stored as #1" in again["message"]


def test_the_cli_says_already_stored(tmp_path, capsys, monkeypatch):
    from evaluator.__main__ import main
    from evaluator.client import cupboard

    run = tmp_path / "run.sw.txt"
    run.write_bytes(run_bytes(good_sw()))
    answer = {"id": 7, "number": 3, "status": "scored", "url": "http://x/submissions/7/", "repeat": True,
              "warnings": ["sw: 3 of 9 queries; the 6 missing count 0"], "scores": {}}
    monkeypatch.setattr(cupboard, "call_api", lambda *a, **k: (200, answer))
    code = main(["submit", "--server", "http://x", "--competition", "c", "--phase", "p", "--method", "m",
                 "--run", str(run), "--token", "t"])
    err = capsys.readouterr().err
    assert code == 0 and "already stored as #3 scored" in err and "warning: sw: 3 of 9 queries" in err
