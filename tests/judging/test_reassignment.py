"""A judging round's unfinished work handed from one assessor to another: only to one of the
competition's assessors, what the first judged stays theirs, a passage the second judges
already is not given twice, audited, and refused (nothing changed) for a finished round.
Naming and removing assessors is in the audit log too."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from cupboard.audit.details import readable_details
from cupboard.audit.models import AuditEvent
from cupboard.competitions.assessors import assessor_add
from cupboard.judging.assessment import item_label
from cupboard.judging.judgments import qrels_version_create, round_progress
from cupboard.judging.models import JudgingItem
from cupboard.judging.reassignment import judging_round_reassign
from tests.factories import make_user
from tests.judging.test_assessment import ready
from tests.personas import client_for

pytestmark = pytest.mark.django_db


def _items(judging_round) -> list[tuple]:
    """Every passage of the round: (assessor, position, qid, docid, label), a snapshot to compare."""
    return sorted(JudgingItem.objects.filter(assignment__round=judging_round).values_list(
        "assignment__assessor__username", "position", "qid", "docid", "label"))


def _task(judging_round, user):
    return judging_round.assignments.get(assessor=user)


def _carl(scene):
    carl = make_user("carl")
    assessor_add(competition=scene.competition, username="carl", actor=scene.organizer)
    return carl


def test_what_is_left_moves_and_what_was_judged_stays_the_first_assessor_s(scene):
    judging_round, ann, bo = ready(scene, overlap=0)  # ann one query of sw (3 passages), bo the other
    carl = _carl(scene)
    first = _task(judging_round, ann).items.order_by("position").first()
    item_label(item=first, label=1, seconds=4.0, actor=ann)
    left = [(i.qid, i.docid) for i in _task(judging_round, ann).items.filter(label__isnull=True).order_by("position")]

    done = judging_round_reassign(judging_round=judging_round, assessor=ann, to=carl, actor=scene.organizer)

    assert (done.moved, done.kept, done.dropped) == (2, 1, 0)
    kept = list(_task(judging_round, ann).items.values_list("qid", "docid", "label", "seconds"))
    assert kept == [(first.qid, first.docid, 1, 4.0)]
    carl_items = list(_task(judging_round, carl).items.order_by("position").values_list("position", "qid", "docid"))
    assert carl_items == [(1, *left[0]), (2, *left[1])]
    assert [(r["assessor"], r["done"], r["total"]) for r in round_progress(judging_round)] == \
        [("ann", 1, 1), ("bo", 0, 3), ("carl", 0, 2)]
    event = AuditEvent.objects.get(action=AuditEvent.Action.JUDGING_REASSIGNED)
    assert event.actor == scene.organizer and event.competition == scene.competition
    assert [(row["key"], row["text"]) for row in readable_details(event.details)] == [
        ("phase", scene.dev.name), ("assessor", "ann"), ("reassigned to", "carl"), ("dropped as duplicates", "0"),
        ("kept judged", "1"), ("moved", "2"), ("round", str(judging_round.pk))]

    # Into a task that holds passages already: appended after them, in their order.
    bo_left = list(_task(judging_round, bo).items.order_by("position").values_list("qid", "docid"))
    done = judging_round_reassign(judging_round=judging_round, assessor=bo, to=ann, actor=scene.organizer)
    assert (done.moved, done.kept, done.dropped) == (3, 0, 0)
    assert list(_task(judging_round, ann).items.order_by("position").values_list("position", "qid", "docid")) == \
        [(1, first.qid, first.docid)] + [(n, *pair) for n, pair in enumerate(bo_left, start=2)]
    assert not judging_round.assignments.filter(assessor=bo).exists()  # nothing of bo's left: no empty task


def test_a_passage_the_new_assessor_judges_already_is_judged_once(scene):
    judging_round, ann, bo = ready(scene, overlap=100)  # both judge all 6 passages
    before = {(qid, docid) for _, _, qid, docid, _ in _items(judging_round)}
    done = judging_round_reassign(judging_round=judging_round, assessor=ann, to=bo, actor=scene.organizer)
    assert (done.moved, done.kept, done.dropped) == (0, 0, 6)
    after = _items(judging_round)
    assert {who for who, *_ in after} == {"bo"} and len(after) == 6
    assert {(qid, docid) for _, _, qid, docid, _ in after} == before  # each passage still judged, by bo alone
    assert not judging_round.assignments.filter(assessor=ann).exists()


def test_refusals_change_nothing(scene):
    judging_round, ann, bo = ready(scene, overlap=0)
    carl = _carl(scene)
    for item in _task(judging_round, bo).items.all():
        item_label(item=item, label=0, seconds=None, actor=bo)
    before, events = _items(judging_round), AuditEvent.objects.count()
    for assessor, to, code in [(ann, scene.outsider, "not-assessor"), (ann, ann, "same-assessor"),
                               (carl, ann, "no-task"), (bo, carl, "nothing-left")]:
        with pytest.raises(ValidationError) as caught:
            judging_round_reassign(judging_round=judging_round, assessor=assessor, to=to, actor=scene.organizer)
        assert caught.value.code == code
    for item in _task(judging_round, ann).items.all():
        item_label(item=item, label=1, seconds=None, actor=ann)
    qrels_version_create(judging_round=judging_round, actor=scene.organizer)
    before = _items(judging_round)
    with pytest.raises(ValidationError, match="is finished: its judgments are already a qrels version") as caught:
        judging_round_reassign(judging_round=judging_round, assessor=ann, to=carl, actor=scene.organizer)
    assert caught.value.code == "released"
    assert _items(judging_round) == before
    assert AuditEvent.objects.filter(action=AuditEvent.Action.JUDGING_REASSIGNED).count() == 0
    assert AuditEvent.objects.count() > events  # the qrels version's own events, nothing else


def test_a_label_given_as_the_passage_moves_is_refused(scene):
    judging_round, ann, _ = ready(scene, overlap=0)
    carl = _carl(scene)
    item = _task(judging_round, ann).items.order_by("position").first()  # ann's page has it open
    judging_round_reassign(judging_round=judging_round, assessor=ann, to=carl, actor=scene.organizer)
    with pytest.raises(ValidationError) as caught:
        item_label(item=item, label=1, seconds=None, actor=ann)
    assert caught.value.code == "reassigned"
    assert JudgingItem.objects.get(pk=item.pk).label is None


def test_the_organizer_reassigns_from_the_round_s_section(scene):
    judging_round, ann, bo = ready(scene, overlap=0)
    carl = _carl(scene)
    page = reverse("judging:assessment", args=["cup", "dev"])
    url = reverse("judging:round_reassign", args=["cup", "dev", judging_round.pk])
    client = client_for(scene.organizer)
    html = client.get(page).content.decode()
    assert f'action="{url}"' in html and f'id="id_round{judging_round.pk}_to"' in html

    refused = client.post(url, {"assessor": "ann", "to": scene.outsider.username}, follow=True)
    assert f"{scene.outsider.username} is not an assessor of this competition" in refused.content.decode()
    assert not judging_round.assignments.filter(assessor=carl).exists()

    response = client.post(url, {"assessor": "ann", "to": "carl"})
    assert response.status_code == 302 and response.url == f"{page}#round-{judging_round.pk}"
    assert "3 passage(s) ann had left to judge now go to carl" in client.get(page).content.decode()
    assert _task(judging_round, carl).items.count() == 3
    assert client_for(scene.participant).post(url, {"assessor": "carl", "to": "ann"}).status_code == 403


def test_naming_and_removing_an_assessor_is_in_the_audit_log(scene):
    make_user("judge")
    client = client_for(scene.organizer)
    url = reverse("judging:assessors", args=["cup"])
    for _ in range(2):  # naming twice changes nothing, nor logs it twice
        assert client.post(url, {"username": "judge"}).status_code == 302
    assert client.post(url, {"remove": "judge"}).status_code == 302
    events = list(AuditEvent.objects.filter(action__startswith="assessor_").order_by("pk"))
    assert [(e.action, e.actor, e.summary) for e in events] == [
        ("assessor_added", scene.organizer, "judge named an assessor"),
        ("assessor_removed", scene.organizer, "judge no longer an assessor")]
    log = client.get(reverse("audit:log", args=["cup"])).content.decode()
    assert "judge named an assessor" in log and "judge no longer an assessor" in log
    assert log.count("<div title=\"judge\">assessor: judge</div>") == 2
    assert "assessor id" not in log and "assessor_id" not in log
    public = client_for(scene.participant).get(reverse("audit:log", args=["cup"])).content.decode()
    assert "judge named an assessor" not in public
