import numpy as np
import pytest
from scipy import stats

from evaluator.rank_bands import BandSettings, Standing, column_standings

FAST = BandSettings(trials=2000, samples=500)


def _systems(means, queries=200, noise=0.05, seed=0):
    """Systems x queries: each system its mean plus shared per-query difficulty and a little noise."""
    rng = np.random.default_rng(seed)
    difficulty = rng.normal(0, 0.2, queries)
    return np.array([m + difficulty + rng.normal(0, noise, queries) for m in means])


def test_it_gives_separate_ranks_to_clearly_different_systems():
    result = column_standings({"sw": _systems([0.6, 0.5, 0.4])}, {"sw": ["sw"]}, settings=FAST)["sw"]
    assert [result[i].band for i in range(3)] == ["1", "2", "3"]
    assert [result[i].tier for i in range(3)] == [1, 2, 3]


def test_it_ties_systems_that_differ_by_noise_only():
    values = _systems([0.5, 0.5, 0.3], noise=0.2, seed=3)
    result = column_standings({"sw": values}, {"sw": ["sw"]}, settings=FAST)["sw"]
    leader = int(np.argmax(values[:2].mean(axis=1)))
    assert {result[0].band, result[1].band} == {"1-2"} and result[2].band == "3"
    assert result[0].tier == result[1].tier == 1 and result[2].tier == 2
    assert result[leader].low == 1


def test_it_gives_the_same_answer_with_the_same_seed_and_another_with_another():
    values = {"sw": _systems([0.5, 0.49, 0.47, 0.3], noise=0.1)}
    first = column_standings(values, {"sw": ["sw"]}, settings=FAST)
    assert column_standings(values, {"sw": ["sw"]}, settings=FAST) == first
    other = column_standings(values, {"sw": ["sw"]}, settings=BandSettings(trials=2000, samples=500, seed=9))
    assert [other["sw"][i].ci_low for i in range(4)] != [first["sw"][i].ci_low for i in range(4)]


def test_its_t_test_is_scipys_paired_t_test():
    # Two systems, one subset: a pair is significant exactly when ttest_rel's p is below alpha.
    rng = np.random.default_rng(1)
    a = rng.random(30)
    for shift in (0.0, 0.02, 0.05, 0.1, 0.2):
        b = np.clip(a - shift + rng.normal(0, 0.1, 30), 0, 1)
        p = stats.ttest_rel(a, b).pvalue
        result = column_standings({"x": np.array([a, b])}, {"x": ["x"]},
                                  settings=BandSettings(test="t-test", samples=10))["x"]
        ordered = sorted(result.values(), key=lambda s: s.low)
        assert (ordered[0].band == "1") == (p < 0.05), shift


def test_its_randomization_test_agrees_with_exact_enumeration():
    # 8 queries: all 256 sign patterns give the exact p; 20,000 trials land close to it.
    diff = np.array([0.3, 0.2, 0.25, -0.05, 0.1, 0.15, 0.2, 0.3])
    patterns = np.array([[1 if (i >> j) & 1 else -1 for j in range(8)] for i in range(256)])
    exact = np.mean(np.abs(patterns @ diff) >= abs(diff.sum()) - 1e-12)  # 2/256 + ... < 0.05
    assert exact < 0.05
    values = np.array([0.5 + diff, np.full(8, 0.5)])
    result = column_standings({"x": values}, {"x": ["x"]}, settings=BandSettings(trials=20_000, samples=10))["x"]
    assert result[0].band == "1" and result[1].band == "2"
    loose = np.array([0.5 + diff * np.array([1, -1, 1, -1, 1, -1, 1, 1]), np.full(8, 0.5)])
    result = column_standings({"x": loose}, {"x": ["x"]}, settings=BandSettings(trials=20_000, samples=10))["x"]
    assert result[0].band == result[1].band == "1-2"


