"""The main pages in a real browser (Debian's chromium), as a participant and as an organizer:
each is sent with a Content-Security-Policy and breaks none of it (plotly's charts included),
logs no console error, and fits a laptop (1366 px) and a phone (390 px) without scrolling
sideways.

With CUPBOARD_SCREENSHOTS=1 the laptop-width run also saves the README's screenshots under
docs/screenshots/ (commit them after a change to the pages).
"""
from __future__ import annotations

import gzip
import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from cupboard.competitions.models import Phase
from tests.browser import page_width
from tests.factories import make_user
from tests.rules.world import build_world
from tests.waiting import PATIENCE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1366, 390)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
README_PAGES = ("leaderboard", "competition", "upload", "submission", "organizer")  # the screenshots it shows
# Collects what the page's policy refused (an init script runs before the page's own scripts).
CSP_LISTENER = ("window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push("
                "`${e.effectiveDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`));")


def _cookie(user, url: str) -> dict:
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": url}


@pytest.fixture
def site(live_server) -> dict:
    """The rules tests' world (scored runs of two teams and a baseline), and who sees which pages:
    {persona: (session cookie, {screenshot name: path})}."""
    world = build_world()
    slug, dev, sub = world.competition.slug, world.dev.slug, world.sub_a_dev.pk
    participant_pages = {
        "home": "/", "competition": f"/c/{slug}/", "leaderboard": f"/c/{slug}/{dev}/leaderboard/",
        "submission": f"/submissions/{sub}/", "upload": f"/c/{slug}/{dev}/upload/",
        "compare": f"/submissions/{sub}/compare/?with={world.baseline.pk}",
        "team": world.team_a.get_absolute_url(), "profile": "/accounts/profile/",
        "commitments": f"/c/{slug}/commitments/", "audit": f"/c/{slug}/audit/", "mine": f"/c/{slug}/mine/",
        "api-docs": "/api/docs/",
    }
    organizer_pages = {"organizer": f"/c/{slug}/manage/", "organizer-teams": f"/c/{slug}/manage/teams/",
                       "organizer-message": f"/c/{slug}/manage/teams/message/",
                       "organizer-scoring": f"/c/{slug}/manage/{dev}/scoring/",
                       "organizer-operations": f"/c/{slug}/manage/operations/"}
    return {"url": live_server.url, "world": world,
            "participant": (_cookie(world.participant, live_server.url), participant_pages),
            "organizer": (_cookie(world.organizer, live_server.url), organizer_pages)}


# Requested after `site`: playwright runs an event loop in this thread, and Django refuses
# database calls from a thread with a running loop.
@pytest.fixture
def browser(site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield browser
        browser.close()


def _visit_all(browser, site, width: int, check) -> list[str]:
    """Opens every page of every persona at `width`; `check(page, name, path)` returns problems."""
    problems = []
    for persona in ("participant", "organizer", "admin"):
        if persona not in site:
            continue
        cookie, pages = site[persona]
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.add_cookies([cookie])
        context.add_init_script(CSP_LISTENER)
        # The admin's pages name no icon, so chromium asks for /favicon.ico, which no site page has.
        context.route("**/favicon.ico", lambda route: route.fulfill(status=204))
        page = context.new_page()
        errors = []  # the page and its handlers live and die in this iteration, with this list
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)  # noqa: B023
        page.on("pageerror", lambda e: errors.append(str(e)))  # noqa: B023
        for name, path in pages.items():
            response = page.goto(site["url"] + path)
            page.wait_for_load_state("load")
            if response.status != 200:
                problems.append(f"{path}: {response.status}")
            problems += check(page, name, path, response)
            problems += [f"{path} at {width} px, console: {e}" for e in errors]
            errors.clear()
        page.context.close()
    return problems


