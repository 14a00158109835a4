"""Pages of a one-collection campaign say what is so (issue 34 item 7): the upload form asks
for one run file, not one per language, and takes a file whose name says no language; a run
being scored again says its table holds the previous scoring's values, not a filled table under
"about 1 s left" alone."""
from datetime import timedelta

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from tests.personas import client_for
from tests.submissions.test_campaign_example import a_run, campaign, submitted  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_the_upload_form_of_one_collection_asks_for_one_run_file(campaign):  # noqa: F811
    competition, rounds, team, user = campaign
    url = reverse("submissions:upload", args=[competition.slug, "round-1"])
    client = client_for(user)
    with time_machine.travel(rounds[1].opens_at + timedelta(days=1)):
        page = client.get(url).content.decode()
        assert "One run file, plain or .gz" in page and "per language" not in page
        assert 'name="subset"' not in page and ">Language<" not in page and 'data-only="docs"' in page
        answer = client.post(url, {"method_name": "bm25", "files": SimpleUploadedFile(
            "bm25.txt", a_run(["1", "2"], seed=3, earlier_rounds=()).encode())})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    submission = Submission.objects.get(team=team, phase=rounds[1])
    assert list(submission.run_files.values_list("subset__code", flat=True)) == ["docs"]


def test_a_run_scored_again_says_its_table_is_from_before(campaign):  # noqa: F811
    competition, rounds, team, user = campaign
    submission = submitted(rounds[1], team, user, a_run(["1", "2", "3"], seed=1, earlier_rounds=()))
    assert submission_score(submission_id=submission.pk) == "scored"
    url = reverse("submissions:detail", args=[submission.pk])
    with time_machine.travel(rounds[1].opens_at + timedelta(days=2)):
        assert 'id="previous-scores"' not in client_for(user).get(url).content.decode()
        Submission.objects.filter(pk=submission.pk).update(status=Submission.Status.SCORING, progress=90)
        page = client_for(user).get(url).content.decode()
    note = page.split('id="previous-scores"')[1].split("</p>")[0]
    assert "from its previous scoring (qrels v1)" in note
    assert page.index('id="previous-scores"') < page.index('class="scores"')
