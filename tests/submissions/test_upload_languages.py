"""The upload form offers the languages the phase takes, not every language of the competition
(issue 33, item 13: MIRACL's Test A takes 11 of 18, and a run for another was refused only
after its upload): its language choice, a line naming them, and the page's file list, which
says "not taken by this phase" of a file whose name gives another language."""
import pytest
from django.test import Client

from tests.browser import chromium, page_width, watch_errors
from tests.factories import make_topics
from tests.personas import build_cast


def _phase_taking_sw_only():
    cast = build_cast()
    dev = cast.competition.phases.get(slug="dev")
    make_topics(dev, "sw", ["1", "2"])  # te is a language of the competition, without topics here
    return cast, f"/c/{cast.competition.slug}/dev/upload/"


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_the_form_offers_only_the_phases_languages():
    cast, url = _phase_taking_sw_only()
    response = _client(cast.participant).get(url)
    choices = [value for value, _ in response.context["form"].fields["subset"].choices]
    assert choices == ["", "sw"]
    assert "Development takes runs for 1 of the competition's 2 languages: sw." in response.content.decode()


@pytest.mark.django_db
def test_the_release_consent_is_asked_only_on_a_final_phase():
    """Issue 33, item 13: only a final phase has a results archive to release a run in."""
    cast, url = _phase_taking_sw_only()
    client = _client(cast.participant)
    assert "release_consent" not in client.get(url).context["form"].fields  # dev: live, not final
    final = client.get(f"/c/{cast.competition.slug}/test-b/upload/")
    assert "release_consent" in final.context["form"].fields


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_in_the_browser_a_file_for_another_language_is_named_at_once(live_server, width):
    cast, url = _phase_taking_sw_only()
    cookie = {"name": "sessionid", "value": _client(cast.participant).cookies["sessionid"].value,
              "url": live_server.url}
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.add_cookies([cookie])
        page = context.new_page()
        errors = watch_errors(page, failed_requests=True)
        page.goto(live_server.url + url)
        assert page.locator("select[name=subset] option").all_inner_texts() == ["from the file name", "sw Swahili"]
        assert page.locator("[name=release_consent]").count() == 0  # dev is not final: no archive
        page.set_input_files("input[type=file]", [
            {"name": "run.te.txt", "mimeType": "text/plain", "buffer": b"1 Q0 d1 1 1.0 r\n"},
            {"name": "run.sw.txt", "mimeType": "text/plain", "buffer": b"1 Q0 d1 1 1.0 r\n"}])
        rows = page.locator(".chosen-files tbody tr")
        rows.nth(1).locator("td").nth(2).filter(has_text="1").wait_for(timeout=30_000)  # its lines counted
        assert rows.nth(0).locator("td").nth(1).inner_text() == "te: not taken by this phase"
        assert rows.nth(1).locator("td").nth(1).inner_text() == "sw"
        assert page_width(page) <= width
        assert errors == []
