"""SHA-256 commitments from the competition's start, qrels files from the phase's reveal,
with no organizer at the keyboard: the clock decides, the beat task writes the public events."""
from datetime import timedelta

import time_machine
from django.urls import reverse
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions.commitments import competition_publish_due, publish_due_everywhere
from tests.factories import make_qrels_release
from tests.personas import personas, without_csrf  # noqa: F401

JUDGMENTS = {"sw": {"1": {"d1": 1, "d2": 0}}, "te": {"2": {"d3": 1}}, "yo": {"3": {"d4": 1}}}


def _test_b(personas):
    return personas.competition.phases.get(slug="test-b")


def _public_events(competition, action):
    return AuditEvent.objects.filter(competition=competition, action=action, is_public=True)


def test_it_lists_hashes_but_hides_surprise_codes(personas):
    release = make_qrels_release(_test_b(personas), JUDGMENTS)
    page = personas.client_for(personas.outsider).get(
        reverse("competitions:commitments", args=[personas.competition.slug])).content.decode()
    for qrels_file in release.files.all():
        assert qrels_file.sha256 in page
    assert ">sw<" in page and ">te<" in page
    assert ">yo<" not in page and "/yo/" not in page and "Yoruba" not in page
    assert "not announced yet" in page


def test_it_publishes_nothing_before_the_start(personas):
    cup = personas.competition
    cup.starts_at = timezone.now() + timedelta(days=1)
    cup.save()
    release = make_qrels_release(_test_b(personas), JUDGMENTS)
    url = reverse("competitions:commitments", args=[cup.slug])
    sha = release.files.first().sha256
    assert sha not in personas.client_for(personas.outsider).get(url).content.decode()
    assert sha in personas.client_for(personas.organizer).get(url).content.decode()
    assert not _public_events(cup, AuditEvent.Action.QRELS_COMMITTED).exists()
    with time_machine.travel(cup.starts_at):
        assert sha in personas.client_for(personas.outsider).get(url).content.decode()
        assert not _public_events(cup, AuditEvent.Action.QRELS_COMMITTED).exists()  # a GET writes nothing
        publish_due_everywhere()  # the beat task
        assert _public_events(cup, AuditEvent.Action.QRELS_COMMITTED).count() == 1


def test_it_writes_each_public_event_once(personas):
    cup = personas.competition
    make_qrels_release(_test_b(personas), JUDGMENTS)
    first = competition_publish_due(competition=cup)
    assert [e.action for e in first] == [AuditEvent.Action.QRELS_COMMITTED]
    assert competition_publish_due(competition=cup) == []
    event = first[0]
    assert [f["subset"] for f in event.details["files"]] == ["sw", "te", None]
    with time_machine.travel(_test_b(personas).reveal_at):
        assert publish_due_everywhere() == 1
        assert publish_due_everywhere() == 0
    assert _public_events(cup, AuditEvent.Action.QRELS_REVEALED).count() == 1


def test_it_serves_hidden_qrels_only_after_the_reveal(personas):
    phase = _test_b(personas)
    make_qrels_release(phase, JUDGMENTS)
    url = reverse("competitions:qrels", args=[personas.competition.slug, "test-b", 1, "sw"])
    nonsense = reverse("competitions:qrels", args=[personas.competition.slug, "test-b", 9, "sw"])
    for name in ("participant", "outsider", "anonymous", "other_organizer"):
        client = personas.client_for(getattr(personas, name))
        assert client.get(url).status_code == 404, name
        assert without_csrf(client.get(url)) == without_csrf(client.get(nonsense))
    assert personas.client_for(personas.organizer).get(url).status_code == 200
    assert personas.client_for(personas.staff).get(url).status_code == 200
    with time_machine.travel(phase.reveal_at):
        response = personas.client_for(personas.anonymous).get(url)
        assert response.status_code == 200
        assert b"".join(response.streaming_content) == b"1\tQ0\td1\t1\n1\tQ0\td2\t0\n"


def test_it_never_serves_hidden_qrels_of_a_phase_without_reveal(personas):
    phase = _test_b(personas)
    phase.reveal_at = None
    phase.visibility = phase.Visibility.HIDDEN
    phase.save()
    make_qrels_release(phase, JUDGMENTS)
    url = reverse("competitions:qrels", args=[personas.competition.slug, "test-b", 1, "sw"])
    with time_machine.travel(timezone.now() + timedelta(days=3650)):
        assert personas.client_for(personas.outsider).get(url).status_code == 404


def test_it_keeps_surprise_qrels_hidden_until_their_group_is_revealed(personas):
    dev = personas.competition.phases.get(slug="dev")
    make_qrels_release(dev, JUDGMENTS)
    client = personas.client_for(personas.outsider)
    assert client.get(reverse("competitions:qrels", args=[personas.competition.slug, "dev", 1, "sw"])).status_code == 200
    yo = reverse("competitions:qrels", args=[personas.competition.slug, "dev", 1, "yo"])
    assert client.get(yo).status_code == 404
    with time_machine.travel(personas.competition.groups.get(name="surprise").reveal_at):
        assert client.get(yo).status_code == 200


def test_the_periodic_task_publishes_due_events(personas):
    from cupboard.flows.tasks import publish_due_events_task

    make_qrels_release(_test_b(personas), JUDGMENTS)
    assert publish_due_events_task.run() == 1
    assert publish_due_events_task.run() == 0
