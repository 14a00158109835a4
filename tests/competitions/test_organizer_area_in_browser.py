"""The organizer area fits a laptop (1366 px) and a phone (390 px) in a real browser: the
overview with its topics and qrels SHA-256 per language (cut, the whole value in the title), the
Teams page, the audit log with its details, the scoring progress, the grant, message, topics,
judgments, schedule and reveal forms, the definition as fields and as YAML, and the upload page with the baseline, hybrid and re-score forms; no console error. Wide tables scroll
inside their box, never the page. A schedule edit shows its diff, then saves once confirmed."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.models import Phase
from cupboard.competitions.services import competition_load
from cupboard.demo.plan import COMPETITIONS
from tests.browser import page_width, signed_in_page, too_wide, watch_errors
from tests.factories import make_qrels_release, make_team, make_topics, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1366, 390)
CODES = ("ar", "bn", "en", "es", "fa", "fi", "fr", "hi", "id", "ja", "ko", "ru", "sw", "te", "th", "zh", "de", "yo")


@pytest.fixture
def organizer_cookie(live_server) -> dict:
    """The Cup as the demo loads it, topics and judgments for every language of dev, teams, and a
    logged-in organizer."""
    organizer = make_user("organizer")
    cup = competition_load(data=COMPETITIONS[0].definition_data(now=timezone.now()), actor=organizer)
    dev = cup.phases.get(slug="dev")
    codes = [c for c in CODES if cup.subsets.filter(code=c).exists()]
    for code in codes:
        make_topics(dev, code, [f"{code}-{n}" for n in range(1, 30)])
    release = make_qrels_release(dev, {code: {f"{code}-1": {"1#0": 1}} for code in codes})
    make_team(cup, name="Lighthouse", members=[make_user("alice"), make_user("bob")])
    audit_record(competition=cup, actor=organizer, action=AuditEvent.Action.QRELS_UPLOADED,
                 summary="qrels v1 of Development",
                 details={"phase": dev.pk, "release": release.number,
                          "files": [{"subset": f.subset.code, "sha256": f.sha256} for f in release.files.all()]})
    client = Client()
    client.force_login(organizer)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


def organizer_paths(slug: str) -> list[str]:
    return [f"/c/{slug}/manage/", f"/c/{slug}/manage/teams/", f"/c/{slug}/audit/", f"/c/{slug}/manage/dev/scoring/",
            f"/c/{slug}/manage/teams/lighthouse/grant/", f"/c/{slug}/manage/teams/message/",
            f"/c/{slug}/manage/dev/topics/", f"/c/{slug}/manage/dev/qrels/", f"/c/{slug}/manage/dev/schedule/",
            f"/c/{slug}/manage/groups/surprise/reveal/",
            f"/c/{slug}/manage/definition/", f"/c/{slug}/manage/definition/yaml/",
            f"/c/{slug}/dev/upload/"]  # an organizer's: baselines, the hybrid and re-score forms


@pytest.mark.parametrize("width", WIDTHS)
def test_the_organizer_area_fits_a_laptop_and_a_phone(live_server, organizer_cookie, width):
    slug = "miracl-wsdm-cup"
    paths = organizer_paths(slug)
    problems = []
    with signed_in_page(organizer_cookie, width) as page:
        errors = watch_errors(page)
        problems += too_wide(page, live_server.url, paths, width)
        page.goto(live_server.url + paths[0])
        sha = page.locator("#phase-dev code.sha").first
        assert len(sha.inner_text()) <= 13 and len(sha.get_attribute("title").split()[0]) == 64
    assert not problems and not errors, "\n".join(problems + errors)


@pytest.mark.parametrize("width", WIDTHS)
def test_a_schedule_edit_shows_its_diff_then_saves_once_confirmed(live_server, organizer_cookie, width):
    test_a = Phase.objects.get(competition__slug="miracl-wsdm-cup", slug="test-a")
    later = test_a.reveal_at.replace(microsecond=0) + timedelta(days=1)
    with signed_in_page(organizer_cookie, width) as page:
        errors = watch_errors(page)
        page.goto(live_server.url + "/c/miracl-wsdm-cup/manage/test-a/schedule/")
        page.fill("input[name=reveal_at]", f"{later:%Y-%m-%d %H:%M:%S}")
        page.click("button:has-text('Save')")
        page.wait_for_selector("#confirm")
        shown = page.locator("#confirm li").all_inner_texts()
        wide = page_width(page)
        page.click("button:has-text('Confirm and save')")
        page.wait_for_selector("text=Saved the schedule of Test A.")
    assert len(shown) == 1 and shown[0].startswith("phases.test-a.reveal_at: ") and f"{later:%Y-%m-%d %H:%M}" in shown[0]
    assert wide <= width and not errors, (wide, errors)
    test_a.refresh_from_db()
    assert test_a.reveal_at == later


@pytest.mark.parametrize("width", WIDTHS)
def test_a_grant_shows_on_the_teams_page_and_a_message_is_previewed_first(live_server, organizer_cookie, width):
    """Issue 24: the grant form names phases, the Teams page shows the grant; 'message every team'
    shows the mail and offers the send to every team only then. Nothing wider than the screen."""
    base = live_server.url + "/c/miracl-wsdm-cup/manage/teams/"
    with signed_in_page(organizer_cookie, width) as page:
        errors = watch_errors(page)
        page.goto(base + "lighthouse/grant/")
        page.select_option("select[name=phase]", label="Test B (final)")
        page.fill("input[name=extra]", "2")
        page.fill("input[name=reason]", "joined late")
        page.click("button:text-is('Grant')")
        page.wait_for_url(base)
        assert "+2" in page.locator("table.teams-overview").inner_text()
        assert "joined late" in page.locator("table.grants").inner_text()
        wide = [page_width(page)]
        page.goto(base + "message/")
        assert page.locator("button[value=send]").count() == 0
        page.fill("input[name=subject]", "Two days left")
        page.fill("textarea[name=body]", "Test B closes on Friday. " * 12)
        page.click("button[value=preview]")
        assert "Subject: [WSDM Cup" in page.locator("#message-preview").inner_text()
        assert "Send to every team (2 people)" in page.locator("button[value=send]").inner_text()
        wide.append(page_width(page))
    assert max(wide) <= width and not errors, (wide, errors)