def test_every_page_keeps_to_its_content_security_policy(site, browser):
    def check(page, name, path, response):
        problems = [] if "script-src 'self'" in (response.headers.get("content-security-policy") or "") \
            else [f"{path}: no Content-Security-Policy header"]
        problems += [f"{path}: CSP refused {v}" for v in page.evaluate("window.__csp")]
        if name == "leaderboard":  # plotly.js ran under the policy and drew the bars
            page.wait_for_selector(".js-plotly-plot .main-svg")
        if name in ("leaderboard", "submission", "compare") and not page.locator(".js-plotly-plot").count():
            problems.append(f"{path}: no chart drawn")
        if os.getenv("CUPBOARD_SCREENSHOTS") and name in README_PAGES:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=True)
        return problems

    problems = _visit_all(browser, site, 1366, check)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_is_wider_than_a_laptop_or_a_phone(site, browser, width):
    def check(page, name, path, response):
        wide = page_width(page)
        if os.getenv("CUPBOARD_SCREENSHOTS") and width < 1000 and name == "leaderboard":
            page.wait_for_load_state("networkidle")
            page.screenshot(path=SCREENSHOTS / f"{name}-phone.png", full_page=True)
        return [f"{path} is {wide} px wide at {width} px"] if wide > page.evaluate("innerWidth") else []

    problems = _visit_all(browser, site, width, check)
    assert not problems, "\n".join(problems)


def _participant_page(browser, site, name: str, width: int):
    """A new page, logged in as the participant, at `name` (a key of their pages)."""
    cookie, pages = site["participant"]
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.add_cookies([cookie])
    page = context.new_page()
    page.goto(site["url"] + pages[name])
    return page


def test_the_leaderboard_scrolls_inside_its_box_with_the_team_column_kept_in_sight(site, browser):
    page = _participant_page(browser, site, "leaderboard", 390)
    box = page.locator(".leaderboard-wrap")
    assert box.evaluate("(el) => el.scrollWidth > el.clientWidth")  # the scores are there, scrolled to
    team = page.locator("table.leaderboard tbody tr").first.locator("td").nth(1)
    box.evaluate("(el) => { el.scrollLeft = el.scrollWidth; }")
    assert 0 <= team.bounding_box()["x"] < 390  # sticky: scrolled to the last column, the team stays
    chart = page.locator(".js-plotly-plot").first
    page.wait_for_selector(".js-plotly-plot .main-svg")
    assert chart.bounding_box()["width"] <= 390 and chart.bounding_box()["height"] >= 300
    page.context.close()


def test_the_search_box_keeps_the_teams_that_match(site, browser):
    """Each check waits (Playwright's expect, retried up to PATIENCE) for what the page's scripts do
    once they run: on a loaded host the box is shown, and the charts drawn, well after the load."""
    from playwright.sync_api import expect

    patient = PATIENCE * 1000
    page = _participant_page(browser, site, "leaderboard", 1366)
    page.set_default_timeout(patient)  # fill() waits for the box leaderboards.js shows
    rows, shown = page.locator("table.leaderboard tbody tr"), page.locator("table.leaderboard tbody tr:visible")
    expect(rows).to_have_count(3, timeout=patient)
    page.get_by_label("Search teams").fill("team b")
    expect(shown.locator("td:nth-child(2)")).to_have_text(["Team B"], timeout=patient)
    expect(page.locator(".filter-count")).to_have_text("1 of 3 rows", timeout=patient)
    page.get_by_label("Search teams").fill("")
    expect(shown).to_have_count(3, timeout=patient)
    # the Avg with its intervals by tier (rank bands), the bars per language and the team x language heatmap
    expect(page.locator(".js-plotly-plot .main-svg").first).to_be_attached(timeout=patient)
    expect(page.locator(".js-plotly-plot")).to_have_count(3, timeout=patient)
    page.context.close()


@pytest.fixture
def opening_soon(site) -> str:
    """Test B opens in a few seconds; its name. (Before `browser`: no database calls after it.)"""
    test_b = site["world"].test_b
    Phase.objects.filter(pk=test_b.pk).update(opens_at=timezone.now() + timedelta(seconds=6))
    return test_b.name


