"""A new qrels version keeps the leaderboard it replaces, counts its new, flipped and dropped
judgments, and the "what changed" page shows them and each team's score and rank before and
after, per language."""
from django.urls import reverse

from cupboard.competitions.services import qrels_release_create
from cupboard.judging.models import ReleaseStandings
from cupboard.judging.standings import changes, judgment_changes, release_changes
from cupboard.submissions.models import Submission
from cupboard.submissions.scoring import submission_score
from tests.factories import qrels_text
from tests.judging.conftest import JUDGMENTS, D
from tests.personas import client_for


def judge_more(scene, capture):
    """Assessors found u1 and x1 relevant for q1 (team B's), and x3 for q2: B climbs. The
    release re-scores the phase after its commit (`capture` runs that), as the worker would."""
    sw = {q: dict(docs) for q, docs in JUDGMENTS["sw"].items()}
    sw["1"].update({D["u1"]: 1, D["x1"]: 1, D["u2"]: 0})
    sw["2"].update({D["x3"]: 1})
    with capture(execute=True):
        release = qrels_release_create(phase=scene.dev, files={"sw": qrels_text(sw)}, actor=scene.organizer,
                                       note="pool #1 judged")
    for pk in Submission.objects.filter(phase=scene.dev, status="queued").values_list("pk", flat=True):
        assert submission_score(submission_id=pk) == "scored"
    return release


def test_the_first_release_keeps_nothing_and_a_new_one_keeps_the_board_it_replaces(scene, django_capture_on_commit_callbacks):
    assert not ReleaseStandings.objects.exists()
    before = {r.team_id: (r.rank, r.primary_value) for r in scene.dev.leaderboard_rows.filter(is_baseline=False)}
    release = judge_more(scene, django_capture_on_commit_callbacks)
    kept = ReleaseStandings.objects.get(release=release)
    assert {r["key"]: r["rank"] for r in kept.rows if not r["is_baseline"]} == \
        {f"team-{team}": rank for team, (rank, _) in before.items()}
    assert kept.new_judgments == {"sw": 4}  # te was carried forward: not new
    assert kept.judgment_changes == {"sw": {"new": 4, "flipped": {}, "dropped": 0}}


def test_it_counts_flipped_labels_by_kind_and_dropped_judgments():
    before = {("1", "a"): 1, ("1", "b"): 0, ("1", "c"): 0, ("2", "d"): 2, ("2", "e"): 1}
    after = {("1", "a"): 0, ("1", "b"): 1, ("1", "c"): 1, ("2", "d"): 2, ("3", "f"): 0}
    assert judgment_changes(before, after) == {"new": 1, "flipped": {"0->1": 2, "1->0": 1}, "dropped": 1}
    assert judgment_changes({}, after) == {"new": 5, "flipped": {}, "dropped": 0}


def test_a_release_that_flips_and_drops_says_so_per_language(scene, django_capture_on_commit_callbacks):
    """Assessors re-judged q1: a1 is not relevant after all and n1 is; b1 of q2 is no longer
    judged (q2 keeps a new one, x3). Team A had a1 on top: it falls."""
    sw = {"1": {D["a1"]: 0, D["a2"]: 1, D["n1"]: 1}, "2": {D["x3"]: 0}}
    with django_capture_on_commit_callbacks(execute=True):
        release = qrels_release_create(phase=scene.dev, files={"sw": qrels_text(sw)}, actor=scene.organizer)
    for pk in Submission.objects.filter(phase=scene.dev, status="queued").values_list("pk", flat=True):
        assert submission_score(submission_id=pk) == "scored"
    kept = ReleaseStandings.objects.get(release=release)
    assert kept.judgment_changes == {"sw": {"new": 1, "flipped": {"0->1": 1, "1->0": 1}, "dropped": 1}}
    page = client_for(scene.organizer).get(reverse("judging:qrels_changes", args=["cup", "dev", release.number]))
    table = page.content.decode().split('id="judgments"')[1].split("</section>")[0]
    assert "<td>sw</td><td class=\"num\">1</td>" in table and "0-&gt;1: 1" in table and "1-&gt;0: 1" in table
    assert table.count('<td class="num">1</td>') == 2 and '<td class="num">2</td>' in table  # new 1, dropped 1; 2 flips


def test_a_release_kept_before_flips_were_counted_shows_its_new_judgments(scene, django_capture_on_commit_callbacks):
    release = judge_more(scene, django_capture_on_commit_callbacks)
    ReleaseStandings.objects.filter(release=release).update(judgment_changes={})
    page = client_for(scene.organizer).get(reverse("judging:qrels_changes", args=["cup", "dev", release.number]))
    table = page.content.decode().split('id="judgments"')[1].split("</section>")[0]
    assert '<td>sw</td><td class="num">4</td>' in table and "not counted for this version" in table


def test_it_shows_before_and_after_with_ranks_per_language(scene, django_capture_on_commit_callbacks):
    release = judge_more(scene, django_capture_on_commit_callbacks)
    found = release_changes(release)
    assert found.is_current and found.waiting == 0 and found.previous_number == 1
    rows = {c.name: c for c in changes(found.before, found.after, "sw")}
    a, b = rows["Team A"], rows["Team B"]
    assert (a.rank_before, b.rank_before) == (1, 2) and (a.rank_after, b.rank_after) == (2, 1)
    assert b.after > b.before and b.moved == 1 and a.moved == -1
    assert rows["Baseline: method base"].rank_after is None
    page = client_for(scene.organizer).get(reverse("judging:qrels_changes", args=["cup", "dev", release.number]),
                                           {"column": "sw"}).content.decode()
    assert '<td>sw</td><td class="num">4</td>' in page and "▲ 1" in page and "▼ 1" in page and "Team B" in page


def test_a_later_release_freezes_the_after_of_the_one_before(scene, django_capture_on_commit_callbacks):
    release = judge_more(scene, django_capture_on_commit_callbacks)
    after = release_changes(release).after
    sw = {q: dict(docs) for q, docs in JUDGMENTS["sw"].items()}
    qrels_release_create(phase=scene.dev, files={"sw": qrels_text(sw)}, actor=scene.organizer, note="undo")
    found = release_changes(release)
    assert not found.is_current and found.waiting == 0
    assert found.after == after  # what v3 kept as its "before" is v2's "after", though scores move again


def test_the_phase_first_judgments_have_no_changes_page(scene):
    response = client_for(scene.organizer).get(reverse("judging:qrels_changes", args=["cup", "dev", 1]))
    assert response.status_code == 404
