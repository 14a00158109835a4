"""What the page tests ask of every page in Debian's chromium: no console error or script error,
and no page wider than the screen. One place, so each test says only which pages and widths."""
from __future__ import annotations

from contextlib import contextmanager


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
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > width:
            problems.append(f"{path} at {width} px is {wide} px wide")
    return problems


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


def leaderboard_teams(page) -> list[str]:
    """The team column of the leaderboard table, top to bottom."""
    return page.locator("table.leaderboard tbody tr td:nth-child(2)").all_inner_texts()
