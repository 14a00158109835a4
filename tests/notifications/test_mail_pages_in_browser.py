"""In Debian's chromium, on a laptop (1366 px) and a phone (390 px): a person who forgot their
password gets the link by mail, sets a new one and logs in with it, then turns a kind of mail
off on the profile page and back on; no page wider than the screen, no console error or
failed request on the way."""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core import mail

from cupboard.notifications.preferences import mail_preferences
from tests.browser import page_width, watch_errors
from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1366, 390)


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        yield browser
        browser.close()


def in_thread(function, *args):
    """Run a database read outside the thread where playwright's event loop runs (Django
    refuses synchronous queries there)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function, *args).result()


def wanted(user) -> dict:
    return in_thread(lambda: mail_preferences(user=user))


@pytest.fixture
def people(db) -> dict:
    return {width: make_user(f"ada{width}", password="forgotten", email=f"ada{width}@example.org")
            for width in WIDTHS}


def fits(page, width: int) -> list[str]:
    wide = page_width(page)
    return [f"{page.url} at {width} px is {wide} px wide"] if wide > width else []


def reset_password(page, base: str, *, email: str, width: int) -> list[str]:
    page.goto(f"{base}/accounts/login/")
    page.click("text=Forgot your password?")
    page.wait_for_selector("h1:has-text('Reset your password')")
    problems = fits(page, width)
    page.fill("input[name=email]", email)
    page.click("button:has-text('Send the link')")
    page.wait_for_selector("h1:has-text('Check your mail')")
    problems += fits(page, width)
    path = re.search(r"http://[^/\s]+(/accounts/password-reset/\S+/)", mail.outbox[-1].body).group(1)
    page.goto(base + path)
    page.fill("input[name=new_password1]", "a new long password 7")
    page.fill("input[name=new_password2]", "a new long password 7")
    problems += fits(page, width)
    page.click("button:has-text('Set the password')")
    page.wait_for_selector("h1:has-text('Password changed')")
    return problems + fits(page, width)


def test_a_forgotten_password_and_the_mail_settings(live_server, people, browser):
    problems = []
    for width, user in people.items():
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        errors = watch_errors(page, failed_requests=True)
        problems += reset_password(page, live_server.url, email=user.email, width=width)
        page.click("text=Log in")
        page.fill("input[name=username]", user.username)
        page.fill("input[name=password]", "a new long password 7")
        page.click("main button:has-text('Log in')")
        page.goto(f"{live_server.url}/accounts/profile/#mail")
        problems += fits(page, width)
        page.uncheck("input[name=deadline]")
        page.click("button:has-text('Save mail settings')")
        page.wait_for_selector("text=Mail settings saved.")
        assert wanted(user) == {"submission": True, "deadline": False, "reveal": True, "message": True,
                                "change": True}
        assert not page.is_checked("input[name=deadline]") and page.is_checked("input[name=submission]")
        page.check("input[name=deadline]")
        page.click("button:has-text('Save mail settings')")
        page.wait_for_selector("text=Mail settings saved.")
        assert wanted(user)["deadline"]
        problems += fits(page, width) + [f"console at {width} px: {e}" for e in errors]
        context.close()
    assert not problems, "\n".join(problems)
