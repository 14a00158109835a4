"""A new version of a competition's definition was applied (competitions/services.py): once it
is committed, the teams hear of every deadline or limit it moved (mail, notifications app), and
reminders recorded for a close that moved are withdrawn, so nobody is told an old time. The
diff's public lines are in the audit log and the Atom feed already (the load wrote them)."""
from cupboard import events
from cupboard.events import after_commit
from cupboard.notifications.services import deadline_reminders_withdraw, notify_definition_changed


def _tell_teams(*, competition, changes) -> None:
    lines = [change.line() for change in changes if change.public and change.tells_teams]
    if lines:
        notify_definition_changed(competition=competition, version=competition.config_version, lines=lines)


def _withdraw_reminders(*, competition, changes) -> None:
    moved = {change.path.split(".")[1] for change in changes
             if change.path.startswith("phases.") and change.key == "closes_at"}
    for phase in competition.phases.filter(slug__in=moved):
        deadline_reminders_withdraw(phase=phase)


def connect() -> None:
    events.definition_changed.handled_by(_withdraw_reminders, after_commit(_tell_teams))
