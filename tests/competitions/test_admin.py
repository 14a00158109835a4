"""The admin shows every competitions model (set-up without code)."""
import pytest
from django.apps import apps
from django.urls import reverse

from tests.factories import make_qrels_release, make_topics, make_user
from tests.personas import personas  # noqa: F401

PAGES = ["competition", "subsetgroup", "subset", "phase", "topicset", "qrelsrelease", "qrelsfile"]


@pytest.mark.parametrize("model", PAGES)
def test_it_lists_and_opens_each_model(personas, client, model):
    dev = personas.competition.phases.get(slug="dev")
    make_topics(dev, "sw", ["1"])
    make_qrels_release(dev, {"sw": {"1": {"d1": 1}}})
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    changelist = client.get(reverse(f"admin:competitions_{model}_changelist"))
    assert changelist.status_code == 200
    obj = apps.get_model("competitions", model).objects.first()
    assert client.get(reverse(f"admin:competitions_{model}_change", args=[obj.pk])).status_code == 200


def test_it_shows_the_audit_log_read_only(personas, client):
    client.force_login(make_user("root", is_staff=True, is_superuser=True))
    assert client.get(reverse("admin:audit_auditevent_changelist")).status_code == 200
    assert client.get(reverse("admin:audit_auditevent_add")).status_code == 403
