"""Per-topic reports: a run's value per topic beside the best, median and worst of the phase's
runs, equal to what the stored per-query values give; which runs count; and the gate (nothing
of it before the judgments are public, another team's run, a surprise language, a frozen board)."""
import csv
import io
from datetime import timedelta
from statistics import median

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.models import Phase
from cupboard.submissions.models import QueryScores
from cupboard.submissions.services import submission_disqualify
from tests.factories import make_qrels_release
from tests.personas import client_for

from .conftest import JUDGMENTS, good_sw, upload
from .test_comparison import scored

OTHER_SW = {"1": ["12#0", "10#0"], "2": ["20#0"], "3": ["30#0"]}
THIRD_SW = {"1": ["10#0", "11#0"], "2": ["21#0"], "3": ["30#0"]}


def page(user, submission, **params):
    return client_for(user).get(reverse("submissions:per_topic", args=[submission.pk]), params)


def report_csv(user, submission):
    return client_for(user).get(reverse("submissions:per_topic_csv", args=[submission.pk]))


def rows_of(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def stored(submission, code="sw", metric="nDCG@10") -> dict[str, float]:
    return QueryScores.objects.get(submission=submission, subset__code=code).values[metric]


@pytest.fixture
def four_runs(world):
    """Four scored runs on dev sw: two of team A, one of team B, a baseline (an even count)."""
    return [scored(world), scored(world, rankings=OTHER_SW), scored(world, team=world.team_b, user=world.outsider,
                                                                     rankings=THIRD_SW),
            scored(world, baseline=True, rankings={"1": ["11#0"], "2": ["20#0", "21#0"], "3": ["30#0"]})]


def test_each_topic_has_the_runs_value_beside_best_median_and_worst_of_the_stored_values(world, four_runs):
    mine = four_runs[0]
    response = page(world.organizer, mine)
    assert response.status_code == 200
    report = response.context["report"]
    assert report.runs == 4 and report.metric == "nDCG@10"
    per_run = [stored(s) for s in four_runs]
    for row in report.rows:
        values = sorted(v[row.topic] for v in per_run)
        assert row.value == stored(mine)[row.topic]
        assert (row.best, row.worst) == (values[-1], values[0])
        assert row.median == pytest.approx((values[1] + values[2]) / 2) == median(values)
    differences = [row.difference for row in report.rows]
    assert differences == sorted(differences, reverse=True) and len(report.rows) == 3
    assert "plotly-chart" in response.content.decode()


def test_the_team_sees_the_same_figures_rounded_and_every_measure_in_the_csv(world, four_runs):
    mine = four_runs[0]
    response = page(world.teammate, mine, subset="sw", measure="R@100")
    assert response.status_code == 200
    rows = {r.topic: r for r in response.context["report"].rows}
    for qid, value in stored(mine, metric="R@100").items():
        assert rows[qid].value == round(value, world.competition.decimals)
    found = rows_of(report_csv(world.participant, mine))
    assert {(r["language"], r["measure"]) for r in found} == {("sw", "nDCG@10"), ("sw", "R@100")}
    by_topic = {r["topic"]: r for r in found if r["measure"] == "nDCG@10"}
    per_run = [stored(s) for s in four_runs]
    for qid, value in stored(mine).items():
        row, values, digits = by_topic[qid], [v[qid] for v in per_run], world.competition.decimals
        assert float(row["run"]) == round(value, world.competition.decimals)
        assert float(row["median"]) == round(median(values), world.competition.decimals)
        assert (float(row["best"]), float(row["worst"])) == (round(max(values), digits), round(min(values), digits))


def test_disqualified_runs_pending_runs_and_runs_without_the_language_do_not_count(world, four_runs):
    submission_disqualify(submission=four_runs[3], actor=world.organizer, reason="test")
    scored(world, files=[(upload("run.te.txt", {"1": ["10#1"], "2": ["20#1"]}), None)])  # no sw run
    from cupboard.submissions.services import submission_create

    submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="pending",
                      files=[(upload("run.sw.txt", {"1": ["10#0"]}), None)])
    report = page(world.organizer, four_runs[0]).context["report"]
    assert report.runs == 3
    values = sorted(stored(s)["1"] for s in four_runs[:3])
    assert next(r for r in report.rows if r.topic == "1").median == values[1]
    # The disqualified run still has its own report, set against the runs that count.
    assert page(world.organizer, four_runs[3]).context["report"].runs == 3


