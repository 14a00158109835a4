"""A person changes their own password and e-mail address from the profile; both ask for the
current password, and a wrong one changes nothing."""
import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

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
