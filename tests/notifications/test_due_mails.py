"""The beat task's mails: 24 hours before a phase a team submitted to closes (once per team
and close: a close moved is reminded again), and when surprise languages are revealed (to the
competition's participants, naming the languages only from the reveal on)."""
from datetime import timedelta
from importlib import import_module

import time_machine
from django.apps import apps
from django.core import mail

from cupboard.competitions.models import SubsetGroup
from cupboard.notifications.models import Notification
from cupboard.notifications.services import notify_due
from cupboard.submissions.services import submission_create
from tests.factories import make_competition, make_team, make_user

from .conftest import good_sw, send_recorded, upload


def test_a_team_that_submitted_hears_once_a_day_before_the_phase_closes(world):
    submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                      files=[(upload("run.sw.txt", good_sw()), None)])
    closes = world.dev.closes_at
    with time_machine.travel(closes - timedelta(hours=25), tick=False):
        assert notify_due() == 0  # not yet
    with time_machine.travel(closes - timedelta(hours=23), tick=False):
        assert notify_due() == 2
        assert notify_due() == 0  # recorded: the beat task runs every few seconds
        send_recorded()
    assert sorted(m.to[0] for m in mail.outbox) == ["participant@example.org", "teammate@example.org"]
    assert f"closes {closes:%Y-%m-%d %H:%M} UTC" in mail.outbox[0].subject
    assert "http://127.0.0.1:8000/c/cup/dev/upload/" in mail.outbox[0].body
    # Team B submitted nothing: no reminder for the outsider.
    assert not Notification.objects.filter(user=world.outsider).exists()


def test_a_reminder_the_worker_reaches_only_after_the_close_is_not_sent(world):
    submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                      files=[(upload("run.sw.txt", good_sw()), None)])
    with time_machine.travel(world.dev.closes_at - timedelta(hours=1), tick=False):
        notify_due()
    with time_machine.travel(world.dev.closes_at + timedelta(minutes=1), tick=False):
        assert send_recorded() == {"sent": 0, "skipped": 2, "failed": 0}
    assert not mail.outbox


def test_participants_hear_of_a_reveal_with_the_languages_named(world):
    reveal_at = world.competition.groups.get(name="surprise").reveal_at
    elsewhere = make_competition(slug="elsewhere", surprise_reveal_at=reveal_at + timedelta(days=5))
    make_team(elsewhere, members=[make_user("elsewhere")])  # not a participant of ours
    with time_machine.travel(reveal_at - timedelta(seconds=1), tick=False):
        assert notify_due() == 0
    with time_machine.travel(reveal_at + timedelta(seconds=30), tick=False):
        assert notify_due() == 3 and notify_due() == 0
        send_recorded()
    assert sorted(m.to[0] for m in mail.outbox) == ["outsider@example.org", "participant@example.org",
                                                     "teammate@example.org"]
    assert "Yoruba (yo)" in mail.outbox[0].body and "S.Avg" in mail.outbox[0].subject


def test_an_old_reveal_is_not_news(world, settings):
    """A competition loaded after its reveal, or a scheduler down for a day, mails nothing late."""
    SubsetGroup.objects.filter(competition=world.competition, name="surprise").update(
        reveal_at=world.dev.opens_at)
    assert notify_due() == 0


def test_a_reveal_moved_later_before_the_send_names_nothing(world):
    group = world.competition.groups.get(name="surprise")
    with time_machine.travel(group.reveal_at + timedelta(seconds=1), tick=False):
        notify_due()
    SubsetGroup.objects.filter(pk=group.pk).update(reveal_at=group.reveal_at + timedelta(days=1))
    with time_machine.travel(group.reveal_at + timedelta(seconds=2), tick=False):
        assert send_recorded() == {"sent": 0, "skipped": 3, "failed": 0}
    assert not mail.outbox


def test_a_reminder_recorded_before_keys_held_the_close_is_not_sent_again(world):
    # The key of a reminder recorded by an older cupboard, as migration 0004 rewrites it.
    migration = import_module("cupboard.notifications.migrations.0004_deadline_keys_hold_the_close")
    submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                      files=[(upload("run.sw.txt", good_sw()), None)])
    with time_machine.travel(world.dev.closes_at - timedelta(hours=23), tick=False):
        assert notify_due() == 2
        old = Notification.objects.filter(kind="deadline")
        old.update(key=f"deadline:{world.dev.pk}:{world.team_a.pk}")
        migration.forwards(apps, None)
        assert notify_due() == 0
