"""Judging in the browser, in Debian's chromium at 1366 and 390 px: an assessor judges a task
with the keyboard alone (digits, Backspace to go back and change a label), and an organizer
reads the agreement, resolves the disagreement and creates the qrels version. No page wider
than the screen, no console error, no failed request."""
from __future__ import annotations

from contextlib import contextmanager

import pytest
from django.test import Client

from cupboard.competitions.assessors import assessor_add
from cupboard.judging.assessment import item_label
from cupboard.judging.models import JudgingItem
from tests.browser import signed_in_page, too_wide, watch_errors
from tests.factories import make_user
from tests.judging.conftest import D, build_scene
from tests.judging.test_assessment import ready
from tests.judging.test_pool_pages_in_browser import off_the_loop

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def cookie_of(user, url: str) -> dict:
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": url}


@pytest.fixture
def judging(live_server):
    scene = build_scene()
    judging_round, ann, bo = ready(scene, overlap=100)  # both judge every passage
    return scene, judging_round, ann, bo


@pytest.mark.parametrize("width", [1366, 390])
def test_an_assessor_judges_a_task_with_the_keyboard_alone(live_server, judging, width):
    scene, judging_round, ann, _ = judging
    task = judging_round.assignments.get(assessor=ann)
    cookie = cookie_of(ann, live_server.url)
    from playwright.sync_api import expect

    with signed_in_page(cookie, width) as page:
        errors = watch_errors(page, failed_requests=True)
        page.goto(f"{live_server.url}/c/{scene.competition.slug}/judge/")
        page.keyboard.press("Tab")
        page.locator("a.button", has_text="Start").focus()
        page.keyboard.press("Enter")

        def at(position: int) -> None:
            """On that passage, its keys listened to: judging.js is deferred, so a key pressed
            before DOMContentLoaded on a loaded machine would be lost."""
            expect(page.locator("#passage")).to_have_attribute("data-position", str(position))
            page.wait_for_load_state("domcontentloaded")
        at(1)
        expect(page.locator("#judged-count")).to_have_text("0 of 6 judged")
        page.keyboard.press("1")
        at(2)
        page.keyboard.press("0")
        at(3)
        page.keyboard.press("Backspace")  # back to passage 2: the undo
        at(2)
        expect(page.locator("#passage")).to_contain_text("you labelled it 0")
        page.keyboard.press("1")  # changed mind; on to the first passage not judged yet
        at(3)
        for position, key in zip((4, 5, 6, None), "0101", strict=True):
            page.keyboard.press(key)
            if position:
                at(position)
        expect(page.locator("#finished")).to_be_visible()
        expect(page.locator(".judge-progress")).to_contain_text("6 of 6 judged")
        problems = too_wide(page, live_server.url, [f"/c/{scene.competition.slug}/judge/", task.get_absolute_url(),
                                                    task.get_absolute_url() + "?at=1"], width)
    labels = off_the_loop(lambda: list(task.items.order_by("position").values_list("label", flat=True)))
    assert labels == [1, 1, 0, 1, 0, 1]
    assert not problems and not errors, "\n".join(problems + errors)


@contextmanager
def organizer_judging(live_server, scene, width: int):
    """The organizer's judging page of the dev phase, open in chromium: (page, its path, the errors seen)."""
    path = f"/c/{scene.competition.slug}/manage/dev/judging/"
    with signed_in_page(cookie_of(scene.organizer, live_server.url), width) as page:
        errors = watch_errors(page, failed_requests=True)
        page.goto(live_server.url + path)
        yield page, path, errors


def _both_judge(judging_round) -> bool:
    """Both assessors label every passage alike, but for one: the disagreement to resolve."""
    for item in JudgingItem.objects.filter(assignment__round=judging_round).select_related("assignment__assessor"):
        label = int(item.docid in (D["u1"], D["x3"]))
        if item.docid == D["u2"] and item.assignment.assessor.username == "bo":
            label = 1
        item_label(item=item, label=label, seconds=3, actor=item.assignment.assessor)
    return True


