"""A competition's generated "How to submit" page: served by this app, among the competition's
pages (competitions:how_to_submit), because it shows the viewer's team's limits left
(quota.py); the guide itself is the competition's (competitions/submitting.py)."""
from dataclasses import replace

from django.shortcuts import render
from django.views.decorators.http import require_GET

from cupboard.competitions import submitting
from cupboard.competitions.access import competition_viewer
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.competitions.pages import page_links
from cupboard.competitions.run_metadata import metadata_fields
from cupboard.links import site_url

from .quota import quota_status


@anonymous_cached()
@require_GET
def how_to_submit(request, slug: str):
    """Run format with an example on a phase's real topic ids, file names, the exact CLI command
    per phase and how to get it, the viewer's team's limits left today, and the downloads."""
    viewer = competition_viewer(request, slug)
    server = site_url()
    guides = submitting.phase_guides(viewer, server=server)
    if viewer.team is not None:
        guides = [replace(guide, quota=quota_status(phase=guide.phase, team=viewer.team, now=viewer.now))
                  for guide in guides]
    return render(request, "competitions/how_to_submit.html", {
        "competition": viewer.competition, "scored_depth": viewer.competition.scored_depth(),
        "pages": page_links(viewer.competition), "current": "how-to-submit",
        "guides": guides, "team": viewer.team, "now": viewer.now,
        # a file name of this competition's (never MIRACL's sw for a collection without it)
        "file_example": next((guide.example_name for guide in guides if guide.example_name), ""),
        "server": server, "metadata_fields": metadata_fields(viewer.competition)})
