"""name_key: names that look alike share a key, names that differ do not."""
import pytest

from cupboard.accounts.lookalikes import name_key


@pytest.mark.parametrize("a, b", [
    ("Okapi", "Okаpi"),            # Cyrillic а
    ("alice", "аlice"),            # Cyrillic а at the start
    ("Okapi", "ΟΚΑΡΙ"),            # Greek capitals Omicron Kappa Alpha Rho Iota
    ("Lighthouse", "Lighthouse\u200d"),  # zero-width joiner
    ("Deep  Retrievers", "deep retrievers"),
    ("team", "ｔｅａｍ"),             # full-width
    ("Cafe", "Café"),
    ("bob", "Ьоb"),                # Cyrillic soft sign and о
])
def test_it_folds_lookalikes_together(a, b):
    assert name_key(a) == name_key(b)


@pytest.mark.parametrize("a, b", [("Okapi", "Okapis"), ("alice", "alicia"), ("Москва", "Mockba2")])
def test_it_keeps_different_names_apart(a, b):
    assert name_key(a) != name_key(b)


@pytest.mark.django_db
def test_it_refuses_a_username_that_looks_like_a_taken_one(client):
    from django.contrib.auth.models import User

    from tests.factories import make_user

    make_user("alice")
    data = {"username": "аlice", "email": "x@example.org", "password1": "a-Long-passw0rd", "password2": "a-Long-passw0rd"}
    response = client.post("/accounts/signup/", data)
    assert response.status_code == 200 and "looks like it" in response.content.decode()
    assert not User.objects.filter(username="аlice").exists()
    client.post("/accounts/signup/", {**data, "username": "alicia"})
    assert User.objects.filter(username="alicia").exists()