@pytest.mark.parametrize("width", [1366, 390])
def test_an_organizer_reads_agreement_resolves_and_creates_the_qrels_version(live_server, judging, width):
    scene, judging_round, _, _ = judging
    off_the_loop(_both_judge, judging_round)
    from playwright.sync_api import expect

    with organizer_judging(live_server, scene, width) as (page, path, errors):
        round_card = page.locator(f"#round-{judging_round.pk}")
        expect(round_card.locator("table.progress tbody tr")).to_have_count(2)
        expect(round_card.locator("table.agreement tbody tr td").nth(1)).to_have_text("6")  # judged twice
        expect(round_card.locator("table.agreement tbody tr td").nth(2)).to_have_text("5")  # agreed
        expect(round_card.locator(".js-plotly-plot")).to_have_count(1)
        problems = too_wide(page, live_server.url, [path], width)
        page.goto(live_server.url + path)
        page.locator(".disagreements button[value='1']").click()
        expect(page.locator(".disagreements")).to_contain_text("resolved: 1")
        page.locator("button", has_text="Create qrels version").click()
        expect(page.locator(".messages")).to_contain_text("now uses qrels v2")
        expect(page.locator(f"#round-{judging_round.pk}")).to_contain_text("Made qrels v2 from this round")
        expect(page.locator(f"#round-{judging_round.pk} form.reassign")).to_have_count(0)  # a finished round
        problems += too_wide(page, live_server.url, [path], width)
    assert off_the_loop(lambda: scene.dev.qrels_releases.get(number=2).files.get(subset__code="sw").judgments) == 10
    assert not problems and not errors, "\n".join(problems + errors)


def _ann_judges_two_and_carl_is_named(scene, ann) -> None:
    for item in JudgingItem.objects.filter(assignment__assessor=ann).order_by("position")[:2]:
        item_label(item=item, label=1, seconds=3, actor=ann)
    make_user("carl")
    assessor_add(competition=scene.competition, username="carl", actor=scene.organizer)


@pytest.mark.parametrize("width", [1366, 390])
def test_an_organizer_reassigns_what_an_assessor_has_left(live_server, judging, width):
    scene, judging_round, ann, _ = judging
    off_the_loop(_ann_judges_two_and_carl_is_named, scene, ann)
    from playwright.sync_api import expect

    with organizer_judging(live_server, scene, width) as (page, path, errors):
        card = page.locator(f"#round-{judging_round.pk}")
        card.get_by_label("What").select_option("ann")
        card.get_by_label("has left to judge goes to").select_option("carl")
        problems = too_wide(page, live_server.url, [path], width)
        page.goto(live_server.url + path)
        card.get_by_label("What").select_option("ann")
        card.get_by_label("has left to judge goes to").select_option("carl")
        card.get_by_role("button", name="Reassign").click()
        expect(page.locator(".messages")).to_contain_text("4 passage(s) ann had left to judge now go to carl")
        expect(page.locator(".messages")).to_contain_text("The 2 judged stay ann's.")
        rows = page.locator(f"#round-{judging_round.pk} table.progress tbody tr")
        expect(rows).to_have_count(3)
        expect(rows.filter(has_text="ann")).to_contain_text("2 / 2")
        expect(rows.filter(has_text="carl")).to_contain_text("0 / 4")
        problems += too_wide(page, live_server.url, [path], width)
    assert off_the_loop(lambda: judging_round.assignments.get(assessor__username="carl").items.count()) == 4
    assert not problems and not errors, "\n".join(problems + errors)


def _two_judged(judging_round) -> bool:
    """Only the first two of each assessor's passages labelled (alike): the round is not judged whole."""
    for assignment in judging_round.assignments.select_related("assessor"):
        for item in assignment.items.order_by("position")[:2]:
            item_label(item=item, label=int(item.docid in (D["u1"], D["x3"])), seconds=3, actor=assignment.assessor)
    return True


@pytest.mark.parametrize("width", [1366, 390])
def test_a_round_not_judged_whole_is_made_a_version_only_when_confirmed(live_server, judging, width):
    """Issue 33, item 13: a version was made from a 40%-judged round without a word."""
    scene, judging_round, _, _ = judging
    off_the_loop(_two_judged, judging_round)
    from playwright.sync_api import expect

    with organizer_judging(live_server, scene, width) as (page, path, errors):
        notice = page.locator(f"#round-{judging_round.pk} .partly-judged")
        expect(notice).to_contain_text("passages judged so far")
        page.locator("button", has_text="Create qrels version").click()  # unticked: the browser asks first
        expect(page.locator(f"#round-{judging_round.pk}")).not_to_contain_text("Made qrels v2")
        notice.locator("input[name=partial]").check()
        page.locator("button", has_text="Create qrels version").click()
        expect(page.locator(".messages")).to_contain_text("now uses qrels v2")
        problems = too_wide(page, live_server.url, [path], width)
    assert not problems and not errors, "\n".join(problems + errors)
