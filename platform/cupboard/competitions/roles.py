"""One role per person in a competition: its organizers and assessors never play in it.

An organizer sees every run and the hidden judgments, an assessor makes the judgments: either
in a team would score against answers they know. So naming an organizer or an assessor who
is in one of the competition's teams is refused, and so is creating or joining a team as one
of them. The two sides of each rule run in different requests, so every grant of a role
(naming organizers, naming an assessor, creating or joining a team) first locks the
competition row (`lock_roles`, level 4 of cupboard/locking.py): the second of two racing
grants waits, then sees the first's role and is refused.

The teams app is above this one: its rows are read through the competition's reverse
relation (`competition.teams`).
"""
from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError

from cupboard.competitions.models import Competition
from cupboard.locking import locked


def lock_roles(competition_id: int) -> None:
    """Lock the competition row until the transaction ends, before a role is granted (call
    inside `transaction.atomic()`, before any team row: the competition comes first)."""
    locked(Competition.objects.filter(pk=competition_id)).exists()


def teams_of(competition: Competition, users: Iterable) -> dict[int, str]:
    """{user id: name of their team in `competition`} for those of `users` in a team."""
    ids = [user.pk for user in users]
    found = competition.teams.filter(memberships__user__in=ids).values_list("memberships__user", "name")
    return dict(found)


def refuse_role_holder(*, competition: Competition, user) -> None:
    """Refuse a team for one of the competition's assessors or organizers (call under `lock_roles`)."""
    if competition.assessors.filter(pk=user.pk).exists():
        raise ValidationError("You are an assessor of this competition: an assessor judges its runs and cannot "
                              "be in one of its teams.", code="assessor")
    if competition.organizers.filter(pk=user.pk).exists():
        raise ValidationError("You are an organizer of this competition: an organizer sees its runs and judgments "
                              "and cannot be in one of its teams.", code="organizer")


def participant_organizers(competition: Competition, users: list) -> list[str]:
    """Why each of `users` (the organizers a definition or the admin names) cannot organize
    `competition`: "alice is in team Lab of this competition", by position; [] when none is."""
    if competition.pk is None:
        return []
    in_teams = teams_of(competition, users)
    return [f"organizers[{index}]: {user.username} is in team {in_teams[user.pk]} of this competition; "
            "a participant cannot organize it (they would see every run and the hidden judgments): "
            "remove them from the team first, or leave them out"
            for index, user in enumerate(users) if user.pk in in_teams]
