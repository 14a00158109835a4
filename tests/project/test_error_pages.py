"""Every error is a page of the site for everyone (404, 400, 500 beside the 403 of
test_forbidden_page.py); Django's debug pages, which list URL patterns and settings, only for
a developer who turns debug on."""
import pytest
from django.test import Client, RequestFactory, override_settings
from django.views.defaults import server_error


@pytest.mark.django_db
@override_settings(DEBUG=False)
def test_a_missing_page_is_a_page_of_the_site():
    response = Client().get("/c/no-such-competition/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "<h1>There is no such page</h1>" in page and 'class="site"' in page
    assert "no-such-competition" not in page and "URLconf" not in page  # the path is not echoed
    assert "{#" not in page and "tests/rules" not in page  # a template comment of two lines showed as text


@pytest.mark.django_db
@override_settings(DEBUG=False, ALLOWED_HOSTS=["testserver"])
def test_a_request_that_cannot_be_read_is_a_page_of_the_site():
    response = Client().get("/", HTTP_HOST="not-this-site.example")
    assert response.status_code == 400
    assert "<h1>This request could not be read</h1>" in response.content.decode()


def test_a_server_error_page_needs_neither_the_database_nor_a_context():
    """No django_db mark: a query here would fail the test, as it would fail during an outage."""
    response = server_error(RequestFactory().get("/c/anything/"))
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()
