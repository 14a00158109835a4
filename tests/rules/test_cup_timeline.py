"""The WSDM Cup on the clock: one competition lived from the known-language phase to the
results reveal, moving time with `time_machine` (no sleeps, nobody at the keyboard).

Calendar (T0 = 2023-01-10 00:00 UTC, the world of `tests.rules.world` built then):
    T0-10d  competition starts (SHA-256 commitments public), dev opens
    T0-1d   test-b opens: private leaderboard, hidden qrels, 2 uploads per UTC day, final selection
    T0+10d  surprise group (yo) revealed
    T0+20d  dev and test-b close
    T0+30d  test-b leaderboard and judgments public
Scoring calls `submission_score` in-process; the worker is exercised in tests/e2e.
"""
from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.audit.models import AuditEvent
from cupboard.competitions.commitments import publish_due_everywhere
from cupboard.competitions.models import Phase
from cupboard.competitions.services import qrels_release_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import QueryScores, Submission
from cupboard.submissions.quota import quota_grant, quota_status
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create, submission_select_final
from tests.factories import qrels_text
from tests.personas import client_for
from tests.rules.world import SURPRISE_WORD, TEST_B_JUDGMENTS, World, build_world, run_bytes, submit, upload

T0 = datetime(2023, 1, 10, tzinfo=dt_timezone.utc)

pytestmark = pytest.mark.django_db


@pytest.fixture
def cup(time_machine) -> World:
    time_machine.move_to(T0, tick=False)
    world = build_world()
    world.competition.phases.update(ranking=Phase.Ranking.SELECTED)
    world.test_b.daily_limit = 2
    world.test_b.save(update_fields=["daily_limit"])
    return world


def refusal(**kwargs) -> SubmissionRefused:
    with pytest.raises(SubmissionRefused) as caught:
        submission_create(method_name="x", **kwargs)
    return caught.value


def get(world: World, persona: str, name: str, *args):
    return client_for(getattr(world, persona)).get(reverse(name, args=args))


def body(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode()


def board(world: World, persona: str, phase: str) -> dict:
    response = get(world, persona, "leaderboards:export_json", "cup", phase)
    assert response.status_code == 200, body(response)
    return response.json()


def check_surprise_hidden(w: World) -> None:
    """Before the reveal nothing names yo: pages, API, downloads, columns, charts, counts, errors."""
    for persona in ("anonymous", "participant", "outsider", "other_organizer"):
        for name, args in [("competitions:detail", ("cup",)), ("competitions:commitments", ("cup",)),
                           ("leaderboards:phase", ("cup", "dev")), ("leaderboards:export_csv", ("cup", "dev")),
                           ("leaderboards:export_json", ("cup", "dev")), ("audit:log", ("cup",)),
                           ("submissions:detail", (w.baseline.pk,)), ("submissions:status", (w.baseline.pk,))]:
            text = body(get(w, persona, name, *args))
            assert not SURPRISE_WORD.search(text) and "Yoruba" not in text, (name, persona)
        assert get(w, persona, "competitions:topics", "cup", "dev", "yo").status_code == 404
    detail = body(get(w, "participant", "competitions:detail", "cup"))
    assert "1 surprise language" in detail  # all that may be known: how many, and when
    dev = board(w, "participant", "dev")
    assert [s["code"] for s in dev["subsets"]] == ["sw", "te"] and dev["averages"] == ["K.Avg", "Avg"]
    # Uploading for yo gets exactly the refusal of a language that does not exist, whether the
    # file name says it or the form names it.
    for chosen in (False, True):
        yo, zz = (refusal(phase=w.dev, team=w.team_a, user=w.participant,
                          files=[(upload(f"run.{code}.txt", run_bytes(tag="y")), code if chosen else None)])
                  for code in ("yo", "zz"))
        assert (yo.code, yo.message.replace("yo", "??")) == (zz.code, zz.message.replace("zz", "??"))
    api = client_for(None).post(reverse("submissions:api_upload", args=["cup", "dev"]),
                                {"method_name": "x", "file_yo": upload("a.txt", run_bytes(tag="api"))},
                                HTTP_AUTHORIZATION=f"Token {api_token_create(user=w.participant)}")
    assert api.status_code == 400 and api.json()["errors"][0]["code"] == "unknown_subset"


def check_daily_limit_grants_and_midnight(w: World, time_machine) -> None:
    """2 per UTC day: team A used one at T0. Failed-by-platform and rejected cost nothing;
    a grant adds a slot (audited); the next slot opens at UTC midnight, not 24 h later."""
    time_machine.move_to(T0 + timedelta(hours=23, minutes=59, seconds=58), tick=False)
    second = submit(w.test_b, team=w.team_a, user=w.teammate, tag="second", score=False)
    Submission.objects.filter(pk=second.pk).update(status=Submission.Status.FAILED)
    third = submit(w.test_b, team=w.team_a, user=w.teammate, tag="third", score=False)
    Submission.objects.filter(pk=third.pk).update(status=Submission.Status.REJECTED)
    submit(w.test_b, team=w.team_a, user=w.teammate, tag="fourth")
    full = refusal(phase=w.test_b, team=w.team_a, user=w.participant, files=[(upload("run.sw.txt", run_bytes(tag="5")), None)])
    assert full.code == "daily_limit" and "2023-01-11 00:00 UTC" in full.message
    quota_grant(team=w.team_a, phase=w.test_b, extra=1, day=T0.date(), reason="outage", actor=w.organizer)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.LIMIT_GRANTED, details__team=w.team_a.pk).exists()
    submit(w.test_b, team=w.team_a, user=w.participant, tag="granted")
    assert refusal(phase=w.test_b, team=w.team_a, user=w.participant,
                   files=[(upload("run.sw.txt", run_bytes(tag="6")), None)]).code == "daily_limit"
    time_machine.move_to(T0 + timedelta(days=1), tick=False)  # UTC midnight
    assert quota_status(phase=w.test_b, team=w.team_a, now=T0 + timedelta(days=1)).left_today == 2
    submit(w.test_b, team=w.team_a, user=w.participant, tag="next-day")


