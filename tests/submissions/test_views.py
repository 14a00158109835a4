"""Submission pages: upload form, detail + status endpoint, downloads, organizer actions."""
import math
import re

import pytest
from django.urls import reverse

from cupboard.submissions.models import QuotaGrant, Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_qrels_release
from tests.personas import client_for

from .conftest import JUDGMENTS, good_sw, run_bytes, upload


def upload_url(world, phase="dev"):
    return reverse("submissions:upload", args=[world.competition.slug, phase])


@pytest.fixture
def scored(world):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    submission_score(submission_id=submission.pk)
    return submission


def test_it_shows_the_quota_on_the_upload_form(world):
    response = client_for(world.participant).get(upload_url(world, "test-b"))
    assert response.status_code == 200
    assert b"0 used of 5" in response.content and b"5 left" in response.content


def test_it_accepts_several_files_and_redirects_to_the_submission(world):
    files = [upload("run.sw.txt", good_sw()), upload("run.te.txt.gz", {"1": ["10#1"]}, gz=True)]
    response = client_for(world.participant).post(upload_url(world), {"files": files, "method_name": "BM25"})
    submission = Submission.objects.get()
    assert response.status_code == 302 and response.url == submission.get_absolute_url()
    assert submission.run_files.count() == 2


def test_it_shows_validation_errors_with_file_and_line(world):
    bad = upload("run.sw.txt", run_bytes({"1": ["10#0"]}) + b"2 Q0 10#0 1 notanumber t\n")
    response = client_for(world.participant).post(upload_url(world), {"files": [bad], "method_name": "BM25"})
    assert response.status_code == 400
    assert b"Nothing was stored" in response.content
    assert b"<td>run.sw.txt</td><td>2</td>" in response.content
    assert not Submission.objects.exists()


def test_it_refuses_a_chosen_language_for_several_files(world):
    files = [upload("a.txt", good_sw()), upload("b.txt", good_sw())]
    response = client_for(world.participant).post(upload_url(world), {"files": files, "subset": "sw",
                                                                       "method_name": "x"})
    assert response.status_code == 400 and not Submission.objects.exists()


def test_it_shows_scores_rounded_to_the_team(world, scored):
    response = client_for(world.participant).get(scored.get_absolute_url())
    assert response.status_code == 200
    assert b"0.544" in response.content  # (1 + 1/log2(3)) / 3 = 0.5436...
    assert b"0.5436" not in response.content


def test_it_hides_a_submission_from_other_teams(world, scored):
    assert client_for(world.outsider).get(scored.get_absolute_url()).status_code == 404
    assert client_for(world.anonymous).get(reverse("submissions:status", args=[scored.pk])).status_code == 404
    assert client_for(world.organizer).get(scored.get_absolute_url()).status_code == 200


def _page(response) -> bytes:
    """The answer's bytes but its CSRF token (the log-out form's; new in every answer)."""
    return re.sub(rb'(name="csrfmiddlewaretoken" value=|data-csrf=)"[^"]*"', b"", response.content)


def test_another_team_s_submission_answers_as_one_that_does_not_exist(world, scored):
    """Ids are site-wide: a 403 for another team's and a 404 for none let anyone poll the next
    id to learn when anyone submits, hidden phases included."""
    unused = Submission.objects.order_by("-pk").first().pk + 1
    for name, extra in [("detail", ()), ("status", ()), ("per_topic", ()), ("per_topic_csv", ()), ("download", ("sw",)),
                        ("compare", ())]:
        for viewer in (world.outsider, world.anonymous):
            theirs, none = (client_for(viewer).get(reverse(f"submissions:{name}", args=[pk, *extra]))
                            for pk in (scored.pk, unused))
            assert (theirs.status_code, _page(theirs)) == (none.status_code, _page(none)), (name, viewer)
            assert theirs.status_code in (302, 404)
    for name, data in [("select_final", {"selected": "1"}), ("release_consent", {"consent": "1"}),
                       ("disqualify", {"reason": "x"}), ("grant", {"extra": 1, "reason": "x"})]:
        theirs, none = (client_for(world.outsider).post(reverse(f"submissions:{name}", args=[pk]), data)
                        for pk in (scored.pk, unused))
        assert theirs.status_code == none.status_code == 404, name


def test_it_reports_status_and_progress_as_json(world):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    client = client_for(world.teammate)
    data = client.get(reverse("submissions:status", args=[submission.pk])).json()
    assert (data["status"], data["progress"], data["scores"]) == ("queued", 0, {})
    submission_score(submission_id=submission.pk)
    data = client.get(reverse("submissions:status", args=[submission.pk])).json()
    assert data["status"] == "scored" and data["progress"] == 100
    assert set(data["scores"]) == {"sw", "te"}  # yo is still hidden
    assert data["scores"]["sw"]["nDCG@10"] == 0.544
    assert data["per_query"]["sw"]["nDCG@10"]["1"] == 1.0


