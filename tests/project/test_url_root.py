"""Every page of a competition is under its root, /c/<slug>/; the addresses its pages had before
answer a permanent redirect there (query string kept); the JSON API keeps the contract's paths."""
import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from evaluator.client import api as contract

MOVED = [  # (old address, new address)
    ("/leaderboards/cup/", "/c/cup/leaderboards/"),
    ("/leaderboards/cup/dev/?meta_training=zero-shot", "/c/cup/dev/leaderboard/?meta_training=zero-shot"),
    ("/leaderboards/cup/dev.csv", "/c/cup/dev/leaderboard.csv"),
    ("/leaderboards/cup/dev.json", "/c/cup/dev/leaderboard.json"),
    ("/leaderboards/cup/dev/history/", "/c/cup/dev/leaderboard/history/"),
    ("/leaderboards/cup/test-b/official.csv", "/c/cup/test-b/official.csv"),
    ("/leaderboards/cup/test-b/official.json", "/c/cup/test-b/official.json"),
    ("/teams/cup/new/", "/c/cup/teams/new/"),
    ("/teams/cup/team-a/", "/c/cup/teams/team-a/"),
    ("/teams/cup/team-a/leave/", "/c/cup/teams/team-a/leave/"),
    ("/teams/cup/team-a/invite/", "/c/cup/teams/team-a/invite/"),
    ("/teams/cup/team-a/members/bob/remove/", "/c/cup/teams/team-a/members/bob/remove/"),
    ("/submissions/cup/mine/", "/c/cup/mine/"),
    ("/submissions/cup/dev/upload/", "/c/cup/dev/upload/"),
    ("/submissions/cup/dev/rescore/", "/c/cup/dev/rescore/"),
    ("/submissions/cup/dev/hybrid/", "/c/cup/dev/hybrid/"),
    ("/audit/cup/", "/c/cup/audit/"),
]


@pytest.mark.parametrize(("old", "new"), MOVED)
def test_an_old_address_answers_a_permanent_redirect_to_the_new_one(old, new):
    response = Client().get(old)
    assert (response.status_code, response["Location"]) == (301, new)


def _named(resolver: URLResolver, prefix: str = "", namespace: str = ""):
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            inner = ":".join(filter(None, [namespace, pattern.namespace]))
            yield from _named(pattern, prefix + str(pattern.pattern), inner)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield f"{namespace}:{pattern.name}", prefix + str(pattern.pattern)


def test_every_page_naming_a_competition_is_under_its_root():
    outside = [f"{name} {route}" for name, route in _named(get_resolver())
               if ("<slug:slug>" in route or "<slug:competition_slug>" in route)
               and not route.startswith(("c/<slug:slug>/", "c/<slug:competition_slug>/"))
               and not route.startswith(contract.MOUNT + contract.ROOT)]
    assert outside == []


def test_the_api_keeps_the_contracts_paths():
    assert reverse("submissions:api_upload", args=["cup", "dev"]) == contract.path_of(
        contract.UPLOAD_ROUTE, competition_slug="cup", phase_slug="dev") == "/submissions/api/cup/dev/"
    assert reverse("submissions:api_status", args=[7]) == "/submissions/api/7/"
    assert reverse("submissions:detail", args=[7]) == "/submissions/7/"
