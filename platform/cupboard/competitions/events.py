"""What happens to a competition's schedule, definition, judgments and topics (cupboard/events.py),
sent in the organizer's transaction; what follows each is listed in cupboard/flows/."""
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser

from cupboard.events import Event

from .changes import Change
from .models import Competition, Phase, QrelsRelease, SubsetGroup, TopicsVersion


@dataclass(frozen=True)
class PhaseScheduleChanged(Event):
    """What its ranks count changed (schedule.py, board_rules.py)."""

    phase: Phase


@dataclass(frozen=True)
class GroupRevealChanged(Event):
    group: SubsetGroup


@dataclass(frozen=True)
class QrelsReleaseRemoved(Event):
    """A release nobody saw was removed: the judgments under the phase's scores changed."""

    phase: Phase


@dataclass(frozen=True)
class DefinitionChanged(Event):
    """A new version of its definition was applied (services.py competition_load), in the load's
    transaction: `changes` is the diff (changes.py), never empty."""

    competition: Competition
    changes: list[Change]


@dataclass(frozen=True)
class QrelsReleased(Event):
    """A new version of a phase's judgments (services.py qrels_release_create): `uploaded`, the
    subset codes of its new files (the others are carried from `previous`, None for a phase's first)."""

    phase: Phase
    release: QrelsRelease
    actor: AbstractBaseUser | None
    uploaded: list[str]
    previous: QrelsRelease | None


@dataclass(frozen=True)
class TopicsChanged(Event):
    """A new topics version changed queries that were stored before (topic_files.py
    topics_import_files); `rescore`: runs were checked against the old queries and the organizer
    chose to score them again (else there were none)."""

    phase: Phase
    version: TopicsVersion
    actor: AbstractBaseUser | None
    rescore: bool
