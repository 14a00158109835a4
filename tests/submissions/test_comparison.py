"""Comparing two submissions: the figures are the evaluator's tests on the stored per-query
values, and only where those values may be seen (no hidden judgments, no surprise language)."""
import pytest
from django.urls import reverse

from cupboard.submissions.comparison import SEED, TRIALS
from cupboard.submissions.models import QueryScores, Score
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from evaluator.significance import paired_t_test, randomization_test
from tests.factories import make_qrels_release
from tests.personas import client_for

from .conftest import JUDGMENTS, good_sw, upload


def scored(world, *, phase=None, team=None, user=None, rankings=None, baseline=False, files=None):
    submission = submission_create(
        phase=phase or world.dev, team=None if baseline else (team or world.team_a),
        user=world.organizer if baseline else (user or world.participant), method_name="run", is_baseline=baseline,
        files=files or [(upload("run.sw.txt", rankings or good_sw()), None)])
    assert submission_score(submission_id=submission.pk) == "scored"
    submission.refresh_from_db()
    return submission


def compare(user, a, b):
    return client_for(user).get(reverse("submissions:compare", args=[a.pk]), {"with": b.pk})


def test_it_shows_the_evaluators_tests_on_the_stored_per_query_values(world):
    a = scored(world)
    b = scored(world, rankings={"1": ["12#0", "10#0"], "2": ["20#0"], "3": ["30#0"]})
    response = compare(world.participant, a, b)
    assert response.status_code == 200
    row = next(r for r in response.context["rows"] if r["subset"].code == "sw" and r["metric"] == "nDCG@10")
    per_a = QueryScores.objects.get(submission=a, subset__code="sw").values["nDCG@10"]
    per_b = QueryScores.objects.get(submission=b, subset__code="sw").values["nDCG@10"]
    assert row["a"] == pytest.approx(Score.objects.get(submission=a, subset__code="sw", metric="nDCG@10").value)
    assert row["b"] == pytest.approx(Score.objects.get(submission=b, subset__code="sw", metric="nDCG@10").value)
    assert row["p_t"] == paired_t_test(per_a, per_b).p_value
    assert row["p_randomization"] == randomization_test(per_a, per_b, trials=TRIALS, seed=SEED).p_value
    assert row["queries"] == 3 and row["difference"] == pytest.approx(row["a"] - row["b"])
    assert "plotly-chart" in response.content.decode()


def test_it_offers_the_teams_other_runs_and_the_baselines_but_not_other_teams(world):
    a, own = scored(world), scored(world, rankings={"1": ["10#0"]})
    baseline = scored(world, baseline=True)
    other_team = scored(world, team=world.team_b, user=world.outsider)
    offered = list(client_for(world.participant).get(a.get_absolute_url()).context["comparable"])
    assert offered == [baseline, own]  # newest first
    assert compare(world.participant, a, other_team).status_code == 404  # as a number no run has
    assert compare(world.organizer, a, other_team).status_code == 200


def test_a_phase_with_hidden_judgments_is_compared_by_organizers_only(world):
    make_qrels_release(world.test_b, JUDGMENTS)
    a = scored(world, phase=world.test_b)
    b = scored(world, phase=world.test_b, rankings={"1": ["10#0"]})
    assert compare(world.participant, a, b).status_code == 403
    assert client_for(world.participant).get(a.get_absolute_url()).context["comparable"] == []
    assert compare(world.organizer, a, b).status_code == 200


def test_a_surprise_language_is_left_out_until_its_reveal(world):
    a = scored(world)
    baseline = scored(world, baseline=True, files=[(upload("run.sw.txt", good_sw()), None),
                                                   (upload("run.yo.txt", {"1": ["10#2"]}), None)])
    codes = {r["subset"].code for r in compare(world.participant, a, baseline).context["rows"]}
    assert codes == {"sw", "te"}
    organizer_codes = {r["subset"].code for r in compare(world.organizer, a, baseline).context["rows"]}
    assert organizer_codes == {"sw", "te", "yo"}


def test_every_offered_submission_can_be_compared_and_no_other(world):
    """comparable_submissions spells can_compare's rule as a query: the two must agree."""
    from django.utils import timezone

    from cupboard.competitions.viewer import Viewer
    from cupboard.submissions.comparison import can_compare, comparable_submissions
    from cupboard.submissions.models import Submission

    runs = [scored(world), scored(world, rankings={"1": ["10#0"]}), scored(world, baseline=True),
            scored(world, team=world.team_b, user=world.outsider)]
    now = timezone.now()
    for user in (world.anonymous, world.participant, world.teammate, world.outsider, world.organizer,
                 world.other_organizer):
        for submission in runs:
            offered = set(comparable_submissions(Viewer(user, submission.phase.competition, now), submission))
            allowed = {o for o in Submission.objects.exclude(pk=submission.pk)
                       if can_compare(Viewer(user, submission.phase.competition, now), submission, o)}
            assert offered == allowed, (user, submission)


def test_a_scored_runs_page_reads_as_much_with_many_runs_to_compare_as_with_one(world):
    """The first view of a just-scored run's page (what `make bench-web` times): the runs it may
    be compared with are read in one query of the columns the list shows, whatever their number,
    its run files once for the table and the list, its team's competition with the run (24
    queries before; the bench's first view, with its kept-page checks, 26 then and 24 now)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def first_view(run) -> tuple[int, list]:
        client = client_for(world.participant)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(run.get_absolute_url())
        assert response.status_code == 200 and "Per-query values" in response.content.decode()
        return len(queries), list(response.context["comparable"])

    def run(i: int):
        return scored(world, rankings={"1": [f"{10 + i}#0"], "2": ["20#0"]})

    run(0)
    few, offered = first_view(run(1))
    assert len(offered) == 1
    for i in range(2, 6):
        run(i)
    many, offered = first_view(run(6))
    assert len(offered) == 6 and all(str(run) == f"Team A #{run.number}: run" for run in offered)
    assert many == few == 22
