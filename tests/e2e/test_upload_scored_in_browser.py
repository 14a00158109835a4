"""A new user signs up, forms a team, uploads a run through the form in headless Chromium,
and reads its score off the leaderboard: runserver + a real Celery worker (filesystem
broker) on a fresh SQLite file, all as subprocesses. The score on the page must equal what
`python -m evaluator score` computes for the same files, to the 3 decimals shown."""
from __future__ import annotations

import pytest

from tests.e2e.stack import expected_scores, prepared_stack, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.worker]

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("e2e-browser")
    stack, files = prepared_stack(folder)
    with stack:
        stack.start_server()
        stack.start_worker()
        stack.files = files
        yield stack


@pytest.fixture(scope="module")
def page(stack):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)  # generous: on a loaded 2-core machine a page can take seconds
            yield page
        finally:
            browser.close()


def sign_up_and_form_a_team(page, url: str) -> None:
    page.goto(f"{url}/accounts/signup/")
    page.fill("input[name=username]", "ada")
    page.fill("input[name=email]", "ada@example.org")
    page.fill("input[name=password1]", "a long enough passphrase 42")
    page.fill("input[name=password2]", "a long enough passphrase 42")
    page.click("main form.card button[type=submit]")
    page.wait_for_url(f"{url}/")
    page.goto(f"{url}/c/cup/teams/new/")
    page.fill("input[name=name]", "Lovelace")
    page.click("main form.card button[type=submit]")
    page.wait_for_url(f"{url}/c/cup/teams/lovelace/")


def upload(page, url: str, path, method: str) -> None:
    page.goto(f"{url}/c/cup/dev/upload/")
    page.set_input_files("input[name=files]", str(path))
    page.fill("input[name=method_name]", method)
    page.click("form.upload button[type=submit]")


def leaderboard_cell(page, url: str, team: str, column: str) -> str:
    page.goto(f"{url}/c/cup/dev/leaderboard/")
    headers = page.locator("table.leaderboard thead th").all_inner_texts()
    row = page.locator("table.leaderboard tbody tr", has_text=team)
    return row.locator("td").nth(headers.index(column)).inner_text().strip()


def test_it_scores_an_uploaded_run_and_shows_it_on_the_leaderboard(stack, page):
    url = stack.url
    sign_up_and_form_a_team(page, url)
    upload(page, url, stack.files["run"], "BM25 e2e")
    page.wait_for_url(f"{url}/submissions/*/")

    def scored():
        page.reload()
        return page.locator("#state .status-value").inner_text().strip().lower() == "scored"
    wait_until(scored, every=0.5, what=lambda: f"the submission to be scored\n{stack.log('worker')[-3000:]}")

    expected = expected_scores(stack.files)["subsets"]["sw"]["nDCG@10"]
    assert leaderboard_cell(page, url, "Lovelace", "sw") == f"{expected:.3f}"
    assert leaderboard_cell(page, url, "Lovelace", "Avg") == f"{expected:.3f}"
    assert stack.query("SELECT status, attempts FROM submissions_submission") == [("scored", 1)]


def test_it_shows_a_bad_line_with_file_and_line_and_stores_nothing(stack, page, tmp_path):
    url = stack.url
    lines = stack.files["run"].read_text().splitlines()
    lines[4] = lines[4].rsplit(" ", 2)[0] + " not-a-score e2e"  # line 5: the score is no number
    bad = tmp_path / "run.broken.sw.txt"
    bad.write_text("\n".join(lines) + "\n")
    before = stack.query("SELECT count(*) FROM submissions_submission")
    upload(page, url, bad, "broken")
    page.wait_for_selector("#errors table.problems")  # the form is sent in the background (static/upload.js)
    problems = page.locator("#errors table.problems tbody tr").first
    cells = problems.locator("td").all_inner_texts()
    assert cells[0] == "run.broken.sw.txt" and cells[1] == "5", cells
    assert stack.query("SELECT count(*) FROM submissions_submission") == before
    assert stack.query("SELECT count(*) FROM submissions_runfile") == [(1,)]
