"""A competition created in the browser, at 1366 and 390 px: a staff member fills in a small
generic competition (two subsets, one average, nDCG@10 and R@100) with a page previewed as
it will show, confirms what it creates, uploads its topics and judgments through the file
input and sees the empty leaderboard; no page wider than the screen, no console error."""
from __future__ import annotations

import pytest
from django.test import Client

from cupboard.competitions.models import Competition
from tests.browser import (
    competition_form_check,
    competition_form_fill,
    competition_form_save,
    dev_files_upload,
    page_width,
    signed_in_page,
    watch_errors,
)
from tests.factories import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def staff_cookie(live_server) -> dict:
    client = Client()
    client.force_login(make_user("boss", is_staff=True))
    return {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}


@pytest.fixture
def files(tmp_path) -> dict:
    """Topics and judgments of each subset, named as published (the subset read from the name)."""
    made = {}
    for code in ("ha", "so"):
        topics = tmp_path / f"topics.small-{code}-dev.tsv"
        topics.write_text("".join(f"{code}{n}\tquery {n} in {code}\n" for n in range(1, 6)))
        qrels = tmp_path / f"qrels.small-{code}-dev.tsv"
        qrels.write_text("".join(f"{code}{n} Q0 doc-{code}-{n} 1\n" for n in range(1, 6)))
        made[code] = (topics, qrels)
    return made


@pytest.mark.parametrize("width", (1366, 390))
def test_a_small_generic_competition_is_created_filled_and_shows_its_empty_leaderboard(
        live_server, staff_cookie, files, width):
    base = live_server.url
    wide = {}
    with signed_in_page(staff_cookie, width) as page:
        errors = watch_errors(page)
        competition_form_fill(page, base, title="Small generic", slug="small", metrics="nDCG@10, R@100",
                              max_run_depth=100, subsets={"ha": "Hausa", "so": "Somali"},
                              page_overview="Passages in **Hausa** and Somali.")
        page.wait_for_selector("[data-preview-of=id_page_overview] strong:text-is('Hausa')")
        wide["form"] = page_width(page)
        competition_form_check(page)
        wide["confirm"] = page_width(page)
        competition_form_save(page, base, "small")
        for kind, index in (("topics", 0), ("qrels", 1)):
            dev_files_upload(page, base, "small", kind, [files[code][index] for code in ("ha", "so")])
        wide["manage"] = page_width(page)
        page.goto(base + "/c/small/dev/leaderboard/")
        board = page.locator("main").inner_text()
        wide["leaderboard"] = page_width(page)
    small = Competition.objects.get(slug="small")
    assert (small.metrics, list(small.groups.values_list("label", flat=True))) == (["nDCG@10", "R@100"], ["Avg"])
    assert {t.subset.code: t.query_count for t in small.phases.get().topic_sets.all()} == {"ha": 5, "so": 5}
    assert small.phases.get().qrels_releases.get().files.count() == 2
    assert "Scored against qrels version 1." in board and "No scored submissions yet." in board, board
    assert all(w <= width for w in wide.values()) and not errors, (wide, errors)


def test_topics_dropped_on_the_form_are_listed_with_their_subset_and_stored(live_server, staff_cookie):
    """The file input also takes a drop anywhere on the form: the dropped files join it, each
    listed with the subset read from its name, and the plain multipart upload stores them."""
    from cupboard.competitions.definition import EXAMPLES_DIR
    from cupboard.competitions.services import competition_load

    competition_load(data=EXAMPLES_DIR / "ciral-like.yaml")
    with signed_in_page(staff_cookie, 1366) as page:
        errors = watch_errors(page)
        page.goto(live_server.url + "/c/ciral-like/manage/dev/topics/")
        page.evaluate("""() => {
            const drop = new DataTransfer();
            for (const code of ["ha", "yo"]) {
                drop.items.add(new File([`${code}1\\tone\\n${code}2\\ttwo\\n`], `topics.ciral-${code}-dev.tsv`));
            }
            document.querySelector("form.upload").dispatchEvent(new DragEvent("drop", {dataTransfer: drop, bubbles: true}));
        }""")
        listed = page.locator("form.upload .chosen-files tbody tr").all_inner_texts()
        page.click("form.upload button[type=submit]")
        page.wait_for_url(live_server.url + "/c/ciral-like/manage/")
        message = page.locator("ul.messages").inner_text()
    assert [row.split("\t")[:2] for row in listed] == [["topics.ciral-ha-dev.tsv", "ha"], ["topics.ciral-yo-dev.tsv", "yo"]]
    assert "ha: 2 queries, SHA-256 " in message and "yo: 2 queries" in message and not errors, (message, errors)
