"""The organizer area's overview, who may open it, and the link to it."""
import pytest
from django.urls import reverse

from cupboard.submissions.models import Submission
from tests.factories import make_competition, make_qrels_release, make_topics
from tests.personas import personas  # noqa: F401

NON_ORGANIZERS = ("participant", "teammate", "outsider", "other_organizer")


def area_urls(slug="cup"):
    return [reverse("competitions:manage", args=[slug]),
            reverse("competitions:manage_qrels", args=[slug, "test-b"]),
            reverse("competitions:manage_topics", args=[slug, "dev"]),
            reverse("competitions:manage_schedule", args=[slug, "test-b"]),
            reverse("competitions:manage_group", args=[slug, "surprise"])]


def test_it_shows_topics_qrels_and_submissions_per_phase(personas):
    cup = personas.competition
    test_b = cup.phases.get(slug="test-b")
    topics = make_topics(test_b, "yo", ["1", "2", "3"])
    make_qrels_release(test_b, {"sw": {"1": {"d1": 1}, "2": {"d2": 0}}}, note="first")
    release = make_qrels_release(test_b, {"sw": {"1": {"d1": 1}, "2": {"d2": 1}, "3": {"d3": 1}}}, note="fixed sw")
    for number, status in enumerate(["scored", "scored", "failed"], start=1):
        Submission.objects.create(phase=test_b, team=personas.team_a, number=number, method_name="m", status=status)
    response = personas.client_for(personas.organizer).get(reverse("competitions:manage", args=["cup"]))
    assert response.status_code == 200
    row = next(r for r in response.context["phases"] if r["phase"] == test_b)
    assert (row["release"], row["statuses"]) == (release, {"scored": 2, "failed": 1})
    by_code = {item["subset"].code: item for item in row["subsets"]}
    assert by_code["yo"]["topics"] == [topics] and by_code["sw"]["topics"] == []
    assert by_code["sw"]["qrels"].judged_queries == 3
    page = response.content.decode()
    for text in (topics.sha256, release.files.get().sha256, "qrels v2", "fixed sw", "2 versions", "scored 2",
                 "failed 1", "Yoruba"):
        assert text in page, text
    for name in ("manage_qrels", "manage_topics", "manage_schedule"):
        assert reverse(f"competitions:{name}", args=["cup", "test-b"]) in page
    assert reverse("submissions:upload", args=["cup", "test-b"]) in page
    assert reverse("competitions:manage_group", args=["cup", "surprise"]) in page


@pytest.mark.parametrize("persona", NON_ORGANIZERS)
def test_it_refuses_every_area_page_of_a_public_competition_to_non_organizers(personas, persona):
    """A 403, as every organizer page answers one who may see the competition (competitions/access.py);
    a competition they may not see is the 404 of a missing one (below)."""
    client = personas.client_for(getattr(personas, persona))
    assert client.get(reverse("competitions:manage", args=["no-such-cup"])).status_code == 404
    responses = [client.get(url) for url in area_urls()]
    responses += [client.post(url, {"visibility": "live", "reveal_at": ""}) for url in area_urls()[1:]]  # the forms
    for response in responses:
        assert response.status_code == 403, response.request["PATH_INFO"]


def test_it_sends_anonymous_visitors_to_log_in(personas):
    for url in area_urls():
        response = personas.client_for(personas.anonymous).get(url)
        assert response.status_code == 302 and response.url.startswith(reverse("accounts:login")), url


def test_it_opens_every_area_page_for_organizers_and_staff(personas):
    for persona in ("organizer", "staff"):
        client = personas.client_for(getattr(personas, persona))
        assert [client.get(url).status_code for url in area_urls()] == [200] * 5, persona


def test_it_opens_the_area_of_a_draft_only_for_its_organizers(personas):
    make_competition(slug="draft", is_published=False, organizers=[personas.organizer])
    url = reverse("competitions:manage", args=["draft"])
    assert personas.client_for(personas.organizer).get(url).status_code == 200
    assert personas.client_for(personas.other_organizer).get(url).status_code == 404


def test_it_links_the_area_from_the_competition_page_for_organizers_only(personas):
    url = reverse("competitions:manage", args=["cup"])
    for persona in ("organizer", "staff"):
        assert url in personas.client_for(getattr(personas, persona)).get("/c/cup/").content.decode()
    for persona in NON_ORGANIZERS + ("anonymous",):
        assert url not in personas.client_for(getattr(personas, persona)).get("/c/cup/").content.decode(), persona


def test_it_builds_the_overview_in_a_fixed_number_of_queries(personas, django_assert_num_queries):
    cup = personas.competition
    for phase in cup.phases.all():
        make_topics(phase, "sw", ["1"])
        make_qrels_release(phase, {"sw": {"1": {"d1": 1}}, "te": {"1": {"d2": 1}}})
        Submission.objects.create(phase=phase, team=personas.team_a, number=1, method_name="m", status="scored")
    client = personas.client_for(personas.organizer)
    url = reverse("competitions:manage", args=["cup"])
    # session, user, competition, organizer check, subsets (with groups), submissions by phase and
    # status, phases, their topic sets, releases, release files, groups
    with django_assert_num_queries(11):
        assert client.get(url).status_code == 200
