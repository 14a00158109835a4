"""Hidden test-B judgments never leave the platform: not in a response, an export, an API
field, an error message or a log line, while scoring and while everyone browses, before
and after the reveal of the scores (the qrels files themselves are published at the reveal
on purpose, through their one download URL, and are left out of the sweep for that reason;
so are, from then on, to a team, the per-query values of its runs and of the baselines it
compares them with: `Viewer.phase_shows_per_query`).

Log records are captured at DEBUG from the first line of set-up, so the scoring that
`build_world` runs is covered too.
"""
from __future__ import annotations

import logging

import pytest
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.models import QueryScores
from cupboard.submissions.services import submission_create
from tests.module_rows import module_rows
from tests.personas import client_for
from tests.rules.test_permissions_matrix import NON_ORGANIZERS, _body, request, rows
from tests.rules.world import MODEL_TEST_B, TEST_B_DOCIDS, build_world, hidden_markers, run_bytes, upload

pytestmark = pytest.mark.django_db


def judgments_in(text: str, markers: list[str]) -> list[str]:
    return [m for m in markers if m in text]


# The world, built once for the module where every database test takes it (tests/module_rows.py):
# not where a slow test is run, which builds its own to read the logs its building writes.
_worlds = module_rows({"world": build_world})


@pytest.fixture
def world(_worlds, db):
    return _worlds.get("world", build_world)


@pytest.fixture
def logged(caplog):
    caplog.set_level(logging.DEBUG)
    return caplog


@pytest.mark.slow
def test_it_never_logs_or_serves_test_b_judgments(logged, time_machine):
    world = build_world()
    markers = hidden_markers(world)
    secrets = markers["test-B docids"] + markers["test-B qrels lines"] + markers["test-B per-query values"]
    # From the reveal, team A reads its own test-B run's per-query values, and Compare sets it
    # against the test-B baseline (whose run and judgments are public by then); nobody else does.
    own = {repr(v) for qs in QueryScores.objects.filter(submission__in=[world.sub_a_test_b, world.baseline_test_b])
           for by_qid in qs.values.values() for v in by_qid.values()}
    found = []
    for moment in (None, world.test_b.reveal_at):
        if moment is not None:
            time_machine.move_to(moment, tick=False)
        for row in rows(world):
            if row.name == "competitions:qrels":
                continue
            for persona in NON_ORGANIZERS:
                opened = own if moment is not None and persona in ("participant", "teammate") else set()
                leaked = judgments_in(_body(request(world, row, persona)), [s for s in secrets if s not in opened])
                found += [f"{row.name}{row.args} as {persona} at {moment}: {leaked}"] if leaked else []
    assert not found, "\n".join(found)
    lines = [record.getMessage() + (record.exc_text or "") for record in logged.records]
    assert lines and not [line for line in lines if judgments_in(line, secrets)]


def test_it_keeps_test_b_judgments_out_of_api_fields_and_error_messages(world):
    token = api_token_create(user=world.participant)
    api = client_for(None)
    status = api.get(reverse("submissions:api_status", args=[world.sub_a_test_b.pk]),
                     HTTP_AUTHORIZATION=f"Token {token}").json()
    assert status["per_query"] == {} and set(status["scores"]) <= {"sw", "te"}
    # A run that retrieves the hidden documents, one with a broken line: the refusal names
    # the line and the problem, never what the judgments say about those documents.
    lines = run_bytes(tag="probe").decode().splitlines()
    lines[0] = f"1 Q0 {TEST_B_DOCIDS[0]} 1 x probe"
    with pytest.raises(SubmissionRefused) as caught:
        submission_create(phase=world.test_b, team=world.team_a, user=world.participant, method_name="probe",
                          files=[(upload("run.sw.txt", ("\n".join(lines) + "\n").encode()), None)])
    assert caught.value.code == "invalid_run" and caught.value.problems
    text = caught.value.message + " ".join(str(p) for p in caught.value.problems)
    assert "line 1" in text or any(getattr(p, "line", None) == 1 for p in caught.value.problems)
    assert not judgments_in(text.replace(TEST_B_DOCIDS[0], ""), hidden_markers(world)["test-B qrels lines"])


