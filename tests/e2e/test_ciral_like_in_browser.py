"""Issue 23's "done when", its browser half: the same CIRAL-like competition as
test_ciral_like_from_yaml.py, defined by its first organizer in chromium (the new-competition
form: generic, ha/so/sw/yo without groups, nDCG@20, R@100, R@1000 and AP on runs of 1000,
English and native topics),
its topics and judgments uploaded through the organizer area's file inputs; then the same
two depth-1000 submissions with the How-to-submit command as printed, scored by a real
worker, and every stored value equal to `trec_eval -c` on the same files, to 1e-12 (so the
same values as the YAML-defined competition's: the runs are the same, seeded)."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from tests.browser import chromium, watch_errors
from tests.e2e.test_ciral_like_from_yaml import (
    SLUG,
    SOURCES,
    check_stored,
    ciral_like_files,
    ciral_stack,
    submit_as_printed,
)

pytestmark = [pytest.mark.worker, pytest.mark.slow, pytest.mark.browser, pytest.mark.shared_data]

NAMES = {"ha": "Hausa", "so": "Somali", "sw": "Swahili", "yo": "Yoruba"}


def define_in_the_browser(page, base: str, files: dict, password: str) -> None:
    """The first organizer logs in, fills the new-competition form, confirms, and uploads
    every subset's topics and judgments by the file inputs (the subset read from the names)."""
    now = datetime.now(timezone.utc)
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", "organizer")
    page.fill("#id_password", password)
    page.click("button:text-is('Log in')")
    page.wait_for_url(re.compile(r".*/(?!accounts/login).*"))
    page.goto(base + "/competitions/new/")
    page.fill("input[name=title]", "African-language passage retrieval")
    page.fill("input[name=slug]", SLUG)
    page.select_option("select[name=benchmark]", "generic")
    page.fill("textarea[name=description]", "English queries, passages in Hausa, Somali, Swahili and Yoruba.")
    page.check("input[name=published]")
    page.fill("input[name=metrics]", "nDCG@20, R@100, R@1000, AP")
    page.fill("input[name=primary_metric]", "nDCG@20")
    page.fill("input[name=max_run_depth]", "1000")
    page.fill("textarea[name=topic_variants]", "en: English queries\nnative: Native-language queries")
    for index, code in enumerate(SOURCES):
        if index:
            page.click("button:text-is('Add a subset')")
        page.fill(f"input[name=subsets-{index}-code]", code)
        page.fill(f"input[name=subsets-{index}-name]", NAMES[code])
    page.fill("input[name=phases-0-slug]", "dev")
    page.fill("input[name=phases-0-name]", "Development")
    page.fill("input[name=phases-0-opens_at]", f"{now - timedelta(days=1):%Y-%m-%d %H:%M}")
    page.fill("input[name=phases-0-closes_at]", f"{now + timedelta(days=30):%Y-%m-%d %H:%M}")
    page.click("form.definition-form > button[name=check]:not(.default-submit)")
    page.wait_for_selector("#confirm")
    assert "This creates the competition" in page.locator("#confirm h2").inner_text()
    page.click("button:text-is('Confirm and save')")
    page.wait_for_url(base + f"/c/{SLUG}/manage/")
    for kind in ("topics", "qrels"):
        page.goto(base + f"/c/{SLUG}/manage/dev/{kind}/")
        chosen = [path for code in SOURCES for path in (files[code]["topics"] if kind == "topics" else [files[code][kind]])]
        page.set_input_files("input[name=files]", [str(path) for path in chosen])
        page.wait_for_selector("form.upload .chosen-files:not([hidden])")
        page.click("form.upload button[type=submit]")
        page.wait_for_url(base + f"/c/{SLUG}/manage/")
        assert "SHA-256" in page.locator("ul.messages").inner_text()


def test_a_ciral_like_competition_defined_in_the_browser_scores_as_trec_eval(tmp_path, trec_eval):
    data = tmp_path / "organizer"
    data.mkdir()
    files = ciral_like_files(data)
    with ciral_stack(tmp_path) as stack:
        said = stack.manage("first_organizer", "--noinput")  # as `make serve` does
        password = re.search(r"password: (\S+)", said).group(1)
        stack.start_server(stack.port)
        stack.start_worker()
        with chromium() as browser:
            page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
            errors = watch_errors(page)
            define_in_the_browser(page, stack.url, files, password)
        assert not errors, errors
        assert stack.query("SELECT metrics, max_run_depth FROM competitions_competition") == \
            [('["nDCG@20", "R@100", "R@1000", "AP"]', 1000)]
        stored, runs, board = submit_as_printed(stack, files, tmp_path)
    check_stored(stored, runs, board, files, trec_eval)
