"""A new topics version changed a phase's queries (competitions/topic_files.py
`topics_import_files`): in the organizer's transaction, a new leaderboard version (the board
is scored on other queries from now on); follow-ups after the commit: the phase's runs scored again when
the organizer chose so, and the teams told what changed in the subsets they may see (a
surprise language's topics are nobody's news before its reveal)."""
from cupboard import events
from cupboard.competitions.events import TopicsChanged
from cupboard.competitions.topic_variants import variants
from cupboard.competitions.topics_changes import SubsetChange
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.services import leaderboard_bump
from cupboard.notifications.services import notify_topics_changed
from cupboard.submissions.services import phase_rescore


def _leaderboard_bump(event: TopicsChanged) -> None:
    leaderboard_bump(phase=event.phase)


def _rescore(event: TopicsChanged) -> None:
    if event.rescore:  # one step (leaderboards/rescoring.py): the board switches once every run is scored again
        phase_rescore(phase=event.phase, actor=event.actor, reason=f"topics change {event.version.number}")


def _tell_teams(event: TopicsChanged) -> None:
    phase, version = event.phase, event.version
    if phase.is_systems:
        return  # its teams never see its topics, nor which of them changed (cupboard/systems/)
    public = Viewer(None, phase.competition)
    seen = {subset.code for subset in public.subsets}
    several = len(variants(phase.competition)) > 1
    lines = [SubsetChange(**change).line(variants=several) for change in version.changes
             if change["subset"] in seen and (change["added"] or change["removed"] or change["changed"])]
    if lines and public.sees_competition:
        notify_topics_changed(phase=phase, version=version.number, lines=lines, rescored=version.rescored)


def connect() -> None:
    events.handle(TopicsChanged, _leaderboard_bump, events.after_commit(_rescore, "the re-scoring of the phase"),
                  events.after_commit(_tell_teams, "the teams' mail of the changed topics"))
