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

import pytest

from tests.browser import (
    chromium,
    competition_form_check,
    competition_form_fill,
    competition_form_save,
    dev_files_upload,
    watch_errors,
)
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
    page.goto(base + "/accounts/login/")
    page.fill("#id_username", "organizer")
    page.fill("#id_password", password)
    page.click("button:text-is('Log in')")
    page.wait_for_url(re.compile(r".*/(?!accounts/login).*"))
    competition_form_fill(page, base, title="African-language passage retrieval", slug=SLUG,
                          metrics="nDCG@20, R@100, R@1000, AP", max_run_depth=1000, subsets=NAMES,
                          description="English queries, passages in Hausa, Somali, Swahili and Yoruba.",
                          published=True, primary_metric="nDCG@20",
                          topic_variants="en: English queries\nnative: Native-language queries")
    competition_form_check(page)
    competition_form_save(page, base, SLUG)
    for kind in ("topics", "qrels"):
        dev_files_upload(page, base, SLUG, kind, [path for code in SOURCES for path in
                                                  (files[code]["topics"] if kind == "topics" else [files[code][kind]])])


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
