"""A 403 is a page of the site (its header, the reason, a way on), not a bare "403 Forbidden"."""
from django.urls import reverse

from cupboard.submissions.services import submission_create
from tests.personas import client_for
from tests.submissions.conftest import good_sw, upload, world  # noqa: F401


def test_a_forbidden_submission_is_a_real_page(world):  # noqa: F811
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant,
                                   files=[(upload("run.sw.txt", good_sw()), None)], method_name="BM25")
    response = client_for(world.outsider).get(reverse("submissions:detail", args=[submission.pk]))
    page = response.content.decode()
    assert response.status_code == 403
    assert "<h1>You may not open this page</h1>" in page and "This submission belongs to another team." in page
    assert 'class="site"' in page and "logged in as <strong>outsider</strong>" in page
