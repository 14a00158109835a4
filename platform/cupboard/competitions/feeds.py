"""A competition's public events as an Atom feed (Django's syndication framework): phases
opened, surprise languages revealed, private leaderboards published, dates, limits or metrics
changed by a new version of the definition.

The events are derived from the clock, as the pages are (nothing is written when an instant
passes), except a change, which is read from its public audit entry; and read through an anonymous visitor's `Viewer` whoever asks: a feed reader is
anonymous, and a feed is cached and shared, so it holds only what anyone may know. A reveal
still to come is not an event; a surprise language is named only from its reveal on.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed

from cupboard.audit.models import AuditEvent
from cupboard.competitions.models import Competition, Phase
from cupboard.links import absolute

from .viewer import Viewer


@dataclass(frozen=True)
class PublicEvent:
    kind: str  # phase_opened | languages_revealed | leaderboard_published | definition_changed
    key: str  # unique within the competition
    at: datetime
    title: str
    text: str
    url: str


def _phase_events(viewer: Viewer, phase: Phase) -> list[PublicEvent]:
    board = reverse("leaderboards:phase", args=[viewer.competition.slug, phase.slug])
    events = []
    if phase.opens_at <= viewer.now:
        events.append(PublicEvent(
            "phase_opened", f"phase-{phase.pk}-opened", phase.opens_at, f"{phase.name} opened",
            f"{phase.name} accepts submissions until {phase.closes_at:%Y-%m-%d %H:%M} UTC.", board))
    if phase.visibility != Phase.Visibility.LIVE and phase.reveal_at and phase.is_revealed(viewer.now):
        events.append(PublicEvent(
            "leaderboard_published", f"phase-{phase.pk}-published", phase.reveal_at,
            f"Leaderboard of {phase.name} published", f"The leaderboard of {phase.name} is public.", board))
    return events


def public_events(competition: Competition, *, now: datetime | None = None) -> list[PublicEvent]:
    """Everything public that has happened in the competition, newest first."""
    viewer = Viewer(AnonymousUser(), competition, now or timezone.now())
    events = [event for phase in competition.phases.order_by("position") for event in _phase_events(viewer, phase)]
    for entry in viewer.groups():
        group = entry["group"]
        if group.reveal_at is None:
            continue  # visible from the start: never "revealed"
        names = ", ".join(f"{s.name} ({s.code})" for s in entry["subsets"])
        events.append(PublicEvent(
            "languages_revealed", f"group-{group.pk}-revealed", group.reveal_at,
            f"{group.name.capitalize()} languages revealed: {names}",
            f"Topics for {names} can be downloaded and runs submitted; the leaderboards show {group.label}.",
            competition.get_absolute_url()))
    events += _change_events(competition)
    return sorted(events, key=lambda e: (e.at, e.key), reverse=True)


def _change_events(competition: Competition) -> list[PublicEvent]:
    """The public lines of each definition change (dates, limits, metrics: competitions/changes.py)."""
    entries = AuditEvent.objects.filter(competition=competition, is_public=True,
                                        action=AuditEvent.Action.DEFINITION_CHANGED)
    return [PublicEvent("definition_changed", f"change-{entry.pk}", entry.created_at,
                        f"Changed in version {entry.details.get('version')}: " + "; ".join(entry.details["changes"]),
                        "\n".join(entry.details["changes"]), competition.get_absolute_url())
            for entry in entries]


class CompetitionEventsFeed(Feed):
    """/c/<slug>/events.atom: for everyone who may see the competition (a draft: its organizers)."""

    feed_type = Atom1Feed

    def get_object(self, request, slug: str) -> Competition:
        from .access import competition_viewer

        return competition_viewer(request, slug).competition

    def title(self, competition: Competition) -> str:
        return f"{competition.title}: public events"

    def link(self, competition: Competition) -> str:
        return competition.get_absolute_url()

    def subtitle(self, competition: Competition) -> str:
        return "Phases opened, surprise languages revealed, leaderboards published, deadlines and limits changed."

    def items(self, competition: Competition) -> list[PublicEvent]:
        return public_events(competition)

    def item_title(self, event: PublicEvent) -> str:
        return event.title

    def item_description(self, event: PublicEvent) -> str:
        return event.text

    def item_link(self, event: PublicEvent) -> str:
        return event.url

    def item_guid(self, event: PublicEvent) -> str:
        """An absolute IRI, as Atom's <id> must be (RFC 4287 4.2.6), on the site's own address
        (CUPBOARD_SITE_URL), so it stays the same whichever host name a reader used."""
        return f"{absolute(event.url)}#{event.key}"

    item_guid_is_permalink = False

    def item_pubdate(self, event: PublicEvent) -> datetime:
        return event.at

    def item_updateddate(self, event: PublicEvent) -> datetime:
        return event.at
