"""A new version of a phase's judgments was released (competitions/services.py
`qrels_release_create`): in the organizer's transaction, the standings before the re-scoring
(for the release's "what changed") and a new leaderboard version (the qrels version shown
changed); after the commit, the phase's submissions are scored again."""
from cupboard import events
from cupboard.competitions.events import QrelsReleased
from cupboard.competitions.selectors import current_qrels_release
from cupboard.judging.standings import release_standings_record
from cupboard.leaderboards.services import leaderboard_bump
from cupboard.submissions.services import phase_rescore


def _standings_record(event: QrelsReleased) -> None:
    if event.previous is not None:  # a first release changes no standings
        release_standings_record(phase=event.phase, release=event.release, uploaded=event.uploaded,
                                 previous=event.previous)


def _leaderboard_bump(event: QrelsReleased) -> None:
    leaderboard_bump(phase=event.phase)


def _rescore(event: QrelsReleased) -> None:
    # Scored ones are scored again; queued ones may be waiting for exactly these judgments. Runs
    # already scored with the current judgments (made and scored in the release's own
    # transaction, as the demo loads a phase) need nothing: re-queuing them would only take
    # them off the board until a worker scored them to the same values.
    phase = event.phase
    behind = phase.submissions.filter(status__in=("scored", "queued")).exclude(
        status="scored", qrels_release=current_qrels_release(phase))
    if behind.exists():
        phase_rescore(phase=phase, actor=event.actor, reason=f"qrels v{event.release.number}")


def connect() -> None:
    events.handle(QrelsReleased, _standings_record, _leaderboard_bump,
                  events.after_commit(_rescore, "the re-scoring of the phase"))
