"""The load test's table says what happened: a submission counts as lost exactly when the
docs/benchmarks.md says so, and each fault's recovery is measured from its end."""
from pathlib import Path

from scripts.loadtest.database import Row
from scripts.loadtest.datasets import RunSet
from scripts.loadtest.report import Fault, Scenario, is_lost, percentile, summarise

RUNS = RunSet(0, (Path("run.sw.txt"),), ("0" * 64,))


def upload(number, status, *, started=100.0, finished=101.0, cut=False):
    from scripts.loadtest.uploads import Upload

    return Upload("redis", number, 0, RUNS, started=started, finished=finished, status=status, cut=cut)


def row(number, status, *, created=100.5, scored=None):
    return Row(number, f"redis {number:03d}", status, created, scored, 1)


def test_it_counts_an_acknowledged_submission_not_scored_in_time_as_lost():
    assert is_lost(upload(1, 201), row(1, "scoring"), deadline=300)
    assert is_lost(upload(1, 201), row(1, "scored", scored=301), deadline=300)
    assert not is_lost(upload(1, 201), row(1, "scored", scored=299), deadline=300)


def test_it_counts_a_failed_submission_as_lost_since_every_run_sent_is_valid():
    assert is_lost(upload(1, 201), row(1, "failed"), deadline=300)


def test_it_counts_a_500_whose_row_exists_by_that_row():
    assert is_lost(upload(1, 500), row(1, "failed"), deadline=300)
    assert not is_lost(upload(1, 500), row(1, "scored", scored=200), deadline=300)


def test_it_counts_no_answer_and_no_row_as_lost_but_not_a_clean_refusal():
    assert is_lost(upload(1, None), None, deadline=300)
    assert is_lost(upload(1, 201), None, deadline=300)
    assert not is_lost(upload(1, 503), None, deadline=300)
    assert not is_lost(upload(1, 500), None, deadline=300)


def test_it_measures_recovery_from_the_end_of_the_fault():
    uploads = [upload(1, 201, finished=105), upload(2, 503, finished=112), upload(3, 201, finished=118)]
    rows = {"redis 001": row(1, "scored", created=104, scored=106),
            "redis 003": row(3, "scored", created=117, scored=140)}
    scenario = Scenario("redis", "outage", uploads, [Fault("redis", start=100, end=115)])
    cells = summarise(scenario, rows, duplicated=0, causes=[]).cells
    assert cells["201"] == "2" and cells["503"] == "1" and cells["lost"] == "0"
    assert cells["recovery: 201 / all scored s"] == "3.0 / 0.0"  # the one created before the end was scored before it


def test_it_measures_a_kill_by_the_submissions_it_interrupted():
    uploads = [upload(1, 201, finished=101)]
    rows = {"redis 001": row(1, "scored", created=100.5, scored=160)}
    scenario = Scenario("kills", "kills", uploads, [Fault("kill 1", start=110, end=110.5, held=[1])])
    assert summarise(scenario, rows, duplicated=0, causes=[]).cells["recovery: 201 / all scored s"] == "never / 49.5"


def test_it_takes_nearest_rank_percentiles():
    assert percentile([], 50) is None
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(n) for n in range(1, 101)], 95) == 95.0
