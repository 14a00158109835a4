"""A person changes their own password and e-mail address from the profile; both ask for the
current password, and a wrong one changes nothing."""
import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import reverse

from cupboard.accounts.models import ApiToken
from cupboard.accounts.services import api_token_create

pytestmark = pytest.mark.django_db

PASSWORD = "an-Old-passw0rd"


@pytest.fixture
def signed_in():
    user = User.objects.create_user("hana", email="hana@example.org", password=PASSWORD)
    client = Client()
    client.force_login(user)
    return user, client


def test_the_profile_links_both_changes(signed_in):
    page = signed_in[1].get(reverse("accounts:profile")).content.decode()
    assert reverse("accounts:password_change") in page and reverse("accounts:email_change") in page
    assert "hana@example.org" in page and "--meta NAME=VALUE" in page


def test_a_new_password_needs_the_old_one_and_keeps_the_session(signed_in):
    user, client = signed_in
    url, new = reverse("accounts:password_change"), "a-New-passw0rd-2"
    wrong = client.post(url, {"old_password": "nope", "new_password1": new, "new_password2": new})
    assert wrong.status_code == 200 and "Your old password was entered incorrectly" in wrong.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD)

    page = client.post(url, {"old_password": PASSWORD, "new_password1": new, "new_password2": new}, follow=True)
    assert page.redirect_chain == [(reverse("accounts:profile"), 302)]
    assert "Your password was changed." in page.content.decode()
    user.refresh_from_db()
    assert user.check_password(new)
    assert client.get(reverse("accounts:profile")).status_code == 200  # still signed in


def test_a_new_address_needs_the_current_password(signed_in):
    user, client = signed_in
    url = reverse("accounts:email_change")
    wrong = client.post(url, {"email": "new@example.org", "password": "nope"})
    assert "That is not your current password." in wrong.content.decode()
    user.refresh_from_db()
    assert user.email == "hana@example.org"

    page = client.post(url, {"email": "new@example.org", "password": PASSWORD}, follow=True)
    assert "Mails now go to new@example.org." in page.content.decode()
    user.refresh_from_db()
    assert user.email == "new@example.org"


@pytest.mark.parametrize(("name", "field", "values"), [
    ("password_change", "old_password", {"new_password1": "a-New-passw0rd-2", "new_password2": "a-New-passw0rd-2"}),
    ("email_change", "password", {"email": "new@example.org"}),
])
def test_wrong_current_passwords_are_limited_then_even_the_right_one_waits(signed_in, name, field, values):
    """40 wrong, then the right one, changed the password (or the address) of a session left open."""
    user, client = signed_in
    url = reverse(f"accounts:{name}")
    with override_settings(CUPBOARD_RATES=settings.CUPBOARD_RATES | {"current-password-account": "5/15m"}):
        assert [client.post(url, values | {field: f"guess-{i}"}).status_code for i in range(5)] == [200] * 5
        refused = client.post(url, values | {field: PASSWORD})
        assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
        assert "Too many wrong current passwords" in refused.content.decode()
        # The other change checks the same secret: it waits too.
        other = "email_change" if name == "password_change" else "password_change"
        assert client.post(reverse(f"accounts:{other}"), {"password": PASSWORD, "old_password": PASSWORD}).status_code == 429
    user.refresh_from_db()
    assert user.check_password(PASSWORD) and user.email == "hana@example.org"


def test_a_new_password_ends_the_api_token_as_a_reset_does(signed_in):
    user, client = signed_in
    token = api_token_create(user=user)
    status = reverse("submissions:api_status", args=[999999])
    assert Client(HTTP_AUTHORIZATION=f"Token {token}").get(status).status_code == 404
    new = "a-New-passw0rd-2"
    page = client.post(reverse("accounts:password_change"),
                       {"old_password": PASSWORD, "new_password1": new, "new_password2": new}, follow=True)
    assert "API token, if you had one, was revoked" in page.content.decode()
    assert not ApiToken.objects.filter(user=user).exists()
    assert Client(HTTP_AUTHORIZATION=f"Token {token}").get(status).status_code == 401
