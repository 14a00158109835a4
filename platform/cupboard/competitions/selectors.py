"""Reads about competitions that span relations. Everything that decides what a viewer
may see of a competition's subsets goes through here, so surprise languages stay hidden
in one place."""
from django.utils import timezone

from cupboard.competitions.models import Competition, Phase, QrelsFile, QrelsRelease, Subset


def visible_subsets(competition: Competition, *, now=None, user=None) -> list[Subset]:
    """Subsets whose group is revealed at `now`; organizers see all of them."""
    subsets = list(competition.subsets.select_related("group").order_by("position", "code"))
    if user is not None and competition.is_organizer(user):
        return subsets
    now = now or timezone.now()
    return [s for s in subsets if s.group.is_revealed(now)]


def current_qrels_release(phase: Phase) -> QrelsRelease | None:
    """The newest judgments of a phase, which scoring uses."""
    return phase.qrels_releases.order_by("-number").first()


def qrels_files(release: QrelsRelease) -> dict[str, QrelsFile]:
    """subset code -> its qrels file in a release."""
    return {f.subset.code: f for f in release.files.select_related("subset")}
