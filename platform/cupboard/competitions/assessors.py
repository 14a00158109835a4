"""Assessors: the people a competition's organizers name to judge its pools, and the labels
they give.

An assessor is never a participant of the same competition: naming a member of one of its
teams is refused here, and joining or creating a team as its assessor is refused by the
teams app (`roles.refuse_role_holder`); both lock the competition row first (roles.py). Whether someone is an assessor is a question of the Viewer
(`Viewer.is_assessor`), so every page asks it in one place. The judging itself (tasks, the
judging page, agreement) is the judging app's.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.bidi import isolate
from cupboard.competitions.models import Competition
from cupboard.competitions.roles import lock_roles, teams_of
from evaluator.schema import Fail, key

# Without `judging_labels` in the definition: binary judgments, as MIRACL's.
DEFAULT_LABELS = (
    {"value": 0, "name": "Not relevant", "description": "The passage does not answer the query."},
    {"value": 1, "name": "Relevant", "description": "The passage answers the query, at least in part."},
)


@dataclass(frozen=True, kw_only=True)
class LabelDef:
    """A label assessors give when judging in the browser (a digit key gives it): binary
    (0, 1) or graded (0-3, as MIRACL's guidelines grade). Without the list, 0 not relevant / 1 relevant."""

    value: int = key(minimum=0, help="the label in the qrels, 0 to 9 (its key on the judging page)")
    name: str = key(help="shown on the label's button")
    description: str = key("", help="what it means, under the name")

    def check(self, fail: Fail) -> None:
        if self.value is not None and self.value > 9:
            fail("value", f"must be 0 to 9 (a digit key gives it), not {self.value}")


def judging_labels(competition: Competition) -> list[dict]:
    """The labels an assessor chooses from, lowest first: [{"value", "name", "description"}]."""
    return sorted(competition.judging_labels or DEFAULT_LABELS, key=lambda label: label["value"])


def is_graded(competition: Competition) -> bool:
    """More than two labels: agreement is then measured on an ordinal scale too."""
    return len(judging_labels(competition)) > 2


@transaction.atomic
def assessor_add(*, competition: Competition, username: str, actor):
    """Name an existing account an assessor of `competition`, in the audit log as done by
    `actor` (None: cupboard itself); refused (ValidationError) for an unknown username and
    for a member of one of the competition's teams. Naming someone twice changes nothing."""
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise ValidationError(f"No account is called {username.strip()!r}.", code="unknown_user")
    lock_roles(competition.pk)  # a team join racing this one waits, then sees the assessor (roles.py)
    team = teams_of(competition, [user]).get(user.pk)
    if team is not None:
        raise ValidationError(f"{user.username} is in team {team} of this competition: a participant "
                              "cannot judge it.", code="participant")
    if not competition.assessors.filter(pk=user.pk).exists():
        competition.assessors.add(user)
        audit_record(competition=competition, actor=actor, action=AuditEvent.Action.ASSESSOR_ADDED,
                     summary=f"{isolate(user.username)} named an assessor", details=named("assessor", user.pk, user.username))
    return user


@transaction.atomic
def assessor_remove(*, competition: Competition, user, actor) -> None:
    """No longer an assessor (in the audit log as done by `actor`); the judgments they gave stay."""
    if competition.assessors.filter(pk=user.pk).exists():
        competition.assessors.remove(user)
        audit_record(competition=competition, actor=actor, action=AuditEvent.Action.ASSESSOR_REMOVED,
                     summary=f"{isolate(user.username)} no longer an assessor", details=named("assessor", user.pk, user.username))
