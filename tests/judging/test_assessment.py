"""Judging in the browser, its services: assessors (never participants), a corpus checked
as it streams, a pool dealt out as tasks with an overlap, labels, agreement, disagreements
resolved, and the qrels version made of it, which scores exactly as the same qrels uploaded
as a file."""
from __future__ import annotations

import io
import re

import pytest
from django.core.exceptions import ValidationError

from cupboard.competitions.assessors import assessor_add
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.services import qrels_release_create
from cupboard.judging.assessment import corpus_upload, item_label, judging_round_create, shuffled
from cupboard.judging.judgments import qrels_version_create, resolution_set, round_agreement, round_progress
from cupboard.judging.models import Corpus, JudgingItem
from cupboard.judging.pools import pool_export_build, pool_export_create
from cupboard.teams.services import team_create, team_join
from evaluator.agreement import cohen_kappa
from tests.factories import make_user
from tests.judging.conftest import JUDGMENTS, TOPICS, D

pytestmark = pytest.mark.django_db

# Every pooled document of the scene, and one more; the corpus of the tests.
CORPUS = "".join(f"{docid}\tTitle {short}\tThe text of passage {short}.\n" for short, docid in sorted(D.items()))


def corpus_file(text: str = CORPUS, name: str = "corpus.sw.tsv"):
    handle = io.BytesIO(text.encode())
    handle.name = name
    return handle


def ready(scene, *, overlap: int = 50):
    """Two assessors, a pool of depth 3 (sw: q1 u1 u2 x1, q2 u3 x3 x4), its corpus and a round."""
    first, second = make_user("ann"), make_user("bo")
    for person in (first, second):
        assessor_add(competition=scene.competition, username=person.username, actor=scene.organizer)
    export = pool_export_create(phase=scene.dev, actor=scene.organizer, depth=3)
    assert pool_export_build(export_id=export.pk) == "done"
    export.refresh_from_db()
    sw = scene.competition.subsets.get(code="sw")
    corpus_upload(phase=scene.dev, subset=sw, file=corpus_file(), name="corpus.sw.tsv", actor=scene.organizer)
    judging_round = judging_round_create(export=export, assessors={"sw": [first, second]}, overlap=overlap,
                                         actor=scene.organizer)
    return judging_round, first, second


def test_a_participant_is_never_an_assessor_and_an_assessor_never_joins_a_team(scene):
    with pytest.raises(ValidationError, match="is in team Team A"):
        assessor_add(competition=scene.competition, username=scene.participant.username, actor=scene.organizer)
    judge = make_user("judge")
    assessor_add(competition=scene.competition, username="judge", actor=scene.organizer)
    with pytest.raises(ValidationError, match="assessor"):
        team_join(invite_code=scene.team_a.invite_code, user=judge)
    with pytest.raises(ValidationError, match="assessor"):
        team_create(competition=scene.competition, user=judge, name="Judges")
    assert not scene.team_a.memberships.filter(user=judge).exists()
    # Another competition's assessor is free to take part here.
    assessor_add(competition=scene.other_competition, username=scene.outsider.username, actor=scene.organizer)


def test_a_bad_corpus_names_file_line_and_problem_and_stores_nothing(scene):
    sw = scene.competition.subsets.get(code="sw")
    bad = CORPUS + "901#9\tno text column\n" + '{"docid": "x"}\n' + "101#0\tagain\tduplicate\n"
    with pytest.raises(CompetitionError) as caught:
        corpus_upload(phase=scene.dev, subset=sw, file=corpus_file(bad), name="corpus.sw.tsv", actor=scene.organizer)
    problems = [(p["file"], p["line"], p["code"]) for p in caught.value.problem_rows()]
    lines = len(D)
    assert problems == [("corpus.sw.tsv", lines + 1, "columns"), ("corpus.sw.tsv", lines + 2, "columns"),
                        ("corpus.sw.tsv", lines + 3, "duplicate-docid")]
    assert not Corpus.objects.exists()
    jsonl = "".join(f'{{"docid": "{docid}", "title": "", "text": "passage {short}"}}\n' for short, docid in D.items())
    stored = corpus_upload(phase=scene.dev, subset=sw, file=corpus_file(jsonl, "c.jsonl"), name="c.jsonl",
                           actor=scene.organizer)
    assert stored.documents == len(D) and stored.file.name.startswith("corpora/")


