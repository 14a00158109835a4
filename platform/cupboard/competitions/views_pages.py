"""A competition's own pages (the organizer's Markdown), and the archives its "How to submit" page
(submissions/views_guide.py) links: a phase's topics as one zip and a sample submission.

Visibility is the detail page's: the viewer's (competitions/viewer.py). An unpublished
competition is a 404 to non-organizers, and the guide and archives are built from
`selectors.phase_downloads`, so surprise languages stay out until their reveal.
"""
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_safe

from cupboard.competitions import submitting
from cupboard.competitions.access import competition_viewer, phase_viewer
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.competitions.pages import PAGES, RULES, page_links, render_markdown
from cupboard.competitions.ranking_rules import ranking_rules


@anonymous_cached()
@require_GET
def competition_page(request, slug: str, page: str):
    """One of the organizer's pages (overview, rules, data, evaluation, faq), rendered safely;
    a page the YAML does not fill is a 404, but for Rules, which always says how the
    leaderboards rank (competitions/ranking_rules.py) after the organizer's text."""
    competition = competition_viewer(request, slug).competition
    text = competition.pages.get(page)
    if page not in PAGES or not (text or page == RULES):
        raise Http404("No such page")
    return render(request, "competitions/page.html", {
        "competition": competition, "pages": page_links(competition), "current": page,
        "title": PAGES[page], "html": render_markdown(text) if text else "",
        "ranking_rules": ranking_rules(competition) if page == RULES else []})


def _zip(content: bytes | None, name: str) -> HttpResponse:
    if content is None:
        raise Http404("Nothing to download yet")
    response = HttpResponse(content, content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@anonymous_cached()
@require_safe
def topics_archive(request, slug: str, phase_slug: str):
    """Every topics file of a phase the viewer may download, as one zip."""
    viewer, phase = phase_viewer(request, slug, phase_slug)
    return _zip(submitting.topics_archive(viewer, phase), f"topics.{slug}.{phase_slug}.zip")


@anonymous_cached()
@require_safe
def sample_submission(request, slug: str, phase_slug: str):
    """Valid run files for the phase, one per language the viewer sees (made-up documents)."""
    viewer, phase = phase_viewer(request, slug, phase_slug)
    return _zip(submitting.sample_submission(viewer, phase), f"sample-submission.{slug}.{phase_slug}.zip")
