"""A subset's document list (issue 34): a run naming a document the collection does not hold is
refused at its line by the web form and the API, nothing stored; a phase set to `warn` takes it
with a warning; the scoring worker checks the stored run again, so a run accepted before the
list existed is rejected naming its line. The list is loaded by `manage.py load_documents`."""
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import Phase
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import good_sw, run_bytes, upload

pytestmark = pytest.mark.django_db
KNOWN = ["10#0", "11#0", "12#0", "20#0", "21#0", "30#0"]
BAD = run_bytes({"1": ["10#0", "11#0"], "2": ["20#0", "404#9"]})  # line 4 names a document not in the list


@pytest.fixture
def listed(world, tmp_path):
    path = tmp_path / "sw-ids.txt"
    path.write_text("\n".join(KNOWN) + "\n")
    call_command("load_documents", world.competition.slug, "sw", str(path))
    return world


def test_the_command_stores_the_list_and_refuses_a_bad_file_naming_it(listed, tmp_path):
    row = listed.competition.document_lists.get()
    assert (row.subset.code, row.documents, row.original_name) == ("sw", 6, "sw-ids.txt")
    assert AuditEvent.objects.filter(action=AuditEvent.Action.DOCUMENTS_UPLOADED).count() == 1
    (tmp_path / "bad.jsonl").write_text('{"docid": "a"}\n[1]\n')
    with pytest.raises(CommandError, match="bad.jsonl:2"):
        call_command("load_documents", listed.competition.slug, "sw", str(tmp_path / "bad.jsonl"))
    with pytest.raises(CommandError, match="has no subset 'xx'"):
        call_command("load_documents", listed.competition.slug, "xx", str(tmp_path / "bad.jsonl"))
    assert listed.competition.document_lists.count() == 1


def test_the_web_form_refuses_an_unknown_document_at_its_line(listed):
    url = reverse("submissions:upload", args=[listed.competition.slug, "dev"])
    response = client_for(listed.participant).post(url, {"files": [upload("run.sw.txt", BAD)], "method_name": "x"})
    assert response.status_code == 400
    assert b"<td>run.sw.txt</td><td>4</td>" in response.content and b"404#9" in response.content
    assert not Submission.objects.exists()
    good = client_for(listed.participant).post(url, {"files": [upload("run.sw.txt", good_sw())], "method_name": "x"})
    assert good.status_code == 302


def test_the_api_refuses_it_as_data_and_a_warn_phase_takes_it(listed):
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_create(user=listed.participant)}")
    url = reverse("submissions:api_upload", args=[listed.competition.slug, "dev"])
    response = api.post(url, {"method_name": "x", "files": [upload("run.sw.txt", BAD)]})
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert (error["file"], error["line"], error["code"]) == ("run.sw.txt", 4, "unknown-docid")
    Phase.objects.filter(pk=listed.dev.pk).update(unknown_documents=Phase.UnknownDocuments.WARN)
    response = api.post(url, {"method_name": "x", "files": [upload("run.sw.txt", BAD)]})
    assert response.status_code == 201
    submission = Submission.objects.get()
    assert submission_score(submission_id=submission.pk) == "scored"


def test_the_worker_checks_the_stored_run_again(world, tmp_path):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="x",
                                   files=[(upload("run.sw.txt", BAD), None)])  # no list yet: accepted
    (tmp_path / "ids.txt").write_text("\n".join(KNOWN))
    call_command("load_documents", world.competition.slug, "sw", str(tmp_path / "ids.txt"))
    assert submission_score(submission_id=submission.pk) == "rejected"
    submission.refresh_from_db()
    assert "run.sw.txt:4:3" in submission.status_reason and "404#9" in submission.status_reason


def test_the_newest_list_of_a_subset_is_in_force_at_upload_and_at_scoring(listed, tmp_path):
    (tmp_path / "more.txt").write_text("\n".join([*KNOWN, "404#9"]) + "\n")
    call_command("load_documents", listed.competition.slug, "sw", str(tmp_path / "more.txt"))
    url = reverse("submissions:upload", args=[listed.competition.slug, "dev"])
    response = client_for(listed.participant).post(url, {"files": [upload("run.sw.txt", BAD)], "method_name": "x"})
    assert response.status_code == 302, response.content[:300]
    assert submission_score(submission_id=Submission.objects.get().pk) == "scored"