def test_a_corpus_line_nested_deep_or_a_huge_passage_is_refused_at_its_line(scene):
    """A JSONL line nested 5,000 deep was a 500 (RecursionError); a 30 MB passage was stored."""
    from evaluator.io.corpus import MAX_PASSAGE_CHARS

    sw = scene.competition.subsets.get(code="sw")
    jsonl = "".join(f'{{"docid": "{docid}", "title": "", "text": "passage {short}"}}\n' for short, docid in D.items())
    bad = jsonl + '{"docid": "deep", "text": ' + "[" * 5_000 + "]" * 5_000 + "}\n" + \
        '{"docid": "huge", "text": "' + "w" * MAX_PASSAGE_CHARS + '"}\n'
    with pytest.raises(CompetitionError) as caught:
        corpus_upload(phase=scene.dev, subset=sw, file=corpus_file(bad, "c.jsonl"), name="c.jsonl", actor=scene.organizer)
    problems = [(p["line"], p["code"], p["message"]) for p in caught.value.problem_rows()]
    assert [(line, code) for line, code, _ in problems] == [(len(D) + 1, "bad-json"), (len(D) + 2, "passage-too-long")]
    assert "nested too deep" in problems[0][2] and f"may have {MAX_PASSAGE_CHARS:,}" in problems[1][2]
    assert not Corpus.objects.exists()


def test_a_pool_is_dealt_by_whole_queries_with_the_overlap_judged_twice_in_a_seeded_order(scene):
    judging_round, ann, bo = ready(scene, overlap=50)
    tasks = {t.assessor.username: list(t.items.all()) for t in judging_round.assignments.all()}
    queries = {name: {i.qid for i in items} for name, items in tasks.items()}
    # Two queries, one each, and 50% of them (one) to the other assessor as well.
    assert sorted(len(q) for q in queries.values()) == [1, 2] and queries["ann"] | queries["bo"] == {"1", "2"}
    pooled = {"1": [D[d] for d in ("u1", "u2", "x1")], "2": [D[d] for d in ("u3", "x3", "x4")]}
    for items in tasks.values():
        assert [i.position for i in items] == list(range(1, len(items) + 1))
        for qid in {i.qid for i in items}:
            shown = [i.docid for i in items if i.qid == qid]
            assert shown == shuffled(pooled[qid], seed=judging_round.seed, qid=qid)  # not the runs' order
            assert {i.query for i in items if i.qid == qid} == {TOPICS[qid]}  # as the topics say, not '=... guarded
    item = tasks["ann"][0]
    assert item.text == f"The text of passage {next(k for k, v in D.items() if v == item.docid)}."


def test_labels_agreement_disagreements_and_the_qrels_version(scene):
    judging_round, ann, bo = ready(scene, overlap=100)  # every query judged by both
    twice = "1"
    for person, flip in ((ann, None), (bo, D["u2"])):
        for item in JudgingItem.objects.filter(assignment__assessor=person):
            label = 1 if item.docid in (D["u1"], D["x3"]) else 0
            if item.docid == flip:
                label = 1 - label
            item_label(item=item, label=label, seconds=4, actor=person)
    with pytest.raises(ValidationError, match="another assessor"):
        item_label(item=JudgingItem.objects.filter(assignment__assessor=ann).first(), label=1, seconds=1, actor=bo)
    with pytest.raises(ValidationError, match="not one of"):
        item_label(item=JudgingItem.objects.filter(assignment__assessor=ann).first(), label=3, seconds=1, actor=ann)
    progress = round_progress(judging_round)
    assert [(r["assessor"], r["done"], r["total"], r["median_seconds"]) for r in progress] == \
        [("ann", 6, 6, 4.0), ("bo", 6, 6, 4.0)]
    [agreement] = round_agreement(judging_round)
    ann_labels = [0 if d != D["u1"] and d != D["x3"] else 1 for d in sorted(D[k] for k in ("u1", "u2", "x1", "u3", "x3", "x4"))]
    assert (agreement["pairs"], agreement["agreed"]) == (6, 5)
    expected = cohen_kappa(ann_labels, [1 - a if d == D["u2"] else a for a, d in
                                        zip(ann_labels, sorted(D[k] for k in ("u1", "u2", "x1", "u3", "x3", "x4")),
                                            strict=True)])
    assert agreement["kappa"] == pytest.approx(expected) and agreement["alpha"] is None  # binary labels

    with pytest.raises(ValidationError, match="1 passage"):
        qrels_version_create(judging_round=judging_round, actor=scene.organizer)
    resolution_set(judging_round=judging_round, code="sw", qid=twice, docid=D["u2"], label=1, actor=scene.organizer)
    release = qrels_version_create(judging_round=judging_round, actor=scene.organizer)
    assert release.number == 2 and release.note.startswith("judged in the browser")
    # named so that no one reads the judging pass's number as a round's (issue 34, Found 6)
    assert release.files.get(subset__code="sw").original_name == f"qrels.cup.dev.sw.judging-pass-{judging_round.pk}.tsv"

    # The same judgments written by hand and uploaded as a file score the run exactly alike.
    by_hand = {qid: dict(docs) for qid, docs in JUDGMENTS["sw"].items()}
    by_hand["1"].update({D["u1"]: 1, D["u2"]: 1, D["x1"]: 0})
    by_hand["2"].update({D["u3"]: 0, D["x3"]: 1, D["x4"]: 0})
    text = "".join(f"{qid}\tQ0\t{docid}\t{label}\n" for qid, docs in by_hand.items() for docid, label in docs.items())
    uploaded = qrels_release_create(phase=scene.test_b, files={"sw": text.encode()}, actor=scene.organizer)
    built, hand = (r.files.get(subset__code="sw") for r in (release, uploaded))
    assert built.judgments == hand.judgments == 10 and built.judged_queries == hand.judged_queries
    assert _scores(built, scene.sub_a) == _scores(hand, scene.sub_a)
    assert _scores(built, scene.sub_b) == _scores(hand, scene.sub_b)
    # The te file is carried over unchanged, with its commitment.
    assert release.files.get(subset__code="te").sha256 == scene.dev.qrels_releases.get(number=1).files.get(
        subset__code="te").sha256
    with pytest.raises(ValidationError, match="already qrels v2"):
        qrels_version_create(judging_round=judging_round, actor=scene.organizer)


