"""A new version of a competition's definition was applied (competitions/services.py): once it
is committed, the teams hear of every deadline or limit it moved (mail, notifications app), and
reminders recorded for a close that moved are withdrawn, so nobody is told an old time. The
diff's public lines are in the audit log and the Atom feed already (the load wrote them). New
metrics (a relevance level, a scoring depth) re-score every phase's runs, each phase as one step
(leaderboards/rescoring.py); a new primary metric (or missing-subset rule) alone rebuilds the boards."""
from cupboard import events
from cupboard.competitions.changes import Change
from cupboard.competitions.events import DefinitionChanged
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.notifications.services import deadline_reminders_withdraw, notify_definition_changed
from cupboard.submissions.models import Submission
from cupboard.submissions.services import phase_rescore

# What the stored scores are computed with (a change makes them stale), and what only the
# rows are computed with from those scores.
SCORED_WITH = {"metrics", "relevance_level", "scoring_depth"}
RANKED_WITH = {"primary_metric", "missing_subset"}
PHASE_SCORED_WITH = {"residual_of"}


def _told(changes: list[Change]) -> list[Change]:
    return [change for change in changes if change.public and change.tells_teams]


def tell_teams(event: DefinitionChanged) -> None:
    """The follow-up: the teams' mail of what moved (its event holds only those dates and
    limits), in words with each phase's name ("Test B (final): uploads close ..."), not key paths."""
    competition = event.competition
    names = {p.slug: p.name for p in competition.phases.all()}
    notify_definition_changed(competition=competition, version=competition.config_version,
                              lines=[change.words(names) for change in event.changes])


def _tell_teams_later(event: DefinitionChanged) -> None:
    # Not after_commit: that would store the whole diff, any value a definition holds; the
    # follow-up stores only what it tells (dates and limits).
    if told := _told(event.changes):
        events.follow_up(tell_teams, "the teams' mail of what moved",
                         DefinitionChanged(competition=event.competition, changes=told))


def _withdraw_reminders(event: DefinitionChanged) -> None:
    moved = {change.path.split(".")[1] for change in event.changes
             if change.path.startswith("phases.") and change.key == "closes_at"}
    for phase in event.competition.phases.filter(slug__in=moved):
        deadline_reminders_withdraw(phase=phase)


def _scoring_changes(changes: list[Change]) -> list[Change]:
    return [change for change in changes if change.path in SCORED_WITH | RANKED_WITH
            or (change.path.startswith("phases.") and change.key in PHASE_SCORED_WITH)]


def _rescore_later(event: DefinitionChanged) -> None:
    if scoring := _scoring_changes(event.changes):
        events.follow_up(rescore, "the re-scoring of the phases",
                         DefinitionChanged(competition=event.competition, changes=scoring))


def rescore(event: DefinitionChanged) -> None:
    """The follow-up: each phase re-scored as one step, or its board rebuilt (its event holds
    only the scoring changes)."""
    changes, competition = event.changes, event.competition
    keys = {change.path for change in changes if change.path in SCORED_WITH | RANKED_WITH}
    # a phase's own scoring keys: its residual collection (what its runs lose before scoring)
    own = {change.path.split(".")[1]: change.key for change in changes
           if change.path.startswith("phases.") and change.key in PHASE_SCORED_WITH}
    for phase in competition.phases.all():
        why = sorted(keys & SCORED_WITH) + ([f"phases.{phase.slug}.{own[phase.slug]}"] if phase.slug in own else [])
        if why:
            if phase.submissions.filter(status__in=(Submission.Status.SCORED, Submission.Status.QUEUED)).exists():
                phase_rescore(phase=phase, actor=None,
                              reason=f"{' and '.join(why)} changed in definition v{competition.config_version}")
        elif keys:
            leaderboard_refresh(phase=phase)  # the same scores, ranked on another metric


def connect() -> None:
    events.handle(DefinitionChanged, _withdraw_reminders, _tell_teams_later, _rescore_later)
