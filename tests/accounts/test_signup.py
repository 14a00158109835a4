"""Signing up lands somewhere that says what to do next: back where the person came from (an
invite, a competition), or on the list of competitions with the next step spelled out."""
import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

FORM = {"username": "newcomer", "email": "n@example.org", "password1": "a-Long-passw0rd",
        "password2": "a-Long-passw0rd"}


def test_a_new_account_without_a_next_page_is_told_the_next_step():
    page = Client().post(reverse("accounts:signup"), FORM, follow=True)
    assert page.redirect_chain == [(reverse("competitions:list"), 302)]
    assert "Welcome, newcomer. Open a competition below" in page.content.decode()
    assert "create a team there, or join one with the invite link" in page.content.decode()


def test_a_new_account_goes_back_where_it_came_from_and_is_greeted_there():
    page = Client().post(reverse("accounts:signup"), {**FORM, "next": "/accounts/profile/"}, follow=True)
    assert page.redirect_chain == [("/accounts/profile/", 302)]
    assert "Welcome, newcomer: you are signed in." in page.content.decode()
