"""A worker kill is judged by the submissions its own processes were scoring."""
from scripts.loadtest.scenarios import _held


def test_it_picks_the_killed_processes_claims_by_pid():
    scoring = [(1, "vm:100"), (2, "vm:200"), (3, "vm:300")]
    assert _held(scoring, killed={99, 200, 300}) == [2, 3]


def test_it_falls_back_to_everything_being_scored_where_claims_name_no_process():
    assert _held([(1, ""), (2, "")], killed={200}) == [1, 2]
    assert _held([], killed={200}) == []