def test_a_hidden_phase_has_nothing_of_it_until_its_judgments_are_public(world):
    make_qrels_release(world.test_b, JUDGMENTS)
    Phase.objects.filter(pk=world.test_b.pk).update(before_reveal=Phase.BeforeReveal.EVERYTHING)
    mine = scored(world, phase=world.test_b)
    url = reverse("submissions:per_topic", args=[mine.pk])
    for response in (page(world.participant, mine), report_csv(world.participant, mine)):
        assert response.status_code == 404
    assert url not in client_for(world.participant).get(mine.get_absolute_url()).content.decode()
    mine_page = client_for(world.participant).get(reverse("submissions:mine", args=[world.competition.slug]))
    assert url not in mine_page.content.decode()
    assert page(world.organizer, mine).status_code == 200
    with time_machine.travel(world.test_b.reveal_at + timedelta(seconds=1)):
        assert page(world.participant, mine).status_code == 200
        assert report_csv(world.participant, mine).status_code == 200
        assert url in client_for(world.participant).get(mine.get_absolute_url()).content.decode()
        mine_page = client_for(world.participant).get(reverse("submissions:mine", args=[world.competition.slug]))
        assert url in mine_page.content.decode()


def test_another_teams_run_a_baseline_and_anonymous_visitors_get_nothing(world, four_runs):
    theirs, baseline = four_runs[2], four_runs[3]
    assert page(world.participant, theirs).status_code == 404
    assert report_csv(world.participant, theirs).status_code == 404
    assert page(world.participant, baseline).status_code == 404
    assert page(world.anonymous, four_runs[0]).status_code == 302
    assert page(world.organizer, theirs).status_code == 200 and page(world.organizer, baseline).status_code == 200


def test_a_surprise_language_is_left_out_until_its_reveal(world):
    """A team ran yo once it was revealed; the organizers then moved the reveal later."""
    surprise = world.competition.groups.get(name="surprise")
    reveal_at = surprise.reveal_at
    surprise.reveal_at = timezone.now() - timedelta(hours=1)
    surprise.save()
    files = [(upload("run.sw.txt", good_sw()), None), (upload("run.yo.txt", {"1": ["10#2"]}), None)]
    mine = scored(world, files=files)
    surprise.reveal_at = reveal_at
    surprise.save()
    assert [s.code for s in page(world.participant, mine).context["subsets"]] == ["sw"]
    assert page(world.participant, mine, subset="yo").status_code == 404
    assert {r["language"] for r in rows_of(report_csv(world.participant, mine))} == {"sw"}
    assert "Yoruba" not in page(world.participant, mine).content.decode()
    assert [s.code for s in page(world.organizer, mine).context["subsets"]] == ["sw", "yo"]
    with time_machine.travel(reveal_at + timedelta(seconds=1)):
        assert {r["language"] for r in rows_of(report_csv(world.participant, mine))} == {"sw", "yo"}


def test_a_frozen_board_and_a_phase_without_per_query_values_close_it_for_teams(world, four_runs):
    Phase.objects.filter(pk=world.dev.pk).update(freeze_at=timezone.now() - timedelta(hours=1))
    assert page(world.participant, four_runs[0]).status_code == 404
    assert page(world.organizer, four_runs[0]).status_code == 200
    Phase.objects.filter(pk=world.dev.pk).update(freeze_at=None, per_query_visible=False)
    assert page(world.participant, four_runs[0]).status_code == 404
    Phase.objects.filter(pk=world.dev.pk).update(per_query_visible=True)
    assert page(world.participant, four_runs[0]).status_code == 200


def test_a_run_waiting_for_its_rescore_has_no_report(world, four_runs):
    make_qrels_release(world.dev, JUDGMENTS)  # a new version: the stored scores are the old one's
    assert page(world.organizer, four_runs[0]).status_code == 404


def test_the_organizers_phase_csv_holds_every_runs_per_topic_values(world, four_runs):
    submission_disqualify(submission=four_runs[3], actor=world.organizer, reason="test")
    url = reverse("competitions:manage_per_topic", args=[world.competition.slug, "dev"])
    assert client_for(world.participant).get(url).status_code == 403
    for area in (reverse("competitions:manage", args=[world.competition.slug]),
                 reverse("competitions:manage_scoring", args=[world.competition.slug, "dev"])):
        assert url in client_for(world.organizer).get(area).content.decode()
    response = client_for(world.organizer).get(url)
    assert response.status_code == 200
    found = rows_of(type("R", (), {"content": b"".join(response.streaming_content)}))
    header = list(found[0])
    runs = [h for h in header if h.startswith("run ")]
    assert len(runs) == 4 and runs[3].endswith(" (disqualified)")
    row = next(r for r in found if r["language"] == "sw" and r["topic"] == "2" and r["measure"] == "nDCG@10")
    counted = [stored(s)["2"] for s in four_runs[:3]]
    assert float(row["median"]) == median(counted) and float(row["best"]) == max(counted)
    for run, submission in zip(runs, four_runs, strict=True):
        assert float(row[run]) == stored(submission)["2"]


def test_the_page_asks_the_same_queries_however_many_runs_count(world):
    """The counted runs' per-query values are read in one query per language, not one per run."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    mine = scored(world)
    counts = []
    for rankings in (OTHER_SW, THIRD_SW):
        scored(world, team=world.team_b, user=world.outsider, rankings=rankings)
        with CaptureQueriesContext(connection) as queries:
            assert page(world.participant, mine).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
