"""A newcomer's two rough edges in Debian's chromium, on a laptop (1366 px) and a phone (390 px):
past the entry deadline the competition page says entry is closed and offers no team to create;
a run for a language the phase has no topics for is refused naming the languages it takes. No
page wider than the screen, no console error."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from cupboard.competitions.services import competition_load
from cupboard.demo.plan import COMPETITIONS
from evaluator.samples import sample_path
from tests.browser import page_width, signed_in_page, watch_errors
from tests.factories import make_team, make_topics, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (1366, 390)


def _cookie(user, url: str) -> dict:
    client = Client()
    client.force_login(user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": url}


@pytest.fixture
def cup(live_server):
    """The Cup as the demo loads it, its dev phase with Swahili topics only; alice in a team,
    newcomer in none; teams could be formed until an hour ago."""
    organizer = make_user("organizer")
    cup = competition_load(data=COMPETITIONS[0].definition_data(now=timezone.now()), actor=organizer)
    make_topics(cup.phases.get(slug="dev"), "sw", [f"sw-{n}" for n in range(1, 10)])
    make_team(cup, name="Lighthouse", members=[alice := make_user("alice")])
    cup.entry_deadline = timezone.now() - timedelta(hours=1)
    cup.save()
    return {"cup": cup, "alice": _cookie(alice, live_server.url),
            "newcomer": _cookie(make_user("newcomer"), live_server.url)}


@pytest.mark.parametrize("width", WIDTHS)
def test_past_the_entry_deadline_the_page_says_so_and_offers_no_team(live_server, cup, width):
    with signed_in_page(cup["newcomer"], width) as page:
        errors = watch_errors(page)
        page.goto(f"{live_server.url}/c/miracl-wsdm-cup/")
        closed = page.locator("#entry-closed")
        assert closed.is_visible() and "no new team can be created or joined" in closed.inner_text()
        assert page.get_by_role("link", name="create a team").count() == 0
        assert page_width(page) <= width and not errors


@pytest.mark.parametrize("width", WIDTHS)
def test_a_run_for_a_language_the_phase_lacks_names_the_ones_it_takes(live_server, cup, width, tmp_path):
    run = tmp_path / "run.te.txt"
    run.write_text(sample_path("run", "sw").read_text())  # any well-formed run; te has no topics in dev
    with signed_in_page(cup["alice"], width) as page:
        errors = watch_errors(page)
        page.goto(f"{live_server.url}/c/miracl-wsdm-cup/dev/upload/")
        page.set_input_files("input[name=files]", str(run))
        page.fill("input[name=method_name]", "BM25")
        page.select_option("select[name=meta_run_type]", "automatic")
        page.select_option("select[name=meta_training]", "zero-shot")
        assert page.locator(".chosen-files tbody td.num").last.inner_text().endswith(" kB")  # 6.7 kB, not "0.0 MB"
        page.click("form.upload button[type=submit]")
        page.wait_for_selector("text=has no topics for te")  # the answer replaces the page (static/upload.js)
        text = page.locator("main").inner_text()
        assert "run.te.txt: Development has no topics for te" in text and "it takes runs for sw." in text
        assert page_width(page) <= width and not errors
