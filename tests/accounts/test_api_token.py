"""API tokens: created on the profile page, shown once, stored only as a digest."""
import pytest
from django.contrib.sessions.models import Session
from django.urls import reverse

from cupboard.accounts.models import ApiToken, token_digest
from cupboard.accounts.selectors import token_in, user_from_token
from cupboard.accounts.services import api_token_create, api_token_revoke
from tests.factories import make_user
from tests.personas import client_for


@pytest.fixture
def user(db):
    return make_user("ada")


def test_it_stores_only_a_digest(user):
    raw = api_token_create(user=user)
    token = ApiToken.objects.get(user=user)
    assert token.digest == token_digest(raw) and raw not in (token.digest, token.prefix)


def test_it_reads_the_token_from_the_header_and_finds_its_user(user):
    raw = api_token_create(user=user)
    assert [token_in(header) for header in (f"Token {raw}", f"Bearer {raw}", f"  token\t {raw} ")] == [raw] * 3
    assert [token_in(header) for header in (f"Basic {raw}", "Token ", f"Token {raw} extra")] == [None] * 3
    assert token_in(f"Token {raw}", schemes=("bearer",)) is None  # the metrics scrape's Bearer alone
    assert user_from_token(raw) == user
    assert ApiToken.objects.get(user=user).last_used_at is not None


def test_it_refuses_revoked_tokens_and_inactive_users(user):
    raw = api_token_create(user=user)
    user.is_active = False
    user.save()
    assert user_from_token(raw) is None
    api_token_revoke(user=user)
    assert not ApiToken.objects.exists()


def test_it_shows_a_new_token_once_and_keeps_it_nowhere_in_clear(user):
    client = client_for(user)
    answer = client.post(reverse("accounts:token_create"))
    first = answer.content.decode()
    raw_prefix = ApiToken.objects.get(user=user).prefix
    assert raw_prefix in first and "Copy it now" in first and "no-store" in answer["Cache-Control"]
    shown = [line for line in first.splitlines() if 'class="token"' in line][0]
    raw = shown.split(">")[1].split("<")[0]
    assert user_from_token(raw) == user
    # Neither the session table nor the token table holds it.
    assert not any(raw in str(s.get_decoded()) or raw in s.session_data for s in Session.objects.all())
    assert not ApiToken.objects.filter(digest__contains=raw[3:]).exists()
    second = client.get(reverse("accounts:profile")).content.decode()
    assert 'class="token"' not in second and raw not in second


def test_it_needs_a_login(db):
    assert client_for(None).get(reverse("accounts:profile")).status_code == 302