def test_it_corrects_each_systems_comparisons_together():
    # Five systems, a mild gap: uncorrected every neighbour pair may separate, Holm separates fewer.
    values = _systems([0.55, 0.5, 0.45, 0.4, 0.35], noise=0.45, seed=4)
    none = column_standings({"x": values}, {"x": ["x"]}, settings=BandSettings(correction="none", trials=2000))["x"]
    held = column_standings({"x": values}, {"x": ["x"]}, settings=BandSettings(trials=2000))["x"]
    width = lambda r: sum(s.high - s.low for s in r.values())  # noqa: E731
    assert width(held) > width(none)
    assert all(held[i].low <= none[i].low and held[i].high >= none[i].high for i in range(5))


def test_it_tests_an_average_on_the_queries_of_all_its_subsets():
    # Averaged over two subsets of 10 and 400 queries, each subset weighs one half (the
    # macro average), not its share of the queries: A leads on the average, B on the pooled mean.
    rng = np.random.default_rng(2)
    small = np.array([np.full(10, 0.9), np.full(10, 0.1)]) + rng.normal(0, 0.01, (2, 10))
    large = np.array([np.full(400, 0.4), np.full(400, 0.5)]) + rng.normal(0, 0.01, (2, 400))
    result = column_standings({"s": small, "l": large}, {"avg": ["s", "l"]}, settings=FAST)["avg"]
    assert result[0].band == "1" and result[1].band == "2"
    assert result[0].ci_low < (0.9 + 0.4) / 2 < result[0].ci_high


def test_its_interval_holds_the_mean_and_is_a_point_for_a_constant_system():
    values = _systems([0.5, 0.4], noise=0.1)
    result = column_standings({"x": np.vstack([values, np.full((1, 200), 0.25)])}, {"x": ["x"]}, settings=FAST)["x"]
    for i in range(2):
        assert result[i].ci_low < values[i].mean() < result[i].ci_high
    assert result[2].ci_low == pytest.approx(0.25) == result[2].ci_high


def test_it_leaves_out_a_system_without_a_run_or_counts_it_zero_on_averages():
    values = _systems([0.6, 0.5])
    missing = np.vstack([values[:1], np.full((1, 200), np.nan)])
    subsets, columns = {"a": values, "b": missing}, {"a": ["a"], "b": ["b"], "avg": ["a", "b"]}
    zero = column_standings(subsets, columns, settings=FAST)
    assert set(zero["b"]) == {0} and zero["b"][0] == Standing(1, 1, 1, zero["b"][0].ci_low, zero["b"][0].ci_high)
    assert set(zero["avg"]) == {0, 1} and zero["avg"][1].ci_high < 0.5
    incomplete = column_standings(subsets, columns, settings=FAST, missing="incomplete")
    assert set(incomplete["avg"]) == {0}


def test_it_refuses_unknown_settings():
    with pytest.raises(ValueError, match="randomization, t-test"):
        BandSettings(test="wilcoxon")
    with pytest.raises(ValueError, match="alpha"):
        BandSettings(alpha=1.5)
    with pytest.raises(ValueError, match="holm"):
        BandSettings(correction="fdr")


def test_it_gives_unranked_systems_an_interval_only():
    values = _systems([0.6, 0.5, 0.55])
    result = column_standings({"x": values}, {"x": ["x"]}, settings=FAST, ranked=[True, True, False])["x"]
    assert result[0].band == "1" and result[1].band == "2"  # the baseline between them takes no rank
    assert (result[2].low, result[2].tier) == (0, 0) and result[2].ci_low < values[2].mean() < result[2].ci_high


def test_a_subset_nobody_ran_only_weighs_in_an_average_under_zero():
    values = _systems([0.6, 0.5])
    zero = column_standings({"a": values}, {"avg": ["a", "b"]}, settings=FAST)["avg"]
    assert zero[0].ci_low < 0.6 / 2 < zero[0].ci_high and zero[0].band == "1"
    assert column_standings({"a": values}, {"avg": ["a", "b"]}, settings=FAST, missing="incomplete") == {}
    assert column_standings({"a": values}, {"b": ["b"]}, settings=FAST) == {}
