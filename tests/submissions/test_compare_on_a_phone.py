"""Compare on a phone (issue 33, item 13): at 390 px its A - B and p-value columns were past a
sideways scroll of the eight-column table. Each language and metric is now a block of labelled
values there; at 1366 px the table stays a table. Checked in chromium at both widths."""
import pytest
from django.test import Client

from tests.browser import chromium, page_width, watch_errors
from tests.rules.world import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1366, 390])
def test_the_difference_and_p_values_are_on_screen(live_server, width):
    world = build_world()
    client = Client()
    client.force_login(world.participant)
    cookie = {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}
    with chromium() as browser:
        context = browser.new_context(viewport={"width": width, "height": 900})
        context.add_cookies([cookie])
        page = context.new_page()
        errors = watch_errors(page, failed_requests=True)
        response = page.goto(f"{live_server.url}/submissions/{world.sub_a_dev.pk}/compare/?with={world.baseline.pk}")
        assert response.status == 200
        cells = page.locator("table.comparison tbody tr").first.locator("td.difference, td.p-value")
        assert cells.count() == 3
        for index in range(3):
            box = cells.nth(index).bounding_box()
            assert box is not None and box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= width, \
                f"cell {index} at {box} is off a {width} px screen"
            assert cells.nth(index).inner_text().strip(), "an empty cell"
        assert page_width(page) <= width
        if width < 600:
            assert page.locator("table.comparison thead").is_hidden()  # labels ride with the values
            assert "A − B" in page.evaluate("getComputedStyle(document.querySelector('td.difference'), '::before').content")
        assert errors == []
