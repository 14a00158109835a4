"""A competition with English and native topics (the neuclir-like example) in Debian's
chromium at 1366 and 390 px: the competition page, How to submit and the upload form fit the
screen without a console error, each variant's link downloads that variant's file, and the
upload form asks which topics the run used."""
from __future__ import annotations

from datetime import timedelta

import pytest
import yaml
from django.test import Client
from django.utils import timezone

from cupboard.competitions.definition import EXAMPLES_DIR
from cupboard.competitions.services import competition_load
from cupboard.competitions.topic_files import topics_import_files
from tests.browser import chromium, too_wide, watch_errors
from tests.factories import make_team, make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "neuclir-like"
ENGLISH = {f"{n}": f"english query {n}" for n in range(101, 131)}
NATIVE = {f"{n}": f"запрос номер {n}" for n in range(101, 131)}


@pytest.fixture
def session_cookie(live_server) -> dict:
    data = yaml.safe_load((EXAMPLES_DIR / "neuclir-like.yaml").read_text(encoding="utf-8"))
    now = timezone.now()
    data["starts_at"] = now - timedelta(days=2)
    data["phases"][0] |= {"opens_at": now - timedelta(days=1), "closes_at": now + timedelta(days=20),
                          "reveal_at": now + timedelta(days=30)}
    competition = competition_load(data=data)
    phase = competition.phases.get()
    files, names = {}, {}
    for code in ("fa", "ru", "zh"):
        for variant, queries in (("en", ENGLISH), ("native", NATIVE)):
            files[code, variant] = "".join(f"{q}\t{text}\n" for q, text in queries.items()).encode()
            names[code, variant] = f"topics.{SLUG}-{code}-test.{variant}.tsv"
    topics_import_files(phase=phase, files=files, names=names)
    alice = make_user("alice")
    make_team(competition, name="Lighthouse", members=[alice])
    client = Client()
    client.force_login(alice)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


def test_the_variants_pages_fit_and_each_link_downloads_its_variant(live_server, session_cookie):
    paths = [f"/c/{SLUG}/", f"/c/{SLUG}/how-to-submit/", f"/c/{SLUG}/test/upload/"]
    problems = []
    with chromium() as browser:
        for width in (1366, 390):
            context = browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True)
            context.add_cookies([session_cookie])
            page = context.new_page()
            errors = watch_errors(page, failed_requests=True)
            problems += too_wide(page, live_server.url, paths, width)
            problems += [f"console at {width} px: {e}" for e in errors]
            context.close()
        context = browser.new_context(viewport={"width": 390, "height": 900}, accept_downloads=True)
        context.add_cookies([session_cookie])
        page = context.new_page()
        page.goto(f"{live_server.url}/c/{SLUG}/how-to-submit/")
        guide = page.locator("#phase-test")
        assert "--meta topics=en" in guide.locator("pre.command").inner_text()
        with page.expect_download() as download:
            guide.locator("ul.topic-variants li", has_text="Native-language queries").get_by_role(
                "link", name="ru").click()
        assert download.value.suggested_filename == f"topics.{SLUG}-ru-test.native.tsv"
        assert "запрос номер 101" in open(download.value.path(), encoding="utf-8").read()
        page.goto(f"{live_server.url}/c/{SLUG}/test/upload/")
        options = page.locator("select[name=meta_topics] option").all_inner_texts()
        assert "English queries" in options and "Native-language queries" in options
        context.close()
    assert not problems, "\n".join(problems)
