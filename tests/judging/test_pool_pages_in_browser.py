"""The judging pages in a real browser, as an organizer works through them: Judged@10 of the
runs (table and heatmap), a pool asked for on the form, its progress while a worker builds
it (the page reloads itself), the zip and a language's TSV downloaded, then what the judged
pool changed once it came back as qrels v2; no console error, nothing wider than a laptop
or a phone."""
from __future__ import annotations

import io
import threading
import zipfile

import pytest
from django.test import Client

from cupboard.competitions.services import qrels_release_create
from cupboard.judging.models import PoolExport
from cupboard.judging.pools import pool_export_build
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from tests.browser import too_wide, watch_errors
from tests.factories import qrels_text
from tests.judging.conftest import JUDGMENTS, D, build_scene

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def scene_cookie(live_server):
    scene = build_scene()
    client = Client()
    client.force_login(scene.organizer)
    return scene, {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


def off_the_loop(work, *args):
    """Run database work on a thread of its own: Playwright's sync API keeps an event loop
    running on this one, where Django refuses database calls."""
    from django.db import connection

    result = []

    def run():
        try:
            result.append(work(*args))
        finally:
            connection.close()
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert result, "the work failed (see the thread's traceback above)"
    return result[0]


def _built(depth: int) -> PoolExport:
    export = PoolExport.objects.get()
    assert export.depth == depth and len(export.submission_ids) == 3
    assert pool_export_build(export_id=export.pk) == "done"  # what the worker does
    return export


def _judge_the_pool(scene) -> None:
    sw = {q: dict(docs) for q, docs in JUDGMENTS["sw"].items()}
    sw["1"].update({D["u1"]: 1, D["u2"]: 0})
    qrels_release_create(phase=scene.dev, files={"sw": qrels_text(sw)}, actor=scene.organizer, note="pool judged")
    for pk in Submission.objects.filter(phase=scene.dev).exclude(qrels_release__number=2).values_list("pk", flat=True):
        Submission.objects.filter(pk=pk).update(status="queued", attempts=0)
        submission_score(submission_id=pk)
    return True


def test_an_organizer_pools_downloads_and_sees_what_changed(live_server, scene_cookie):
    from playwright.sync_api import expect, sync_playwright

    scene, cookie = scene_cookie
    pool_url = f"{live_server.url}/c/cup/manage/dev/pool/"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1366, "height": 900}, accept_downloads=True)
        context.add_cookies([cookie])
        page = context.new_page()
        errors = watch_errors(page, failed_requests=True)
        page.goto(pool_url)
        expect(page.locator("#judged table tbody tr")).to_have_count(3)  # two teams and the baseline
        expect(page.locator("#judged .js-plotly-plot")).to_have_count(1)  # the heatmap, drawn
        page.fill("#id_depth", "3")
        page.click("#build button[type=submit]")
        expect(page.locator("#exports")).to_contain_text("queued")
        off_the_loop(_built, 3)  # meanwhile the page reloads itself every 3 s
        expect(page.locator("#exports")).to_contain_text("Documents to judge", timeout=120_000)
        expect(page.locator("#unique")).to_contain_text("Team A")
        with page.expect_download() as download:
            page.click("text=Download every language (zip)")
        with zipfile.ZipFile(io.BytesIO(open(download.value.path(), "rb").read())) as archive:
            assert archive.namelist() == ["pool.cup-dev-sw.top3.tsv"]
        with page.expect_download() as download:
            page.click("text=sw.tsv")
        lines = open(download.value.path(), encoding="utf-8").read().splitlines()
        assert lines[0] == "qid\tquery\tdocid" and len(lines) == 7

        off_the_loop(_judge_the_pool, scene)
        page.goto(pool_url)
        page.click("text=qrels v2")
        # language, new, flipped, flips by kind, dropped
        expect(page.locator("#judgments tbody tr").first.locator("td")).to_have_text(["sw", "2", "0", "", "0"])
        page.select_option("select[name=column]", "sw")
        page.click("#column button")
        expect(page.locator("#changes tbody tr").first).to_contain_text("Team A")
        expect(page.locator("#changes .js-plotly-plot")).to_have_count(1)
        changes_path = page.url.removeprefix(live_server.url)
        problems = too_wide(page, live_server.url, ["/c/cup/manage/dev/pool/", changes_path], 1366)
        phone = browser.new_context(viewport={"width": 390, "height": 800})
        phone.add_cookies([cookie])
        problems += too_wide(phone.new_page(), live_server.url, ["/c/cup/manage/dev/pool/", changes_path], 390)
        browser.close()
    assert not problems and not errors, "\n".join(problems + errors)
