"""Arabic and Persian on the judging page (issue 33, item 13), in chromium at 1366 and 390 px.
A competition in ar and fa, judged through the services the pages use (topics, judgments, a
team's run, a pool, a corpus, a round with one assessor per language): each task's query and
passage read right to left, the passage flush with the right edge of its box, while its English
title (as the demo's corpus has: "Article 1") and the page around them stay left to right.
Before, `dir="auto"` sat on the whole passage, whose first strong letter was the title's: an
Arabic passage with an English title was laid out left to right."""
from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from cupboard.competitions.assessors import assessor_add
from cupboard.competitions.services import qrels_release_create
from cupboard.judging.assessment import corpus_upload, judging_round_create
from cupboard.judging.pools import pool_export_build, pool_export_create
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.browser import page_width, signed_in_page, watch_errors
from tests.factories import make_competition, make_team, make_topics, make_user, qrels_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUERIES = {"ar": "ما هي عاصمة مصر؟", "fa": "پایتخت ایران کجاست؟"}
PASSAGES = {"ar": "القاهرة هي عاصمة مصر وأكبر مدنها، ويسكنها نحو 10 ملايين نسمة.",
            "fa": "تهران پایتخت ایران است و بیش از 8 میلیون نفر جمعیت دارد."}
DOCIDS = ("1#0", "2#0", "3#0")  # 1#0 judged already; the pool asks about 2#0 and 3#0

# The boxes of the element's text (one per run of one direction on a line) and the element's own
# content box: where the browser drew them.
LINES = """(element) => {
  const range = document.createRange();
  range.selectNodeContents(element);
  const box = element.getBoundingClientRect(), style = getComputedStyle(element);
  return {runs: [...range.getClientRects()].map((r) => ({left: r.left, right: r.right, top: Math.round(r.top)})),
          left: box.left + parseFloat(style.paddingLeft), right: box.right - parseFloat(style.paddingRight),
          direction: style.direction};
}"""


@pytest.fixture
def tasks(live_server):
    """{code: (the assessor's session cookie, the task's judging address)}."""
    organizer = make_user("organizer")
    competition = make_competition(slug="rtl", known=["ar", "fa"], surprise=[], organizers=[organizer])
    dev = competition.phases.get(slug="dev")
    for code, query in QUERIES.items():
        make_topics(dev, code, {"1": query})
    qrels_release_create(phase=dev, files={code: qrels_text({"1": {DOCIDS[0]: 1}}) for code in QUERIES},
                         actor=organizer)
    captain = make_user("captain")
    team = make_team(competition, name="فريق البحث 2", members=[captain])
    run = "".join(f"1 Q0 {docid} {rank} {10 - rank} rtl\n" for rank, docid in enumerate(DOCIDS, start=1)).encode()
    submission = submission_create(phase=dev, team=team, user=captain, method_name="بازیابی چندزبانه", files=[
        (SimpleUploadedFile(f"run.{code}.txt", run), code) for code in QUERIES])
    assert submission_score(submission_id=submission.pk) == "scored"
    export = pool_export_create(phase=dev, actor=organizer, depth=3)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    assessors = {code: make_user(f"assessor-{code}") for code in QUERIES}
    for code, person in assessors.items():
        assessor_add(competition=competition, username=person.username, actor=organizer)
        corpus = "".join(f"{docid}\tArticle {docid[0]}\t{PASSAGES[code]}\n" for docid in DOCIDS).encode()
        corpus_upload(phase=dev, subset=competition.subsets.get(code=code), file=io.BytesIO(corpus),
                      name=f"corpus.{code}.tsv", actor=organizer)
    judging_round = judging_round_create(export=export, assessors={c: [p] for c, p in assessors.items()}, overlap=0,
                                         actor=organizer)
    found = {}
    for task in judging_round.assignments.select_related("subset", "assessor"):
        client = Client()
        client.force_login(task.assessor)
        cookie = {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}
        found[task.subset.code] = (cookie, f"{live_server.url}/c/rtl/judge/{task.pk}/")
    assert sorted(found) == ["ar", "fa"]
    return found


def _lines(drawn: dict) -> list[tuple[float, float]]:
    """(left, right) of each line of text, top to bottom, from its runs' boxes."""
    lines: dict[int, list[dict]] = {}
    for run in drawn["runs"]:
        lines.setdefault(run["top"], []).append(run)
    return [(min(r["left"] for r in runs), max(r["right"] for r in runs)) for _, runs in sorted(lines.items())]


@pytest.mark.parametrize("width", [1366, 390])
@pytest.mark.parametrize("code", ["ar", "fa"])
def test_the_query_and_passage_read_right_to_left_in_a_left_to_right_page(tasks, code, width):
    cookie, url = tasks[code]
    with signed_in_page(cookie, width) as page:
        errors = watch_errors(page, failed_requests=True)
        assert page.goto(url).status == 200
        assert page.evaluate("getComputedStyle(document.body).direction") == "ltr"
        query = page.locator("h2.query bdi")
        assert query.inner_text() == QUERIES[code] and query.evaluate("e => e.matches(':dir(rtl)')")
        assert page.locator("h2.query").evaluate("e => e.matches(':dir(ltr)')")  # "Query:" stays on the left

        text = page.locator("article.passage p").evaluate(LINES)
        assert page.locator("article.passage p").inner_text() == PASSAGES[code]
        lines = _lines(text)
        assert text["direction"] == "rtl" and lines, text
        for _, right in lines:  # every line starts at the right edge
            assert abs(right - text["right"]) <= 2, f"a line ends at {right}, the box at {text['right']}"
        assert lines[-1][0] > text["left"] + 20, "the last line is not flush right"

        title = page.locator("article.passage h3").evaluate(LINES)
        assert title["direction"] == "ltr" and abs(_lines(title)[0][0] - title["left"]) <= 2, title
        assert page_width(page) <= width
        assert errors == []
