"""Organizers message every team of a competition by e-mail (Django's mail framework, through
the worker like every mail: notifications/): one message per member, nobody sees another's
address, audited; errors keep the text; members who turned these off get none."""
from django.core import mail
from django.urls import reverse

from cupboard.audit.models import AuditEvent
from cupboard.notifications.preferences import mail_preferences_set
from tests.factories import make_team, make_user
from tests.notifications.sending import send_recorded
from tests.personas import client_for


def url(competition):
    return reverse("competitions:manage_message", args=[competition.slug])


def test_every_member_of_every_team_gets_one_message(world):
    make_team(world.other_competition, members=[make_user("elsewhere")])  # another competition: not written to
    response = client_for(world.organizer).post(url(world.competition),
                                                   {"subject": "Two days left", "body": "Test B closes on Friday.",
                                                    "action": "send"})
    assert response.status_code == 302 and not mail.outbox  # the worker sends it, after COMMIT
    assert send_recorded() == {"sent": 3, "skipped": 0, "failed": 0}
    assert sorted(m.to[0] for m in mail.outbox) == ["outsider@example.org", "participant@example.org",
                                                     "teammate@example.org"]
    assert all(len(m.to) == 1 and not m.cc and not m.bcc for m in mail.outbox)
    assert mail.outbox[0].subject == f"[{world.competition.title}] Two days left"
    assert "Test B closes on Friday." in mail.outbox[0].body
    assert f"The organizers of {world.competition.title}" in mail.outbox[0].body
    event = AuditEvent.objects.get(action=AuditEvent.Action.TEAMS_MESSAGED)
    assert event.details == {"subject": "Two days left", "people": 3, "teams": 2} and event.actor == world.organizer


def test_a_missing_text_is_named_and_the_subject_kept(world):
    response = client_for(world.organizer).post(url(world.competition), {"subject": "Two days left"})
    page = response.content.decode()
    assert response.status_code == 400 and "Text</label>: Write the text of the message." in page
    assert 'value="Two days left"' in page and not mail.outbox and not AuditEvent.objects.exists()


def test_participants_and_other_organizers_get_a_403(world):
    for user in (world.participant, world.other_organizer):
        response = client_for(user).post(url(world.competition), {"subject": "x", "body": "y", "action": "send"})
        assert response.status_code == 403
    assert not mail.outbox


def test_a_member_who_turned_them_off_gets_none(world):
    mail_preferences_set(user=world.teammate, wanted={"message": False})
    client_for(world.organizer).post(url(world.competition), {"subject": "Two days left", "body": "Hurry.",
                                                            "action": "send"})
    send_recorded()
    assert sorted(m.to[0] for m in mail.outbox) == ["outsider@example.org", "participant@example.org"]
    assert AuditEvent.objects.get(action=AuditEvent.Action.TEAMS_MESSAGED).details["people"] == 2


def test_a_post_previews_the_mail_and_sends_nothing(world):
    """The send button is on the preview only: a message to every team cannot be taken back."""
    assert 'value="send"' not in client_for(world.organizer).get(url(world.competition)).content.decode()
    response = client_for(world.organizer).post(url(world.competition), {"subject": "Two days left",
                                                                        "body": "Test B <closes> on Friday."})
    page = response.content.decode()
    assert response.status_code == 200 and 'id="message-preview"' in page
    assert f"[{world.competition.title}] Two days left" in page and "Test B &lt;closes&gt; on Friday." in page
    assert f"The organizers of {world.competition.title}" in page
    assert 'value="send"' in page and "Send to every team (3 people)" in page
    assert send_recorded() == {"sent": 0, "skipped": 0, "failed": 0} and not mail.outbox
    assert not AuditEvent.objects.exists()


def test_send_to_me_only_reaches_the_organizer_alone(world):
    response = client_for(world.organizer).post(url(world.competition), {"subject": "Two days left",
                                                                        "body": "Hurry.", "action": "test"})
    assert response.status_code == 200 and 'id="message-preview"' in response.content.decode()
    assert send_recorded() == {"sent": 1, "skipped": 0, "failed": 0}
    assert [m.to for m in mail.outbox] == [[world.organizer.email]]
    assert mail.outbox[0].subject == f"[{world.competition.title}] Two days left" and "Hurry." in mail.outbox[0].body
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.TEAMS_MESSAGED).exists()


def test_send_to_me_only_without_an_address_says_so(world):
    type(world.organizer).objects.filter(pk=world.organizer.pk).update(email="")
    response = client_for(world.organizer).post(url(world.competition), {"subject": "x", "body": "y", "action": "test"})
    assert response.status_code == 400 and "has no e-mail address" in response.content.decode()
    assert send_recorded() == {"sent": 0, "skipped": 0, "failed": 0}
