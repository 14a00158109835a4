"""In chromium: an invite link opened while logged out survives signing up (the Sign up link
keeps ?next=), the newcomer joins, and leaving asks first (issue 17)."""
import pytest

from tests.factories import make_competition, make_team, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def invite(live_server) -> str:
    competition = make_competition(slug="journey", known=["sw"], surprise=[])
    team = make_team(competition, name="Lighthouse", members=[make_user("alice")])
    return f"{live_server.url}/teams/join/{team.invite_code}/"


# Requested after `invite`: playwright runs an event loop in this thread, and Django refuses
# database calls from a thread with a running loop.
@pytest.fixture
def page(invite):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        yield browser.new_context(locale="en-US").new_page()
        browser.close()


def test_it_keeps_the_invite_through_sign_up_and_asks_before_leaving(live_server, invite, page):
    page.goto(invite)
    assert page.locator("h1").inner_text() == "Log in"
    page.locator("main").get_by_role("link", name="Sign up").click()
    page.fill("#id_username", "newcomer")
    page.fill("#id_email", "newcomer@example.org")
    page.fill("#id_password1", "a-Long-passw0rd")
    page.fill("#id_password2", "a-Long-passw0rd")
    page.get_by_role("button", name="Create account").click()
    assert page.url == invite  # back at the invite, logged in
    page.get_by_role("button", name="Join Lighthouse").click()
    assert page.locator("h1").inner_text() == "Lighthouse" and "newcomer" in page.locator("main").inner_text()

    page.get_by_role("link", name="Leave team").click()
    assert page.locator("h1").inner_text() == "Leave Lighthouse?"
    page.get_by_role("link", name="Cancel").click()
    assert "newcomer" in page.locator("main").inner_text()  # still a member
    page.get_by_role("link", name="Leave team").click()
    page.get_by_role("button", name="Leave Lighthouse").click()
    assert page.url == f"{live_server.url}/accounts/profile/"
    assert "You left Lighthouse." in page.locator("main").inner_text()
