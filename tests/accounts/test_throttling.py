"""Rate limits on the doors people would hammer: log-in per account from a network and per
account, sign-up and team creation per network, the API per token (issue 11: 40 wrong
passwords, then the right one, got in; issue 33: one person behind a lab's shared address
locked the lab out, and an IPv6 host escaped every limit by changing its address in its /64)."""
from ipaddress import ip_network

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.teams.models import Team
from tests.factories import make_competition, make_user
from tests.rate_windows import at_a_window_start

RATES = {"login-account": "5/15m", "login-account-any": "8/15m", "signup-address": "2/h",
         "team-create-address": "2/h", "api-token": "3/m"}
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rates")]


@pytest.fixture
def rates():
    with override_settings(CUPBOARD_RATES=RATES), at_a_window_start():  # the API's 3/m
        yield


def log_in(username: str, password: str, *, address: str = "192.0.2.1", **headers):
    return Client(REMOTE_ADDR=address, **headers).post(reverse("accounts:login"),
                                                        {"username": username, "password": password})


def test_it_locks_an_account_from_a_network_after_failed_log_ins_even_for_the_right_password():
    make_user("ada", password="right-password")
    assert all(log_in("ada", f"wrong{i}").status_code == 200 for i in range(5))
    locked = log_in("ada", "right-password")
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    assert "Too many failed log-ins" in locked.content.decode()
    assert log_in("Ada", "right-password").status_code == 429  # "Ada" is the same account
    # Ada herself, from her own network, is not locked out by whoever guessed from that one.
    assert log_in("ada", "right-password", address="198.51.100.9").status_code == 302
    # Another account from the guesser's network logs in.
    make_user("bob", password="right-password")
    assert log_in("bob", "right-password").status_code == 302


def test_one_person_behind_a_shared_address_does_not_lock_out_the_lab():
    """Per address, 30 failures from one student locked every log-in of the lab's NAT."""
    make_user("carol", password="right-password")
    for i in range(20):
        log_in(f"nobody{i % 4}", "guess")
    assert log_in("carol", "right-password").status_code == 302


def test_an_account_guessed_from_many_networks_is_locked_everywhere():
    make_user("dan", password="right-password")
    for i in range(8):
        log_in("dan", "guess", address=f"203.0.113.{i}")
    assert log_in("dan", "right-password", address="198.51.100.9").status_code == 429


def test_an_ipv6_host_counts_as_its_slash_64():
    """Each failure from another address of one /64 counted apart: an IPv6 host has 2**64 of them."""
    make_user("eve", password="right-password")
    for i in range(5):
        log_in("eve", "guess", address=f"2001:db8:1:2::{i + 1:x}")
    assert log_in("eve", "right-password", address="2001:db8:1:2:ffff::9").status_code == 429
    assert log_in("eve", "right-password", address="2001:db8:1:3::1").status_code == 302
    for i in range(2):
        assert sign_up(Client(REMOTE_ADDR=f"2001:db8:7:7::{i + 1}"), f"v6user{i}").status_code == 302
    assert sign_up(Client(REMOTE_ADDR="2001:db8:7:7:abcd::1"), "v6user2").status_code == 429


def test_it_does_not_count_successful_log_ins():
    make_user("dora", password="right-password")
    assert all(log_in("dora", "right-password").status_code == 302 for _ in range(7))


def test_it_reads_the_address_from_the_proxy_only_behind_one():
    make_user("erin", password="right-password")
    for i in range(5):
        log_in("erin", f"guess{i}", address="10.0.0.2", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}")
    # Not behind a proxy: the forged header changes nothing, every try came from 10.0.0.2.
    assert log_in("erin", "right-password", address="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.99").status_code == 429
    with override_settings(CUPBOARD_TRUSTED_PROXIES=(ip_network("10.0.0.2"),)):
        # Behind it, 10.0.0.2 is the proxy and each client is the address it appended.
        assert log_in("erin", "right-password", address="10.0.0.2",
                      HTTP_X_FORWARDED_FOR="203.0.113.99").status_code == 302


def sign_up(client: Client, username: str):
    return client.post(reverse("accounts:signup"), {"username": username, "email": f"{username}@example.org",
                                                    "password1": "a-Long-passw0rd", "password2": "a-Long-passw0rd"})


def test_it_limits_sign_ups_per_address():
    assert sign_up(Client(REMOTE_ADDR="192.0.2.7"), "u1").status_code == 302
    assert sign_up(Client(REMOTE_ADDR="192.0.2.7"), "u2").status_code == 302
    refused = sign_up(Client(REMOTE_ADDR="192.0.2.7"), "u3")
    assert refused.status_code == 429 and not User.objects.filter(username="u3").exists()
    assert sign_up(Client(REMOTE_ADDR="192.0.2.8"), "u3").status_code == 302


def test_it_limits_team_creation_per_address():
    competition = make_competition()
    url = reverse("teams:create", args=[competition.slug])
    for n in range(3):
        client = Client(REMOTE_ADDR="192.0.2.7")
        client.force_login(make_user())
        response = client.post(url, {"name": f"Team {n}"})
    assert response.status_code == 429
    assert sorted(Team.objects.values_list("name", flat=True)) == ["Team 0", "Team 1"]


def test_it_limits_api_requests_per_token():
    user = make_user()
    first, second = api_token_create(user=user), api_token_create(user=make_user())
    url = reverse("submissions:api_status", args=[999999])
    answers = [Client(HTTP_AUTHORIZATION=f"Token {first}").get(url) for _ in range(4)]
    assert [a.status_code for a in answers] == [404, 404, 404, 429]
    assert answers[-1].json()["errors"][0]["code"] == "throttled" and int(answers[-1]["Retry-After"]) > 0
    assert Client(HTTP_AUTHORIZATION=f"Token {second}").get(url).status_code == 404


def test_every_spelling_of_one_token_counts_against_that_token():
    """The limit is the token's, not the header's: a different scheme, case or spacing is the same token."""
    token = api_token_create(user=make_user())
    url = reverse("submissions:api_status", args=[999999])
    spellings = [f"Token {token}", f"token {token}", f"TOKEN {token}", f"Bearer {token}", f"bearer\t{token}",
                 f"Token    {token}", f"  Token {token}  "]
    answers = [Client(HTTP_AUTHORIZATION=spelling).get(url).status_code for spelling in spellings]
    assert answers == [404, 404, 404, 429, 429, 429, 429]


def test_an_invalid_token_is_limited_too():
    url = reverse("submissions:api_status", args=[999999])
    answers = [Client(HTTP_AUTHORIZATION=spelling).get(url) for spelling in
               ("Token cb_not-a-token", "token cb_not-a-token", "Bearer  cb_not-a-token", "Token cb_not-a-token")]
    assert [a.status_code for a in answers] == [401, 401, 401, 429]
    assert answers[-1].json()["errors"][0]["code"] == "throttled"