@pytest.mark.parametrize("rule", ["everything", "own", "status"])
def test_mails_never_carry_what_their_reader_may_not_see(rule, settings, world):
    """Every mail the world's scorings recorded (team A on dev and test B, team B on dev),
    sent under each final-phase rule of test B before any reveal: no test-B judgment,
    per-query or full-precision value, no surprise language; under "status" not even the
    rounded test-B scores."""
    from django.core import mail

    from cupboard.competitions.models import Phase
    from cupboard.notifications.models import Notification
    from cupboard.notifications.services import notifications_send
    from cupboard.submissions.models import Score
    from tests.rules.world import SURPRISE_WORD

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    Phase.objects.filter(pk=world.test_b.pk).update(before_reveal=rule)
    ids = list(Notification.objects.values_list("pk", flat=True))
    assert notifications_send(notification_ids=ids)["sent"] == 5  # team A's two members x 2, team B's one
    markers = hidden_markers(world)
    for message in mail.outbox:
        text = f"{message.subject}\n{message.body}"
        assert not [m for found in markers.values() for m in found if m in text], text
        assert not SURPRISE_WORD.search(text), text
    test_b = [m for m in mail.outbox if f"] {world.test_b.name}:" in m.subject]
    assert len(test_b) == 2
    rounded = {f"{s.value:.3f}" for s in Score.objects.filter(submission=world.sub_a_test_b)} - {"0.000"}
    shown = [v for m in test_b for v in rounded if v in m.body]
    assert (not shown) if rule == "status" else shown


def test_judged_at_10_of_hidden_judgments_is_for_organizers_until_they_are_public(world, time_machine):
    """Judged@10 says which retrieved documents are judged: on test B, nobody but organizers
    sees it on any submission page until the judgments are public, then its team does."""
    pages = [reverse("submissions:detail", args=[pk]) for pk in (world.sub_a_test_b.pk, world.baseline_test_b.pk)]
    pages.append(reverse("judging:phase_judged", args=["cup", "test-b"]))
    for persona in NON_ORGANIZERS:
        for url in pages:
            assert 'id="judged"' not in _body(client_for(getattr(world, persona)).get(url)), (persona, url)
    assert all('id="judged"' in _body(client_for(world.organizer).get(url)) for url in pages)
    time_machine.move_to(world.test_b.reveal_at, tick=False)
    assert 'id="judged"' in _body(client_for(world.participant).get(pages[0]))
    assert 'id="judged"' in _body(client_for(world.anonymous).get(pages[2]))


@pytest.mark.slow
def test_a_test_b_runs_metadata_stays_with_its_team_until_the_leaderboard_is_public(time_machine):
    """Run metadata is as visible as the run's leaderboard row: team A's test-B model name is
    its team's and the organizers' while test B is private (its filtered board, exports and
    pages included), and public with the row once the board is."""
    world = build_world()
    strangers = ("anonymous", "outsider", "other_organizer")
    found = []
    for row in rows(world):
        for persona in strangers:
            if MODEL_TEST_B in _body(request(world, row, persona)):
                found.append(f"{row.name}{row.args} {row.data} as {persona}")
    assert not found, "\n".join(found)
    own = client_for(world.participant).get(reverse("submissions:detail", args=[world.sub_a_test_b.pk]))
    assert MODEL_TEST_B in own.content.decode()
    time_machine.move_to(world.test_b.reveal_at, tick=False)
    board = client_for(None).get(reverse("leaderboards:export_json", args=["cup", "test-b"]), {"meta_zero_shot": "yes"})
    assert [r["metadata"]["model"] for r in board.json()["rows"] if not r["baseline"]] == [MODEL_TEST_B]


def test_it_shows_test_b_rank_bands_only_with_its_public_leaderboard(world, time_machine):
    # Bands and intervals come from test B's per-query values (hidden judgments): stored on its
    # rows from the first scoring, served to nobody but organizers until the reveal.
    args = ("cup", "test-b")
    assert any(r.standings for r in world.test_b.leaderboard_rows.all())
    for persona in NON_ORGANIZERS:
        client = client_for(getattr(world, persona))
        for name in ("leaderboards:phase", "leaderboards:export_json", "leaderboards:export_csv"):
            body = client.get(reverse(name, args=args)).content.decode()
            assert "standings" not in body and "rank_low" not in body and "Band</th>" not in body, (persona, name)
    assert "Band</th>" in client_for(world.cast.organizer).get(reverse("leaderboards:phase", args=args)).content.decode()
    time_machine.move_to(world.test_b.reveal_at, tick=False)
    body = client_for(world.cast.outsider).get(reverse("leaderboards:export_json", args=args)).json()
    assert body["significance"]["test"] == "randomization" and "standings" in body["rows"][0]
