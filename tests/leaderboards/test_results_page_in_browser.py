"""The results page of a revealed final phase in Debian's chromium at 1366 and 390 px: the
paper's table preview with its marks, metadata columns picked with a tick, the archive's
download (its bytes hash to the SHA-256 shown) and citation; nothing wider than the screen,
no console error."""
import hashlib

import pytest
from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.leaderboards.archive import results_archive_build, results_archive_create
from cupboard.leaderboards.models import ResultsArchive
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.services import leaderboard_refresh
from tests.browser import chromium, page_width, too_wide, watch_errors
from tests.factories import make_qrels_release
from tests.leaderboards.test_results_archive import _run
from tests.submissions.conftest import JUDGMENTS, _worlds, world  # noqa: F401 - a fixture

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PATH = "/c/cup/test-b/results/"


@pytest.fixture
def published(world, live_server):
    """Test B closed and revealed a moment ago, its results frozen and an archive built."""
    world.competition.run_metadata = [{"name": "training", "label": "Training data", "type": "choice",
                                       "choices": [["zero-shot", "Zero-shot"], ["trained", "Trained"]]}]
    world.competition.save()
    make_qrels_release(world.test_b, JUDGMENTS)
    _run(world, team=world.team_a, user=world.participant, tag="dense", consent=True)
    _run(world, team=world.team_b, user=world.outsider, tag="sparse", consent=False)
    _run(world, team=None, user=world.organizer, tag="bm25", consent=False, baseline=True)
    leaderboard_refresh(phase=world.test_b)
    now = timezone.now()
    Phase.objects.filter(pk=world.test_b.pk).update(closes_at=now, reveal_at=now)
    final_results_release_due(now=now)
    results_archive_build(archive_id=results_archive_create(phase=world.test_b, actor=world.organizer).pk)
    archive = ResultsArchive.objects.select_related("phase__competition").get(status="done")
    return live_server.url, archive.filename, archive.sha256  # read here: no database call under playwright


@pytest.mark.parametrize("width", [1366, 390])
def test_the_results_page_fits_and_serves_its_tables_and_archive(published, width, tmp_path):
    base, filename, sha256 = published
    with chromium() as browser:
        page = browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True).new_page()
        errors = watch_errors(page, failed_requests=True)
        assert not too_wide(page, base, [PATH], width)
        header = page.locator("table.paper-preview thead th").all_inner_texts()
        assert header[:5] == ["Rank", "Band", "Tier", "Team", "Run"] and header[-1] == "Avg"
        assert page.locator("table.paper-preview tbody tr").count() == 3
        assert "Training data" not in header
        page.check("input[name=meta][value=training]")
        page.click("form.paper-columns button")
        page.wait_for_selector("table.paper-preview thead th:text-is('Training data')")
        assert "meta=training" in page.get_attribute("a:text-is('averages.tex')", "href")
        assert page_width(page) <= width
        assert sha256 in page.inner_text(".results-archive")
        assert "@misc{cup-test-b-results-v1," in page.inner_text("pre.bibtex")
        with page.expect_download() as caught:
            page.click(f"a:text('Download {filename}')")
        saved = tmp_path / "archive.zip"
        caught.value.save_as(saved)
        assert hashlib.sha256(saved.read_bytes()).hexdigest() == sha256
        if width == 390:
            page.screenshot(path=str(tmp_path / "results-390.png"), full_page=True)
        assert not errors, errors