def test_it_gives_per_query_values_only_to_organizers_on_hidden_qrels(world):
    make_qrels_release(world.test_b, {"sw": {"1": {"10#0": 1}}})
    submission = submission_create(phase=world.test_b, team=world.team_a, user=world.participant,
                                   method_name="BM25", files=[(upload("run.sw.txt", good_sw()), None)])
    submission_score(submission_id=submission.pk)
    url = reverse("submissions:status", args=[submission.pk])
    assert client_for(world.participant).get(url).json()["per_query"] == {}
    assert client_for(world.organizer).get(url).json()["per_query"]["sw"]["nDCG@10"]["1"] == pytest.approx(1 / math.log2(3))  # 10#0 at rank 2


def test_it_serves_run_files_to_the_team_and_baselines_to_anyone(world, scored):
    url = reverse("submissions:download", args=[scored.pk, "sw"])
    response = client_for(world.teammate).get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == run_bytes(good_sw())
    assert client_for(world.outsider).get(url).status_code == 404
    baseline = submission_create(phase=world.dev, team=None, user=world.organizer, method_name="BM25",
                                 files=[(upload("bm25.sw.txt", {"1": ["10#0"]}), None)], is_baseline=True)
    assert client_for(world.anonymous).get(reverse("submissions:download", args=[baseline.pk, "sw"])).status_code == 200


def test_it_lets_the_team_select_a_final_submission(world, scored):
    client_for(world.teammate).post(reverse("submissions:select_final", args=[scored.pk]), {"selected": "1"})
    scored.refresh_from_db()
    assert scored.selected_for_final


def test_it_lets_only_organizers_grant_and_disqualify(world, scored):
    grant = reverse("submissions:grant", args=[scored.pk])
    assert client_for(world.participant).post(grant, {"extra": 2, "reason": "x"}).status_code == 403
    client_for(world.organizer).post(grant, {"extra": 2, "reason": "outage"})
    assert QuotaGrant.objects.get().extra == 2
    disqualify = reverse("submissions:disqualify", args=[scored.pk])
    assert client_for(world.outsider).post(disqualify, {"reason": "x"}).status_code == 404
    client_for(world.organizer).post(disqualify, {"reason": "leak"})
    scored.refresh_from_db()
    assert scored.disqualified


def test_it_lets_only_organizers_rescore(world, scored):
    url = reverse("submissions:rescore", args=[world.competition.slug, "dev"])
    assert client_for(world.participant).post(url).status_code == 403
    assert client_for(world.organizer).post(url).status_code == 302
    scored.refresh_from_db()
    assert scored.status == Submission.Status.QUEUED


def test_it_shows_group_averages_and_which_languages_had_no_run(world, scored):
    content = client_for(world.participant).get(scored.get_absolute_url()).content.decode()
    assert '<tr class="average"><th scope="row">K.Avg</th>' in content
    assert ">0.272<" in content  # (0.5436 + 0 for te) / 2, rounded after averaging
    assert "te <span class=\"muted\">Telugu</span> <span class=\"muted\">(no run: counts 0)</span>" in content
    assert "sw <span class=\"muted\">Swahili</span></td>" in content


def scored_baseline(world, phase, method: str):
    baseline = submission_create(phase=phase, team=None, user=world.organizer, method_name=method, is_baseline=True,
                                 files=[(upload("run.te.txt", {"1": ["10#1"], "2": ["20#1"]}), None)])
    assert submission_score(submission_id=baseline.pk) == "scored"
    return baseline


def test_it_charts_the_scores_beside_the_baselines_the_viewer_may_see(world, scored):
    scored_baseline(world, world.dev, "Dev BM25")
    content = client_for(world.participant).get(scored.get_absolute_url()).content.decode()
    assert content.count('class="plotly-chart"') == 1
    assert '"name":"Team A #1: BM25"' in content and '"name":"Dev BM25 (baseline)"' in content

    make_qrels_release(world.test_b, JUDGMENTS)  # test-b's leaderboard is private until its reveal
    scored_baseline(world, world.test_b, "Secret BM25")
    final = submission_create(phase=world.test_b, team=world.team_a, user=world.participant, method_name="final",
                              files=[(upload("run.sw.txt", good_sw()), None)])
    assert submission_score(submission_id=final.pk) == "scored"
    content = client_for(world.participant).get(final.get_absolute_url()).content.decode()
    assert '"name":"Team A #1: final"' in content and "Secret BM25" not in content
    assert "Secret BM25 (baseline)" in client_for(world.organizer).get(final.get_absolute_url()).content.decode()
