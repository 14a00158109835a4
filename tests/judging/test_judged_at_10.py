"""Judged@10 is computed when a run is scored, kept apart from its scores, shown on the
submission page to whom may see it, with a warning when it is far below the baselines'."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from cupboard.competitions.viewer import Viewer
from cupboard.judging.judged import phase_judged
from cupboard.judging.models import JudgedShare
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import QueryScores, Score
from tests.factories import make_team
from tests.leaderboards.conftest import make_scored, ndcg
from tests.personas import client_for

pytestmark = pytest.mark.django_db


def judged(submission) -> dict[str, float]:
    return {s.subset.code: s.value for s in JudgedShare.objects.filter(submission=submission).select_related("subset")}


def test_it_stores_judged_at_10_per_subset_when_scoring(scene):
    # A q1: a1 n1 judged of 10 -> 0.2; q2: b1 -> 0.1. te: no run, judged queries score 0.
    assert judged(scene.sub_a) == pytest.approx({"sw": 0.15, "te": 0.0})
    # B q1: a2 -> 0.1; q2: nothing -> 0. Baseline q1: a1 a2 n1 -> 0.3; q2: b1 -> 0.1.
    assert judged(scene.sub_b)["sw"] == pytest.approx(0.05)
    assert judged(scene.baseline)["sw"] == pytest.approx(0.2)


def test_it_is_not_a_score_nor_a_per_query_value(scene):
    assert not Score.objects.filter(metric="Judged@10").exists()
    assert all("Judged@10" not in qs.values for qs in QueryScores.objects.all())


def test_rescoring_replaces_it(scene):
    from cupboard.submissions.models import Submission
    from cupboard.submissions.scoring import submission_score

    Submission.objects.filter(pk=scene.sub_a.pk).update(status="queued", attempts=0)
    assert submission_score(submission_id=scene.sub_a.pk) == "scored"
    assert JudgedShare.objects.filter(submission=scene.sub_a).count() == 2


def test_the_team_sees_it_with_a_warning_when_far_below_the_baselines(scene):
    page = client_for(scene.outsider).get(reverse("submissions:detail", args=[scene.sub_b.pk])).content.decode()
    assert 'id="judged"' in page and "0.05" in page
    # team B: 0.05 against the baseline's 0.20, not 0.2 below: no warning
    assert 'id="judged-warning"' not in page
    JudgedShare.objects.filter(submission=scene.baseline, subset__code="sw").update(value=0.9)
    page = client_for(scene.outsider).get(reverse("submissions:detail", args=[scene.sub_b.pk])).content.decode()
    assert 'id="judged-warning"' in page and "a lower bound" in page


def test_on_hidden_judgments_only_organizers_see_it(hidden_scene):
    url = reverse("submissions:detail", args=[hidden_scene.sub_a.pk])
    for persona in ("participant", "teammate"):
        page = client_for(getattr(hidden_scene, persona)).get(url).content.decode()
        assert 'id="judged"' not in page and "Judged@10" not in page, persona
    page = client_for(hidden_scene.organizer).get(url).content.decode()
    assert 'id="judged"' in page


def test_once_the_judgments_are_public_the_team_sees_it(hidden_scene, time_machine):
    time_machine.move_to(hidden_scene.test_b.reveal_at, tick=False)
    page = client_for(hidden_scene.participant).get(
        reverse("submissions:detail", args=[hidden_scene.sub_a.pk])).content.decode()
    assert 'id="judged"' in page


def test_under_own_scores_only_the_baselines_figure_stays_hidden(hidden_scene, time_machine):
    """A phase whose judgments are public but whose runs show only their own scores before the
    reveal: the team sees its Judged@10, not the baselines'."""
    from cupboard.competitions.models import Phase

    Phase.objects.filter(pk=hidden_scene.test_b.pk).update(hidden_qrels=False, before_reveal="own")
    page = client_for(hidden_scene.participant).get(
        reverse("submissions:detail", args=[hidden_scene.sub_a.pk])).content.decode()
    assert 'id="judged"' in page and "0.15" in page and "0.20" not in page  # the baseline's is 0.20
    time_machine.move_to(hidden_scene.test_b.reveal_at, tick=False)
    page = client_for(hidden_scene.participant).get(
        reverse("submissions:detail", args=[hidden_scene.sub_a.pk])).content.decode()
    assert "0.20" in page


