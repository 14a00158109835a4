"""Issue 17's "done when": each first-day journey walked in Debian's chromium, at a laptop's
1366 px and a phone's 390 px, by clicking what a person would click. Every page on the way
must fit the screen (no sideways scroll) and log no console or script error.

- Participant: a log-in form sent after its cookie was lost -> the site's own page saying so
  (not Django's bare 403) -> an invite link opened while logged out -> sign up -> back at the
  invite -> join the team -> Submit, on a form offering the one language the phase takes of
  the competition's two -> upload a run -> scored by a real Celery worker -> Compare with the
  organizers' baseline, its A - B and p-value columns on screen -> select it for the final
  ranking -> its score on the leaderboard, equal to `python -m evaluator score`'s.
- Organizer: log in -> organizer area -> Teams -> extra submissions for a team that never
  submitted -> a message to every team (an e-mail per member, sent by the worker through
  Django's file backend) ->
  re-score the final phase and watch its progress page until it is done -> export every
  submission of the phase as CSV.

One runserver and one worker (filesystem broker, SQLite) serve the module, as in
tests/e2e/stack.py. Each width is one test, the participant first, so the organizer's
re-score and export have a run to work on whichever xdist worker takes it.
"""
from __future__ import annotations

import csv
import io

import pytest

from evaluator import synthetic
from tests.browser import page_width, watch_errors
from tests.e2e.stack import Stack, expected_scores, make_data, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.worker]

WIDTHS = (1366, 390)
PASSWORD = "a long enough passphrase 42"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]