def test_a_page_reloads_when_its_countdown_reaches_zero(site, opening_soon, browser):
    page = _participant_page(browser, site, "competition", 1366)
    row = page.locator("tr", has_text=opening_soon)
    assert "opens in" in row.inner_text()
    page.wait_for_function("() => !document.body.innerText.includes('opens in')", timeout=120_000)
    assert "closes in" in row.inner_text()  # what the server says once the phase is open
    page.context.close()


def test_the_upload_page_lists_each_file_then_sends_them_with_a_progress_bar(site, browser, tmp_path):
    from tests.rules.world import TAG_A, run_bytes

    (tmp_path / "run.mine.sw.txt").write_bytes(run_bytes(tag=TAG_A, shift=1))
    (tmp_path / "run.mine.te.txt.gz").write_bytes(gzip.compress(run_bytes(tag=TAG_A, shift=2)))
    (tmp_path / "notes.txt").write_bytes(b"one line without its newline")
    page = _participant_page(browser, site, "upload", 1366)
    assert page.locator("#recent tr[data-status-url]").count() == 1  # team A's dev run, underneath
    page.set_input_files('input[type="file"]', [tmp_path / "run.mine.sw.txt", tmp_path / "run.mine.te.txt.gz",
                                                tmp_path / "notes.txt"])
    page.wait_for_function("() => !document.querySelector('.chosen-files').innerText.includes('counting')")
    chosen = [r.split("\t")[:3] for r in page.locator(".chosen-files tbody tr").all_inner_texts()]
    assert chosen == [["run.mine.sw.txt", "sw", "12"], ["run.mine.te.txt.gz", "te", "12"],
                      ["notes.txt", "not in the name", "1"]]
    page.set_input_files('input[type="file"]', [tmp_path / "run.mine.sw.txt", tmp_path / "run.mine.te.txt.gz"])
    page.fill('input[name="method_name"]', "sent by XHR")
    with page.expect_request(lambda r: r.method == "POST" and r.resource_type == "xhr"):  # progress events
        page.click('form.upload button[type="submit"]')
    page.wait_for_url("**/submissions/*/")  # stored: on to its page
    assert "sent by XHR" in page.content()
    page.context.close()


def test_a_refused_upload_shows_its_problems_in_place(site, browser, tmp_path):
    (tmp_path / "run.bad.sw.txt").write_bytes(b"1 Q0 doc one 1.0 tag\n")
    page = _participant_page(browser, site, "upload", 1366)
    page.set_input_files('input[type="file"]', tmp_path / "run.bad.sw.txt")
    page.fill('input[name="method_name"]', "broken")
    page.click('form.upload button[type="submit"]')
    page.wait_for_selector("#errors")
    assert "Nothing was stored" in page.locator("#errors").inner_text() and "run.bad.sw.txt" in page.content()
    page.context.close()



@pytest.fixture
def admin_site(site) -> dict:
    """`site` with a superuser's admin pages: its index, a list and a change form (made before the
    browser starts, as `site` is)."""
    admin = make_user("root-admin", is_staff=True, is_superuser=True)
    competition = site["world"].competition
    site["admin"] = (_cookie(admin, site["url"]), {
        "admin-index": "/admin/", "admin-competitions": "/admin/competitions/competition/",
        "admin-competition": f"/admin/competitions/competition/{competition.pk}/change/"})
    return site


def test_the_admin_keeps_to_the_content_security_policy(admin_site, browser):
    """Django's admin is served under the same policy and breaks none of it."""
    def check(page, name, path, response):
        return [f"{path}: CSP refused {v}" for v in page.evaluate("window.__csp")] if name.startswith("admin") else []

    problems = _visit_all(browser, admin_site, 1366, check)
    assert not problems, "\n".join(problems)
