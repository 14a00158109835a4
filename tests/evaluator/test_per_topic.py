"""Per-topic ranges over runs: best, median (an even count: the mean of the middle two) and
worst, worked out by hand; the report's order by difference to the median."""
import pytest

from evaluator.per_topic import TopicRange, by_difference, topic_ranges

RUNS = [{"1": 0.5, "2": 0.0, "3": 1.0}, {"1": 0.25, "2": 0.5, "3": 1.0},
        {"1": 0.75, "2": 0.125}, {"1": 0.0, "2": 1.0, "3": 0.5}]


def test_it_gives_best_median_and_worst_of_an_even_count_of_runs():
    ranges = topic_ranges(RUNS)
    assert ranges["1"] == TopicRange(best=0.75, median=(0.25 + 0.5) / 2, worst=0.0, runs=4)
    assert ranges["2"] == TopicRange(best=1.0, median=(0.125 + 0.5) / 2, worst=0.0, runs=4)


def test_it_counts_only_the_runs_with_a_value_for_a_topic():
    assert topic_ranges(RUNS)["3"] == TopicRange(best=1.0, median=1.0, worst=0.5, runs=3)
    assert topic_ranges([{"9": 0.3}]) == {"9": TopicRange(best=0.3, median=0.3, worst=0.3, runs=1)}
    assert topic_ranges([]) == {}


def test_it_orders_topics_by_the_runs_difference_to_the_median_largest_gain_first():
    ranges = topic_ranges(RUNS)
    run = RUNS[0]  # 1: +0.125, 2: -0.3125, 3: 0.0
    assert by_difference(run, ranges) == ["1", "3", "2"]


def test_it_breaks_ties_by_topic_in_numeric_order_and_skips_topics_without_a_range():
    ranges = {q: TopicRange(best=1.0, median=0.5, worst=0.0, runs=2) for q in ("10", "9", "a")}
    assert by_difference({"10": 0.5, "9": 0.5, "a": 0.5, "11": 0.9}, ranges) == ["9", "10", "a"]


def test_it_does_not_change_its_input():
    runs = [dict(r) for r in RUNS]
    topic_ranges(runs)
    assert runs == RUNS
    assert pytest.approx(topic_ranges(RUNS)["2"].median) == 0.3125
