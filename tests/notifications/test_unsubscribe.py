"""Turning mails off: per kind on the profile page, and by the link in every mail (a GET
asks, a POST turns off; mail clients POST to it directly, RFC 8058)."""
from django.core import mail
from django.test import Client
from django.urls import reverse

from cupboard.notifications.models import MailPreference
from cupboard.notifications.preferences import mail_preferences, unsubscribe_token
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import good_sw, send_recorded, upload


def scored_mail(world):
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="BM25",
                                   files=[(upload("run.sw.txt", good_sw()), None)])
    submission_score(submission_id=submission.pk)
    send_recorded()
    return next(m for m in mail.outbox if m.to == ["participant@example.org"])


def test_the_link_in_a_mail_asks_then_turns_that_kind_off(world):
    message = scored_mail(world)
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    assert f"Stop these mails: {link}" in message.body
    path = link.removeprefix("http://127.0.0.1:8000")
    client = Client(enforce_csrf_checks=True)  # not logged in, no CSRF token: the signed link is enough
    page = client.get(path)
    assert page.status_code == 200 and "Stop these mails" in page.content.decode()
    assert mail_preferences(user=world.participant)["submission"]  # a GET changes nothing
    done = client.post(path, {"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and "no more mails" in done.content.decode()
    assert mail_preferences(user=world.participant) == {"submission": False, "deadline": True, "reveal": True,
                                                       "message": True, "change": True}


def test_a_forged_or_altered_link_is_a_404(world):
    token = unsubscribe_token(user=world.participant, kind="submission")
    other = unsubscribe_token(user=world.teammate, kind="submission")
    swapped = other.split(":")[0] + ":" + token.split(":")[1]  # the teammate's payload, the participant's signature
    for bad in (token[:-2] + "xx", swapped, "nonsense"):
        response = Client().post(reverse("notifications:unsubscribe", args=[bad]))
        assert response.status_code == 404
    assert not MailPreference.objects.exists()


def test_the_profile_page_turns_kinds_off_and_on(world):
    client = client_for(world.participant)
    page = client.get(reverse("accounts:profile")).content.decode()
    assert 'name="submission" value="on" checked' in page and "participant@example.org" in page
    response = client.post(reverse("notifications:preferences"), {"reveal": "on"})
    assert response.status_code == 302 and response["Location"].endswith("/accounts/profile/#mail")
    assert mail_preferences(user=world.participant) == {"submission": False, "deadline": False, "reveal": True,
                                                       "message": False, "change": False}
    page = client.get(reverse("accounts:profile")).content.decode()
    assert 'name="submission" value="on">' in page and 'name="reveal" value="on" checked' in page
