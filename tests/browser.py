"""What the page tests ask of every page in Debian's chromium: no console error or script error,
and no page wider than the screen. One place, so each test says only which pages and widths.
Also the steps several tests take the same way: the new-competition form, filled and saved."""
from __future__ import annotations

import time
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

# What chromium says when a measure meets a page being replaced: the old document's context is
# gone, or the new document has no element yet (a click commits the navigation, then returns).
_BETWEEN_PAGES = ("Execution context was destroyed", "Cannot read properties of null")


def watch_errors(page, *, failed_requests: bool = False) -> list[str]:
    """A list that fills with the page's console errors and uncaught script errors (and, with
    `failed_requests`, every answer >= 400 but the browser's own /favicon.ico) as it is used.
    A failed request's console line is left to that check: it names no address."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text)
            if m.type == "error" and "Failed to load resource" not in m.text else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    if failed_requests:
        page.on("response", lambda r: errors.append(f"{r.status} {r.url}")
                if r.status >= 400 and not r.url.endswith("/favicon.ico") else None)
    return errors


def too_wide(page, base_url: str, paths: list[str], width: int) -> list[str]:
    """Visit each path (each must answer 200) and name those wider than `width`."""
    problems = []
    for path in paths:
        response = page.goto(base_url + path)
        assert response.status == 200, path
        wide = page_width(page)
        if wide > width:
            problems.append(f"{path} at {width} px is {wide} px wide")
    return problems


def page_width(page, *, patience: float = 120) -> int:
    """The loaded page's width in px. A click that leads to another page returns once that page
    is committed, before it has an element to measure, and a page may reload itself (a progress
    page, a submission's page once scored): the measure then waits for the new page's load and
    is taken again, for at most `patience` seconds."""
    from playwright.sync_api import Error

    deadline = time.monotonic() + patience
    while True:
        page.wait_for_load_state("load")
        try:
            return page.evaluate("document.documentElement.scrollWidth")
        except Error as error:
            if not any(sign in str(error) for sign in _BETWEEN_PAGES) or time.monotonic() > deadline:
                raise


@contextmanager
def chromium():
    """Debian's chromium, closed after the test. Ask for it after the fixtures that touch the
    database: playwright runs an event loop in this thread, and Django refuses database calls
    from a thread with a running loop."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def chromium_page():
    """A page of `chromium()`."""
    with chromium() as browser:
        yield browser.new_page()


@contextmanager
def signed_in_page(cookie: dict, width: int, *, height: int = 900):
    """A page of `chromium()` at `width`, carrying a session `cookie` (Django's sessionid)."""
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": height})
        context.add_cookies([cookie])
        yield context.new_page()


def competition_form_fill(page, base_url: str, *, title: str, slug: str, metrics: str, max_run_depth: int,
                          subsets: dict[str, str], **more: str | bool) -> None:
    """Open the new-competition form and fill a generic competition: its subsets (code: name,
    one average), one phase `dev` open since yesterday for 30 days, and `more` fields by name
    (a text, or True to tick it)."""
    now = datetime.now(UTC)
    page.goto(base_url + "/competitions/new/")
    page.fill("input[name=title]", title)
    page.fill("input[name=slug]", slug)
    page.select_option("select[name=benchmark]", "generic")
    page.fill("input[name=metrics]", metrics)
    page.fill("input[name=max_run_depth]", str(max_run_depth))
    for name, value in more.items():
        page.check(f"[name={name}]") if value is True else page.fill(f"[name={name}]", value)
    for index, (code, name) in enumerate(subsets.items()):
        if index:
            page.click("button:text-is('Add a subset')")
        page.fill(f"input[name=subsets-{index}-code]", code)
        page.fill(f"input[name=subsets-{index}-name]", name)
    page.fill("input[name=phases-0-slug]", "dev")
    page.fill("input[name=phases-0-name]", "Development")
    page.fill("input[name=phases-0-opens_at]", f"{now - timedelta(days=1):%Y-%m-%d %H:%M}")
    page.fill("input[name=phases-0-closes_at]", f"{now + timedelta(days=30):%Y-%m-%d %H:%M}")


def competition_form_check(page) -> None:
    """Check the changes: the confirmation shown says it creates the competition."""
    page.click("form.definition-form > button[name=check]:not(.default-submit)")
    page.wait_for_selector("#confirm")
    assert "This creates the competition" in page.locator("#confirm h2").inner_text()


def competition_form_save(page, base_url: str, slug: str) -> None:
    """Confirm and save; the organizer area of the new competition opens."""
    page.click("button:text-is('Confirm and save')")
    page.wait_for_url(base_url + f"/c/{slug}/manage/")


def dev_files_upload(page, base_url: str, slug: str, kind: str, paths: list) -> None:
    """Topics or judgments (`kind`) of the dev phase by the organizer area's file input, each
    file's subset read from its name; the message back names their SHA-256."""
    page.goto(base_url + f"/c/{slug}/manage/dev/{kind}/")
    page.set_input_files("input[name=files]", [str(path) for path in paths])
    page.wait_for_selector("form.upload .chosen-files:not([hidden])")
    page.click("form.upload button[type=submit]")
    page.wait_for_url(base_url + f"/c/{slug}/manage/")
    assert "SHA-256" in page.locator("ul.messages").inner_text()


# Boxes of every tick label per chart and axis, and whether two of one axis overlap.
TICKS = """() => [...document.querySelectorAll('.js-plotly-plot')].map((chart) => {
  const title = chart.querySelector('.gtitle');
  const axes = {};
  for (const axis of ['xtick', 'ytick']) {
    const boxes = [...chart.querySelectorAll('.' + axis + ' text')].map((t) => t.getBoundingClientRect())
      .filter((b) => b.width > 0);
    const overlaps = boxes.some((a, i) => boxes.slice(i + 1).some((b) =>
      a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1));
    axes[axis] = {count: boxes.length, overlaps};
  }
  return {title: title ? title.textContent : '', heatmap: !!chart.querySelector('.hm'), ...axes};
})"""


# Charts whose title box meets one of their tick labels or their menu (a dropdown of plotly's updatemenus).
TITLE_CLEAR = """() => [...document.querySelectorAll('.js-plotly-plot')].filter((chart) => {
  const title = chart.querySelector('.gtitle');
  if (!title) return false;
  const t = title.getBoundingClientRect();
  return [...chart.querySelectorAll('.xtick text, .ytick text, .updatemenu-header')].map((e) => e.getBoundingClientRect())
    .some((b) => b.width > 0 && t.left < b.right && b.left < t.right && t.top < b.bottom && b.top < t.bottom);
}).map((chart) => chart.querySelector('.gtitle').textContent)"""


def charts_drawn(page) -> None:
    """Wait until static/charts.js has drawn every chart of the page (its `charts drawn` mark)."""
    page.wait_for_function("performance.getEntriesByName('charts drawn').length > 0")


def leaderboard_teams(page) -> list[str]:
    """The team column of the loaded leaderboard table, top to bottom (a click that leads to a
    board returns before the board's rows are read in)."""
    page.wait_for_load_state("load")
    return page.locator("table.leaderboard tbody tr td:nth-child(2)").all_inner_texts()
