"""A participant's per-topic report in a real browser (Debian's chromium) at 1366 and 390 px:
from My submissions to the report, a language with a dozen topics (each labelled, no two labels
on top of each other) and one with 300 (a curve, names in the hover), the other measure, the
CSV; the page no wider than the screen, no console error."""
import pytest
from django.test import Client

from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from evaluator.synthetic import run_over_qrels
from tests.browser import signed_in_page, too_wide, watch_errors
from tests.factories import make_competition, make_qrels_release, make_team, make_topics, make_user

from .conftest import upload

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Tick labels of every chart's axes: how many are drawn, and whether two of one axis overlap.
TICKS = """() => [...document.querySelectorAll('.js-plotly-plot')].map((chart) => {
  const axes = {};
  for (const axis of ['xtick', 'ytick']) {
    const boxes = [...chart.querySelectorAll('.' + axis + ' text')].map((t) => t.getBoundingClientRect())
      .filter((b) => b.width > 0);
    axes[axis] = {count: boxes.length, overlaps: boxes.some((a, i) => boxes.slice(i + 1).some((b) =>
      a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1))};
  }
  const plot = chart.getBoundingClientRect();
  return {width: plot.width, points: chart.querySelectorAll('.scatterlayer .point').length, ...axes};
})"""


def _judgments(prefix: str, count: int) -> dict[str, dict[str, int]]:
    return {f"{prefix}{n}": {f"{n}{k}#0": int(k < 2) + int(k == 0) for k in range(4)} for n in range(1, count + 1)}


@pytest.fixture
def report_cookie(live_server) -> tuple[dict, int]:
    """Five teams' runs on a dev phase with 12 sw topics and 300 te topics, one participant of
    the first team logged in; (cookie, their run's id)."""
    competition = make_competition(slug="topics-cup", surprise=[])
    dev = competition.phases.get(slug="dev")
    judgments = {"sw": _judgments("", 12), "te": _judgments("te-", 300)}
    for code, found in judgments.items():
        make_topics(dev, code, list(found))
    make_qrels_release(dev, judgments)
    runs = []
    for seed in range(5):
        user = make_user(f"member{seed}")
        files = [(upload(f"run.{code}.txt", run_over_qrels(found, depth=10, seed=seed, found=0.5).encode()), None)
                 for code, found in judgments.items()]
        submission = submission_create(phase=dev, team=make_team(competition, name=f"Team {seed}", members=[user]),
                                       user=user, method_name=f"method {seed}", files=files)
        assert submission_score(submission_id=submission.pk) == "scored"
        runs.append(submission)
    client = Client()
    client.force_login(runs[0].team.memberships.get().user)
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}, runs[0].pk


@pytest.mark.parametrize("width", [1366, 390])
def test_a_participant_reads_the_per_topic_report_of_a_run(live_server, report_cookie, width):
    cookie, pk = report_cookie
    with signed_in_page(cookie, width) as page:
        errors = watch_errors(page, failed_requests=True)
        page.goto(f"{live_server.url}/c/topics-cup/mine/")
        page.click("text=per topic")
        page.wait_for_selector(".js-plotly-plot .scatterlayer")
        assert page.url.endswith(f"/submissions/{pk}/per-topic/")
        assert "5 runs" in page.inner_text("#per-topic")
        few = page.evaluate(TICKS)[0]
        assert few["xtick"]["count"] == 12 and not few["xtick"]["overlaps"] and not few["ytick"]["overlaps"]
        assert few["points"] == 24 and few["width"] <= width  # the run and the median, per topic
        assert page.locator("table.per-topic tbody tr").count() == 12

        page.click("nav[aria-label=Languages] >> text=te")
        page.wait_for_selector(".js-plotly-plot .scatterlayer")
        many = page.evaluate(TICKS)[0]
        assert many["xtick"]["count"] == 0 and many["points"] == 600 and many["width"] <= width
        assert page.locator("table.per-topic tbody tr").count() == 300
        page.click("nav[aria-label=Measures] >> text=R@100")
        assert "R@100 on each topic" in page.inner_text("#per-topic")

        with page.expect_download() as download:
            page.click("text=CSV: every language and measure")
        lines = open(download.value.path(), encoding="utf-8").read().splitlines()
        assert lines[0] == "language,topic,measure,run,best,median,worst" and len(lines) == 1 + 2 * (12 + 300)
        problems = too_wide(page, live_server.url, [f"/submissions/{pk}/per-topic/?subset=te",
                                                    f"/submissions/{pk}/per-topic/", "/c/topics-cup/mine/",
                                                    f"/submissions/{pk}/"], width)
    assert not problems and not errors, "\n".join(problems + errors)