def _scores(qrels_file, submission) -> tuple:
    from evaluator.engines.scoring import Evaluator
    from evaluator.io.qrels import read_qrels
    from evaluator.io.runs import read_run

    with qrels_file.file.open("rb") as stored:
        qrels = read_qrels(stored, name=qrels_file.original_name)
    run_file = submission.run_files.get(subset__code="sw")
    with run_file.file.open("rb") as stored:
        run, _ = read_run(stored, name=run_file.original_name)
    result = Evaluator(qrels, ["nDCG@10", "R@100", "AP", "P@10"]).score(run, subset="sw")
    return result.means, result.per_query


def test_a_qrels_version_of_a_round_not_judged_whole_needs_confirming(scene):
    """Issue 33, item 13: a version was made from a 40%-judged round without a word."""
    from django.urls import reverse

    from tests.personas import client_for

    judging_round, ann, bo = ready(scene, overlap=0)  # each query to one assessor
    items = list(JudgingItem.objects.filter(assignment__round=judging_round).order_by("pk"))
    for item in items[:2]:
        item_label(item=item, label=1, seconds=3, actor=item.assignment.assessor)
    with pytest.raises(ValidationError) as refused:
        qrels_version_create(judging_round=judging_round, actor=scene.organizer)
    assert refused.value.code == "partly-judged"
    assert refused.value.message.startswith(f"Only 33% of the round's passages (2 of {len(items)})")
    organizer = client_for(scene.organizer)
    page = reverse("judging:assessment", args=[scene.competition.slug, scene.dev.slug])
    shown = organizer.get(page).content.decode()
    assert f"from the 2 of {len(items)} passages judged so far" in shown and 'name="partial"' in shown
    url = reverse("judging:round_qrels", args=[scene.competition.slug, scene.dev.slug, judging_round.pk])
    organizer.post(url)  # unconfirmed: refused, said on the page
    judging_round.refresh_from_db()
    assert judging_round.qrels_release is None
    organizer.post(url, {"partial": "1"})
    judging_round.refresh_from_db()
    assert judging_round.qrels_release is not None


def test_a_disagreement_offers_only_the_labels_its_assessors_gave(scene):
    """Issue 34 item 7: on a graded scale a 2-vs-0 disagreement offered 0, 1, 2 and 3 and
    refused 1 after the click; the page offers what `resolution_set` accepts."""
    from django.urls import reverse

    from tests.personas import client_for

    scene.competition.judging_labels = [{"value": v, "name": f"label {v}"} for v in range(4)]
    scene.competition.save()
    judging_round, ann, bo = ready(scene, overlap=100)
    for person, label in ((ann, 2), (bo, 0)):
        for item in JudgingItem.objects.filter(assignment__assessor=person):
            item_label(item=item, label=label, seconds=3, actor=person)
    page = client_for(scene.organizer).get(reverse("judging:assessment", args=["cup", "dev"])).content.decode()
    disputes = page.split('class="disagreements"')[1].split("</ul>")[0].split("<li ")[1:]
    assert len(disputes) == 6
    for dispute in disputes:
        offered = sorted(int(v) for v in re.findall(r'name="label" value="(\d+)"', dispute))
        assert offered == [0, 2]
    item = JudgingItem.objects.filter(assignment__assessor=ann).first()
    with pytest.raises(ValidationError, match="one of those its assessors gave"):
        resolution_set(judging_round=judging_round, code="sw", qid=item.qid, docid=item.docid, label=1,
                       actor=scene.organizer)
