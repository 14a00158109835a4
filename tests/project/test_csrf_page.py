"""A failed CSRF check answers the site's own 403 page (issue 33, item 13), not Django's bare
"Forbidden (403) CSRF verification failed": a visitor whose page sat open too long, or who
logged out in another tab, learns what happened and what to do, in the site's look."""
import pytest
from django.test import Client

from tests.browser import chromium, page_width, watch_errors
from tests.factories import make_user

TITLE = "This form could not be accepted"


@pytest.mark.django_db
def test_a_form_without_its_token_gets_the_sites_page():
    make_user("alice")
    response = Client(enforce_csrf_checks=True).post("/accounts/login/", {"username": "alice", "password": "password"})
    page = response.content.decode()
    assert response.status_code == 403
    assert f"<h1>{TITLE}</h1>" in page and 'class="site"' in page and "nothing was changed" in page
    assert "CSRF verification failed" not in page


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_in_the_browser_at_both_widths(live_server, width):
    make_user("alice")
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        errors = watch_errors(page)
        page.goto(live_server.url + "/accounts/login/")
        context.clear_cookies()  # the csrftoken cookie is gone: the form's token matches nothing
        page.fill("input[name=username]", "alice")
        page.fill("input[name=password]", "password")
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            page.click("button[type=submit]")
        assert answer.value.status == 403
        assert page.locator("h1").inner_text() == TITLE
        assert page.locator("header.site").is_visible() and page.locator("#csrf-failure").is_visible()
        assert page_width(page) <= width
        assert errors == []