SETUP = """
from datetime import timedelta
from pathlib import Path
from django.core.files.base import ContentFile
from django.utils import timezone
from cupboard.competitions.services import qrels_release_create
from cupboard.submissions.services import submission_create
from cupboard.competitions.topic_files import topics_import
from tests.factories import make_competition, make_phase, make_team, make_user

folder, now = Path({folder!r}), timezone.now()
organizer = make_user("organizer", password={password!r})
# Two languages, the final phase taking one (yo has no topics in it): the upload form offers sw alone.
cup = make_competition(slug="cup", title="Journey Cup", known=["sw", "yo"], surprise=[], organizers=[organizer],
                       phases=False)
final = make_phase(cup, slug="final", name="Final", position=0, opens_at=now - timedelta(days=1),
                   closes_at=now + timedelta(days=20), is_final=True, ranking="selected", daily_limit=5)
topics_import(phase=final, subset="sw", file=folder / "topics.sw.tsv", name="topics.journey-sw-final.tsv")
qrels_release_create(phase=final, files={{"sw": folder / "qrels.sw.tsv"}}, actor=organizer)
make_team(cup, name="Quiet", members=[make_user("quiet")])  # never submits: the organizer's grant goes here
# The organizers' baseline, scored by the worker once it starts: what the participants compare with.
submission_create(phase=final, team=None, user=organizer, is_baseline=True, method_name="Baseline BM25",
                  files=[(ContentFile((folder / "run.base.sw.txt").read_bytes(), name="run.base.sw.txt"), "sw")])
for width in {widths!r}:
    team = make_team(cup, name=f"Lighthouse {{width}}", members=[make_user(f"captain{{width}}")])
    print("invite", width, team.invite_code)
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    folder = tmp_path_factory.mktemp("journeys")
    files = make_data(folder)
    synthetic.make_run(folder / "run.base.sw.txt", language="sw", count=30, tag="base", found=0.5)
    stack = Stack(folder)
    with stack:
        stack.migrate()
        out = stack.manage("shell", "-c", SETUP.format(folder=str(folder), password=PASSWORD, widths=WIDTHS))
        stack.invites = {int(w): code for _, w, code in (line.split() for line in out.splitlines()
                                                          if line.startswith("invite "))}
        stack.files = files
        stack.start_server()
        stack.start_worker()
        yield stack


@pytest.fixture(scope="module")
def browser(stack):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Walk:
    """A person at one screen width: `seen()` after each page checks its width and the console."""

    def __init__(self, browser, stack, width: int):
        self.url, self.width = stack.url, width
        self.context = browser.new_context(viewport={"width": width, "height": 800}, accept_downloads=True)
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)  # a loaded 2-core machine: a page may take seconds
        self.errors = watch_errors(self.page, failed_requests=True)
        self.problems: list[str] = []

    def seen(self) -> None:
        page = self.page
        path = page.url.removeprefix(self.url)
        wide = page_width(page)
        if wide > self.width:
            self.problems.append(f"{path} is {wide} px wide at {self.width} px")
        self.problems += [f"{path} at {self.width} px: {error}" for error in self.errors]
        self.errors.clear()

    def click(self, role: str, name: str, *, within: str = "main") -> None:
        self.follow(self.page.locator(within).get_by_role(role, name=name).first)

    def follow(self, target) -> None:
        """Click a link or a form's button and wait for the page it leads to to load, so that
        `seen()` measures that page and not the one being left."""
        with self.page.expect_navigation(wait_until="load"):
            target.click()
        self.seen()

    def text(self) -> str:
        return self.page.locator("main").inner_text()

    def close(self) -> None:
        self.context.close()
        assert not self.problems, "\n".join(self.problems)


@pytest.mark.parametrize("width", WIDTHS)
def test_the_first_day_journeys_fit_the_screen(stack, browser, width):
    a_participant_goes_from_an_invite_to_a_scored_run_selected_for_the_final(stack, browser, width)
    an_organizer_grants_messages_rescores_and_exports(stack, browser, width)


def a_participant_goes_from_an_invite_to_a_scored_run_selected_for_the_final(stack, browser, width: int) -> None:
    walk = Walk(browser, stack, width)
    page = walk.page
    a_form_sent_without_its_cookie_gets_the_sites_page(walk, stack)
    invite = f"{stack.url}/teams/join/{stack.invites[width]}/"
    page.goto(invite)
    walk.seen()
    assert page.locator("h1").inner_text() == "Log in"
    walk.click("link", "Sign up")
    page.fill("#id_username", f"ada{width}")
    page.fill("#id_email", f"ada{width}@example.org")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    walk.click("button", "Create account")
    assert page.url == invite  # the invite survived signing up
    walk.click("button", f"Join Lighthouse {width}")
    assert page.locator("h1").inner_text() == f"Lighthouse {width}" and f"ada{width}" in walk.text()

    walk.click("link", "Submit to Final")
    assert page.locator("select[name=subset] option").all_inner_texts() == ["from the file name", "sw Swahili"]
    page.set_input_files("input[name=files]", str(stack.files["run"]))
    page.fill("input[name=method_name]", f"BM25 at {width}")
    page.click("form.upload button[type=submit]")
    page.wait_for_url(f"{stack.url}/submissions/*/")
    walk.seen()

    def scored():
        page.reload()
        walk.seen()
        return page.locator("#state .status-value").inner_text().strip().lower() == "scored"
    wait_until(scored, every=1, what=lambda: f"the run to be scored\n{stack.log('worker')[-3000:]}")

    the_comparison_with_the_baseline_fits_the_screen(walk)
    walk.click("button", "Select for final")
    assert "This submission counts for the ranking of Final" in walk.text()

    page.goto(f"{stack.url}/c/cup/final/leaderboard/")
    walk.seen()
    headers = page.locator("table.leaderboard thead th").all_inner_texts()
    row = page.locator("table.leaderboard tbody tr", has_text=f"Lighthouse {width}")
    expected = expected_scores(stack.files)["subsets"]["sw"]["nDCG@10"]
    assert row.locator("td").nth(headers.index("sw")).inner_text().strip() == f"{expected:.3f}"
    walk.close()
    assert stack.query("SELECT s.status, s.selected_for_final FROM submissions_submission s "
                       "JOIN teams_team t ON t.id = s.team_id WHERE t.name = ?", f"Lighthouse {width}") == [("scored", 1)]


def a_form_sent_without_its_cookie_gets_the_sites_page(walk: Walk, stack) -> None:
    """A log-in page left open while its CSRF cookie went (cleared, expired): the site's 403
    page in the site's look, saying nothing was changed and what to do."""
    page = walk.page
    page.goto(f"{stack.url}/accounts/login/")
    walk.seen()
    walk.context.clear_cookies()
    page.fill("#id_username", "nobody")
    page.fill("#id_password", PASSWORD)
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        walk.click("button", "Log in")
    assert answer.value.status == 403
    assert page.locator("h1").inner_text() == "This form could not be accepted" and page.locator("header.site").is_visible()
    assert "nothing was changed" in walk.text()
    walk.problems = [p for p in walk.problems if not p.endswith("403 " + page.url)]  # the answer meant here