def test_everyone_sees_the_phase_table_where_the_judgments_are_public(scene):
    page = client_for(scene.anonymous).get(reverse("judging:phase_judged", args=["cup", "dev"])).content.decode()
    assert 'id="judged"' in page and "Team A" in page and "0.15" in page
    # an anonymous visitor is linked to the public baseline's page, not to the teams' runs
    assert reverse("submissions:detail", args=[scene.baseline.pk]) in page
    assert reverse("submissions:detail", args=[scene.sub_a.pk]) not in page


def test_the_phase_table_waits_for_hidden_judgments(hidden_scene, time_machine):
    url = reverse("judging:phase_judged", args=["cup", "test-b"])
    page = client_for(hidden_scene.participant).get(url).content.decode()
    assert 'id="judged"' not in page and "once the judgments and the" in page
    time_machine.move_to(hidden_scene.test_b.reveal_at, tick=False)
    assert 'id="judged"' in client_for(hidden_scene.participant).get(url).content.decode()


def test_the_phase_table_rounds_once_from_the_stored_value(scene):
    """Rounded first to the competition's 3 decimals, 0.2249 showed as 0.23."""
    assert scene.competition.decimals == 3
    JudgedShare.objects.filter(submission=scene.sub_a, subset__code="sw").update(value=0.2249)
    page = client_for(scene.anonymous).get(reverse("judging:phase_judged", args=["cup", "dev"])).content.decode()
    assert "0.22" in page and "0.23" not in page and '"z":[[0.22' in page


def test_the_submission_page_shows_and_warns_only_for_the_languages_the_run_has(scene):
    """Team A ran sw only: its te Judged@10 is stored as 0 (its judged queries count 0), far
    below a baseline's 0.9 there, but the run has no te to warn about."""
    JudgedShare.objects.filter(submission=scene.baseline, subset__code="te").update(value=0.9)
    page = client_for(scene.participant).get(reverse("submissions:detail", args=[scene.sub_a.pk])).content.decode()
    section = page.split('id="judged"')[1].split("</section>")[0]
    assert "<td>sw</td>" in section and "<td>te</td>" not in section
    assert 'id="judged-warning"' not in page


def test_the_phase_table_names_a_baseline_once(scene):
    page = client_for(scene.anonymous).get(reverse("judging:phase_judged", args=["cup", "dev"])).content.decode()
    table = page.split('id="judged"')[1].split("</table>")[0]
    assert table.count("method base") == 1 and "Baseline: method base" in table
    assert table.count("method A") == 1  # a team's run: its method beside the team's name


def test_organizers_see_every_counted_run_of_a_team(scene):
    """Issue 34: a team's run that is not its leaderboard row is in the organizers' table too
    (its own line, unranked); the public table keeps the board's rows."""
    from tests.judging.conftest import submit

    second = submit(scene.dev, team=scene.team_a, user=scene.participant, key="B")
    url = reverse("judging:phase_judged", args=["cup", "dev"])
    organizers = client_for(scene.organizer).get(url).content.decode()
    counted = scene.dev.submissions.filter(status="scored", disqualified=False).count()
    assert counted == 4 and scene.dev.leaderboard_rows.count() == 3
    for run in (second, scene.sub_a):
        assert reverse("submissions:detail", args=[run.pk]) in organizers
    rows = phase_judged(scene.dev, Viewer(scene.organizer, scene.competition))["rows"]
    assert len(rows) == counted and sum(r["label"].endswith("Team A") for r in rows) == 2
    assert len(phase_judged(scene.dev, Viewer(None, scene.competition))["rows"]) == 3


def test_the_phase_table_reads_its_rows_in_queries_that_do_not_grow_with_them(scene):
    """Each row's link asks whether the viewer sees its run, which reads the run's team: read with
    the rows, not once per row (500 queries on a miss of the bench's board, a tail for its visitors)."""
    def queries() -> int:
        viewer = Viewer(None, scene.competition)
        with CaptureQueriesContext(connection) as read:
            assert len(phase_judged(scene.dev, viewer)["rows"]) == scene.dev.leaderboard_rows.count()
        return len(read)

    few = queries()
    for n in range(5):
        make_scored(scene.dev, team=make_team(scene.competition, name=f"Team {n}"), scores=ndcg(sw=0.1 * n))
    leaderboard_refresh(phase=scene.dev)
    assert scene.dev.leaderboard_rows.count() == 8 and queries() == few
