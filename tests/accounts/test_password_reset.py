"""Password reset by e-mail (Django's auth views on the site's templates), throttled like
log-in: per e-mail address and per client address, whether an account has the address or not."""
import re

import pytest
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse

from tests.factories import make_user

pytestmark = pytest.mark.django_db


def ask(email: str, *, address: str = "192.0.2.1"):
    return Client(REMOTE_ADDR=address).post(reverse("accounts:password_reset"), {"email": email})


def test_the_mailed_link_sets_a_new_password_once():
    make_user("ada", password="old-password", email="ada@example.org")
    response = ask("ada@example.org")
    assert response.status_code == 302 and response["Location"] == reverse("accounts:password_reset_done")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["ada@example.org"]
    assert mail.outbox[0].subject == "Reset your cupboard password"
    link = re.search(r"https?://[^/\s]+(/accounts/password-reset/\S+/)", mail.outbox[0].body).group(1)
    client = Client()
    form = client.get(link, follow=True)  # Django swaps the token for a session and redirects
    assert form.status_code == 200 and "Set the password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "a new long password 7",
                                                    "new_password2": "a new long password 7"})
    assert done.status_code == 302 and done["Location"] == reverse("accounts:password_reset_complete")
    assert Client().login(username="ada", password="a new long password 7")
    again = Client().get(link, follow=True).content.decode()
    assert "This link does not work" in again


def test_an_unknown_address_gets_the_same_answer_and_no_mail():
    response = ask("nobody@example.org")
    assert response.status_code == 302 and response["Location"] == reverse("accounts:password_reset_done")
    assert not mail.outbox


@override_settings(CUPBOARD_RATES={"reset-account": "2/h", "reset-address": "4/h", "login-account": "10/15m",
                                   "login-account-any": "50/15m", "signup-address": "10/h",
                                   "team-create-address": "10/h", "api-token": "60/m"})
def test_it_is_throttled_per_email_and_per_client_address():
    make_user("ada", email="ada@example.org")
    assert [ask("Ada@example.org", address=f"192.0.2.{i}").status_code for i in range(3)] == [302, 302, 429]
    assert len(mail.outbox) == 2
    refused = ask("ada@example.org", address="198.51.100.7")
    assert refused.status_code == 429 and "Too many password resets" in refused.content.decode()
    # One address asking for many accounts is stopped too.
    statuses = [ask(f"someone{i}@example.org", address="203.0.113.5").status_code for i in range(5)]
    assert statuses == [302, 302, 302, 302, 429]


def test_the_log_in_page_links_it():
    page = Client().get(reverse("accounts:login")).content.decode()
    assert f'href="{reverse("accounts:password_reset")}">Forgot your password?' in page


def test_a_reset_revokes_the_api_token():
    """Whoever knew the old password may have made a token: the new password ends it too."""
    from cupboard.accounts.services import api_token_create

    user = make_user("ada", password="old-password", email="ada@example.org")
    token = api_token_create(user=user)
    status = reverse("submissions:api_status", args=[999999])
    assert Client(HTTP_AUTHORIZATION=f"Token {token}").get(status).status_code == 404  # works: no such submission
    ask("ada@example.org")
    link = re.search(r"https?://[^/\s]+(/accounts/password-reset/\S+/)", mail.outbox[0].body).group(1)
    client = Client()
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": "a new long password 7",
                                             "new_password2": "a new long password 7"})
    assert Client().login(username="ada", password="a new long password 7")
    assert Client(HTTP_AUTHORIZATION=f"Token {token}").get(status).status_code == 401


def test_the_link_is_on_the_site_s_address_whatever_host_was_asked(settings):
    settings.SITE_URL, settings.ALLOWED_HOSTS = "https://cup.example.org", ["*"]
    make_user("ada", email="ada@example.org")
    Client(HTTP_HOST="evil.example:8080").post(reverse("accounts:password_reset"), {"email": "ada@example.org"})
    body = mail.outbox[0].body
    assert re.search(r"https://cup\.example\.org/accounts/password-reset/\S+/\S+/", body) and "evil" not in body