def the_comparison_with_the_baseline_fits_the_screen(walk: Walk) -> None:
    """From the scored run's page to Compare with the baseline: every column of the first
    row (the difference and the p-values too) inside the screen, at a phone's width as well."""
    page = walk.page
    run = page.url
    page.locator("#compare select[name=with]").select_option(
        page.locator("#compare option", has_text="Baseline BM25").get_attribute("value"))
    walk.follow(page.locator("#compare button[type=submit]"))
    cells = page.locator("table.comparison tbody tr").first.locator("td")
    assert page.locator("table.comparison tbody tr").first.locator("td.difference, td.p-value").count() == 3
    for index in range(cells.count()):
        box = cells.nth(index).bounding_box()
        assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= walk.width, \
            f"Compare's cell {index} at {box} is off a {walk.width} px screen"
    page.goto(run)
    walk.seen()


def an_organizer_grants_messages_rescores_and_exports(stack, browser, width: int) -> None:
    walk = Walk(browser, stack, width)
    page = walk.page
    page.goto(f"{stack.url}/accounts/login/")
    walk.seen()
    page.fill("#id_username", "organizer")
    page.fill("#id_password", PASSWORD)
    walk.click("button", "Log in")
    page.goto(f"{stack.url}/c/cup/")
    walk.seen()
    walk.click("link", "Organizer area")
    walk.click("link", "Teams")
    assert "Quiet" in walk.text()

    # A grant for the team that never submitted, from its row on the Teams page.
    walk.follow(page.locator("table.teams-overview tr", has_text="Quiet").get_by_role("link", name="grant submissions"))
    page.fill("input[name=extra]", "2")
    page.fill("[name=reason]", f"lost a day to a power cut ({width})")
    walk.click("button", "Grant")
    assert "Granted Quiet 2 extra submission(s) in Final." in walk.text()

    # A message to every team: one e-mail per member, in Django's file backend.
    walk.click("link", "Message every team (e-mail)")
    page.fill("[name=subject]", f"Final phase closes soon ({width})")
    page.fill("[name=body]", "Select up to two runs for the final ranking.")
    walk.click("button", "Preview")  # the send button is on the preview only
    assert "Select up to two runs" in page.locator("#message-preview").inner_text()
    walk.click("button", "Send to every team")
    assert "Message on its way to" in walk.text()
    members = stack.query("SELECT count(*) FROM teams_membership WHERE team_id IN (SELECT id FROM teams_team "
                          "WHERE competition_id = (SELECT id FROM competitions_competition WHERE slug = 'cup'))")[0][0]

    def mailed() -> bool:  # the worker sends them after COMMIT
        mail = "".join(p.read_text(errors="replace") for p in (stack.folder / "mail").glob("*.log"))
        return mail.count(f"Final phase closes soon ({width})") == members
    wait_until(mailed, every=1, what=lambda: f"{members} e-mails\n{stack.log('worker')[-3000:]}")

    # Re-score the final phase; the progress page reloads itself until the worker is done.
    scored_at = dict(stack.query("SELECT id, scored_at FROM submissions_submission"))
    walk.click("link", "Organizer area")
    walk.click("link", "Scoring and verification")
    walk.click("button", "Re-score the phase")
    assert page.url == f"{stack.url}/c/cup/manage/final/scoring/"
    assert "queued for scoring again" in walk.text()
    done = f"{len(scored_at)} of {len(scored_at)} done (100%)."

    def finished():
        walk.seen()
        return done in page.locator("#progress").inner_text()
    wait_until(finished, every=1, what=lambda: f"'{done}' on the progress page\n{stack.log('worker')[-3000:]}")
    again = dict(stack.query("SELECT id, scored_at FROM submissions_submission WHERE status = 'scored'"))
    assert again.keys() == scored_at.keys() and all(again[k] > scored_at[k] for k in scored_at)  # scored again

    # Export every submission of the phase.
    with page.expect_download() as download:
        page.get_by_role("link", name="Export every submission (CSV)").first.click()
    rows = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8-sig"))))
    ours = [row for row in rows if row["team"] == f"Lighthouse {width}"]
    assert [(r["method"], r["status"], r["selected_for_final"], r["members"]) for r in ours] == [
        (f"BM25 at {width}", "scored", "yes", f"ada{width} captain{width}")], ours
    expected = expected_scores(stack.files)["subsets"]["sw"]["nDCG@10"]
    assert float(ours[0]["sw nDCG@10"]) == pytest.approx(expected, abs=1e-9)
    walk.close()