def check_surprise_revealed(w: World, time_machine) -> None:
    """At the reveal instant yo appears by itself: topics, uploads, columns, S.Avg and Avg."""
    time_machine.move_to(w.competition.groups.get(name="surprise").reveal_at, tick=False)
    assert get(w, "anonymous", "competitions:topics", "cup", "dev", "yo").status_code == 200
    assert "Yoruba" in body(get(w, "anonymous", "competitions:detail", "cup"))
    submit(w.dev, team=w.team_a, user=w.participant, tag="with-yo", codes=("sw", "te", "yo"))
    dev = board(w, "anonymous", "dev")
    assert [s["code"] for s in dev["subsets"]] == ["sw", "te", "yo"]
    assert dev["averages"] == ["K.Avg", "S.Avg", "Avg"]
    team_a = next(r for r in dev["rows"] if r["team"] == "Team A")
    assert team_a["values"]["yo"]["nDCG@10"] is not None and team_a["averages"]["S.Avg"]["nDCG@10"] is not None


def check_final_selection_and_deadline(w: World, time_machine, on_commit) -> None:
    """Up to N picks before the deadline; without a pick the last scored counts; uploads and
    picks are refused from closes_at on, by the server clock, with the reason."""
    b_first = submit(w.test_b, team=w.team_b, user=w.outsider, tag="b1", shift=1)
    b_last = submit(w.test_b, team=w.team_b, user=w.outsider, tag="b2", shift=2)
    a_runs = list(Submission.objects.filter(team=w.team_a, phase=w.test_b, status="scored").order_by("created_at"))
    for pick in a_runs[:2]:
        with on_commit(execute=True):  # the leaderboard is rebuilt once the choice is committed
            submission_select_final(submission=pick, user=w.teammate, selected=True)
    with pytest.raises(SubmissionRefused) as caught:
        submission_select_final(submission=a_runs[2], user=w.participant, selected=True)
    assert caught.value.code == "selection_full"
    assert b_first.created_at < b_last.created_at or b_first.pk < b_last.pk
    rows = {row.team_id: row.submission_id for row in w.test_b.leaderboard_rows.all()}
    assert rows[w.team_b.pk] == b_last.pk and rows[w.team_a.pk] in {a.pk for a in a_runs[:2]}

    closes_at = w.test_b.closes_at
    time_machine.move_to(closes_at - timedelta(seconds=1), tick=False)
    submit(w.test_b, team=w.team_b, user=w.outsider, tag="last-second", score=False)
    time_machine.move_to(closes_at, tick=False)
    late = refusal(phase=w.test_b, team=w.team_b, user=w.outsider, files=[(upload("run.sw.txt", run_bytes(tag="late")), None)])
    assert late.code == "phase_closed" and "is closed" in late.message
    with pytest.raises(SubmissionRefused) as caught:
        submission_select_final(submission=a_runs[2], user=w.participant, selected=True)
    assert caught.value.code == "phase_closed"
    Submission.objects.filter(status=Submission.Status.QUEUED).delete()  # never scored: not part of the story


