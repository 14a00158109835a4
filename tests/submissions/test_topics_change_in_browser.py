"""A topics change of a running phase in a real browser, at a laptop's 1366 px and a phone's
390 px: the upload shows the queries added, removed and changed and the run it affects; "refuse
while runs exist" answers why and changes nothing; "score again" stores topics v2, audits it,
and once the run is scored again the public board shows its score on the new topics; the
organizer's topics page lists the change."""
from __future__ import annotations

import pytest
from django.test import Client

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import TopicSet, TopicsVersion
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.browser import page_width, signed_in_page, watch_errors

from .conftest import good_sw, upload
from .test_topics_change import NDCG_ALL, NDCG_NEW, NEW_SW

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def scored(world):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    assert submission_score(submission_id=submission.pk) == "scored"
    return submission


def cookie(user, live_server) -> dict:
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


def board_text(page, url: str) -> str:
    page.goto(url)
    return page.locator("table tr", has_text="Team A").first.inner_text()


def preview(page, base: str, path) -> None:
    page.goto(base + "/manage/dev/topics/")
    page.set_input_files("input[name=files]", [str(path)])
    page.wait_for_selector("form.upload .chosen-files:not([hidden])")
    page.click("form.upload button[type=submit]")
    page.wait_for_selector("#preview")


@pytest.mark.parametrize("width", (1366, 390))
def test_a_topics_change_is_previewed_refused_or_confirmed_and_rescored(live_server, world, scored, tmp_path, width):
    path = tmp_path / "topics.x-sw.tsv"
    path.write_bytes(NEW_SW)
    organizer, base = cookie(world.organizer, live_server), f"{live_server.url}/c/{world.competition.slug}"
    board = f"{base}/dev/leaderboard/"
    before = TopicSet.objects.get(phase=world.dev, subset__code="sw").sha256
    with signed_in_page(organizer, width) as page:
        errors = watch_errors(page)
        assert f"{NDCG_ALL:.3f}" in board_text(page, board)
        preview(page, base, path)
        row = page.locator("#preview tr[data-subset=sw]")
        assert [row.locator(f"td.{what}").inner_text() for what in ("added", "removed", "changed")] == ["1", "1", "1"]
        text = page.locator("#preview").inner_text()
        assert "Added: 9" in text and "Removed: 3" in text and "Changed text: 2" in text and "1 run of" in text
        assert page_width(page) <= width
        page.check("input[name=when_runs][value=refuse]")
        page.click("button[name=confirm]")
        page.wait_for_selector("#errors")
        refusal = page.locator("#errors").inner_text()
        assert "Nothing was changed" in refusal and "1 run(s) of Development were checked" in refusal
        preview(page, base, path)
        assert page.locator("input[name=when_runs][value=rescore]").is_checked()
        page.click("button[name=confirm]")
        page.wait_for_url(base + "/manage/")
        assert "(topics v2)" in page.locator("ul.messages").inner_text()
    assert not errors, errors
    stored = TopicSet.objects.get(phase=world.dev, subset__code="sw")
    assert stored.sha256 != before and stored.version == 2
    assert list(TopicsVersion.objects.filter(phase=world.dev).values_list("number", flat=True)) == [2]
    assert AuditEvent.objects.filter(action=AuditEvent.Action.TOPICS_UPLOADED, summary__startswith="Topics v2").exists()
    assert Submission.objects.get(pk=scored.pk).status == Submission.Status.QUEUED
    assert submission_score(submission_id=scored.pk) == "scored"  # the worker's part
    with signed_in_page(organizer, width) as page:
        shown = board_text(page, board)
        assert f"{NDCG_NEW:.3f}" in shown and f"{NDCG_ALL:.3f}" not in shown, shown
        page.goto(f"{live_server.url}/c/{world.competition.slug}/")
        assert "(3, topics v2)" in page.locator("body").inner_text()
        page.goto(base + "/manage/dev/topics/")  # the change listed, its file a link, the page no wider than the screen
        assert "sw: 1 added (9); 1 removed (3)" in page.locator("#topics-changes tr[data-change='2']").inner_text()
        assert page_width(page) <= width