def check_new_qrels_version_rescores(w: World, django_capture_on_commit_callbacks) -> None:
    """Qrels v2 of test-b re-scores every scored submission; the leaderboard names v2."""
    before = {s.pk: s.scores.get(subset__code="sw", metric="nDCG@10").value
              for s in Submission.objects.filter(phase=w.test_b, status="scored")}
    changed = {code: {q: {d: (1 if label == 0 else label) for d, label in docs.items()} for q, docs in judged.items()}
               for code, judged in TEST_B_JUDGMENTS.items()}
    with django_capture_on_commit_callbacks(execute=True):
        qrels_release_create(phase=w.test_b, files={"sw": qrels_text(changed["sw"])}, actor=w.organizer, note="fix")
    queued = list(Submission.objects.filter(phase=w.test_b, status=Submission.Status.QUEUED).values_list("pk", flat=True))
    assert sorted(queued) == sorted(before)  # every one, and only the scored ones
    for pk in queued:
        assert submission_score(submission_id=pk) == "scored"
    after = Submission.objects.filter(phase=w.test_b, status="scored")
    assert {s.qrels_release.number for s in after} == {2}
    assert any(s.scores.get(subset__code="sw", metric="nDCG@10").value != before[s.pk] for s in after)
    organizer_view = board(w, "organizer", "test-b")
    assert organizer_view["qrels_version"] == 2 and {r["qrels_version"] for r in organizer_view["rows"]} == {2}
    assert AuditEvent.objects.filter(action=AuditEvent.Action.RESCORED, is_public=True).exists()


def check_private_until_reveal_then_public(w: World, time_machine) -> None:
    """Participants: nothing of test-b's leaderboard before reveal_at, then its aggregates,
    rounded to 3 decimals, public by itself, and a team's own runs' per-query values (the
    judgments are public now: `Viewer.phase_shows_per_query`); organizers always see full precision."""
    reveal_at = w.test_b.reveal_at
    time_machine.move_to(reveal_at - timedelta(seconds=1), tick=False)
    closed = get(w, "participant", "leaderboards:export_json", "cup", "test-b")
    assert closed.status_code == 403 and "not public until" in closed.json()["errors"][0]["message"]
    assert "Team B" not in body(get(w, "participant", "leaderboards:phase", "cup", "test-b"))
    assert any(len(repr(v["nDCG@10"])) > 7 for r in board(w, "organizer", "test-b")["rows"] for v in r["values"].values())
    time_machine.move_to(reveal_at, tick=False)
    public = board(w, "anonymous", "test-b")
    assert public["rounded_to"] == 3 and {r["team"] for r in public["rows"]} == {"Team A", "Team B", "Baseline"}
    for row in public["rows"]:
        for value in [v for by in (*row["values"].values(), *row["averages"].values()) for v in by.values()]:
            assert value is None or round(value, 3) == value
    own = client_for(w.participant).get(reverse("submissions:status", args=[w.sub_a_test_b.pk])).json()
    assert all(round(v, 3) == v for by in own["scores"].values() for v in by.values())
    stored = {qs.subset.code: qs.values for qs in QueryScores.objects.filter(submission=w.sub_a_test_b)
              .select_related("subset")}
    assert own["per_query"] and own["per_query"] == {code: stored[code] for code in own["per_query"]}
    time_machine.move_to(reveal_at - timedelta(seconds=1), tick=False)
    closed = client_for(w.participant).get(reverse("submissions:status", args=[w.sub_a_test_b.pk])).json()
    assert closed["per_query"] == {}
    time_machine.move_to(reveal_at, tick=False)


def check_commitments_match_revealed_files(w: World) -> None:
    """The SHA-256 published from the start equal the hashes of the files served at the reveal."""
    publish_due_everywhere()  # the beat task writes the reveal's event (pages never write)
    committed = {f["sha256"] for e in AuditEvent.objects.filter(action=AuditEvent.Action.QRELS_COMMITTED, is_public=True)
                 for f in e.details["files"]}
    page = body(get(w, "anonymous", "competitions:commitments", "cup"))
    for number in (1, 2):
        for code in ("sw", "te", "yo"):
            served = body(get(w, "anonymous", "competitions:qrels", "cup", "test-b", number, code)).encode()
            digest = hashlib.sha256(served).hexdigest()
            assert digest in committed and digest in page, (number, code)
    assert AuditEvent.objects.filter(action=AuditEvent.Action.QRELS_REVEALED, is_public=True).exists()


def test_it_runs_the_whole_cup_on_the_clock(cup, time_machine, django_capture_on_commit_callbacks):
    w = cup
    # Commitments were public before anything else happened: taken at T0 they name no yo.
    at_start = body(get(w, "anonymous", "competitions:commitments", "cup"))
    assert len(set(re.findall(r"[0-9a-f]{64}", at_start))) == 3 and not SURPRISE_WORD.search(at_start)
    assert get(w, "anonymous", "competitions:qrels", "cup", "test-b", 1, "sw").status_code == 404
    check_surprise_hidden(w)
    check_daily_limit_grants_and_midnight(w, time_machine)
    check_surprise_revealed(w, time_machine)
    check_final_selection_and_deadline(w, time_machine, django_capture_on_commit_callbacks)
    check_new_qrels_version_rescores(w, django_capture_on_commit_callbacks)
    check_private_until_reveal_then_public(w, time_machine)
    check_commitments_match_revealed_files(w)
    assert json.dumps(board(w, "anonymous", "test-b")).count("Team A") == 1
