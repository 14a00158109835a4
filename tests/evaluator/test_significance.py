import numpy as np
import pytest
from scipy import stats

from evaluator.significance import adjusted, flipped_sums, holm, paired_t_test, randomization_test

A = {"1": 0.5, "2": 0.7, "3": 0.2, "4": 0.9, "5": 0.4}
B = {"1": 0.4, "2": 0.5, "3": 0.3, "4": 0.6, "5": 0.1}


def test_it_computes_the_paired_t_test_by_hand():
    diff = np.array([0.1, 0.2, -0.1, 0.3, 0.3])
    t = diff.mean() / (diff.std(ddof=1) / np.sqrt(5))
    result = paired_t_test(A, B)
    assert result.statistic == pytest.approx(t)
    assert result.p_value == pytest.approx(2 * stats.t.sf(abs(t), df=4))
    assert result.mean_difference == pytest.approx(0.16) and result.queries == 5


def test_it_gives_p_one_for_identical_runs():
    assert paired_t_test(A, dict(A)).p_value == 1.0
    assert randomization_test(A, dict(A), trials=100).p_value == 1.0


def test_it_enumerates_like_an_exact_permutation_test():
    # 5 queries: 32 sign patterns; |mean| >= observed for patterns that flip nothing that matters
    diff = np.array([0.1, 0.2, -0.1, 0.3, 0.3])
    patterns = np.array([[1 if (i >> j) & 1 else -1 for j in range(5)] for i in range(32)])
    exact = np.mean(np.abs(patterns @ diff) >= abs(diff.sum()) - 1e-12)
    result = randomization_test(A, B, trials=20_000, seed=1)
    assert result.p_value == pytest.approx(exact, abs=0.01)
    assert result.trials == 20_000 and result.seed == 1


def test_it_is_reproducible_with_a_seed():
    first = randomization_test(A, B, trials=500, seed=3).p_value
    assert randomization_test(A, B, trials=500, seed=3).p_value == first
    assert 1 / 501 <= first <= 1


def test_it_finds_a_clear_difference_significant():
    rng = np.random.default_rng(0)
    base = {str(i): float(v) for i, v in enumerate(rng.random(200))}
    better = {q: min(v + 0.1, 1.0) for q, v in base.items()}
    assert paired_t_test(better, base).p_value < 0.001
    assert randomization_test(better, base, trials=2000).p_value == pytest.approx(1 / 2001)


def test_it_refuses_runs_scored_on_different_queries():
    with pytest.raises(ValueError, match="different queries"):
        paired_t_test(A, {**B, "6": 0.0})
    with pytest.raises(ValueError, match="no queries"):
        randomization_test({}, {})


def test_it_adjusts_with_holm_as_in_the_textbook():
    # Holm (1979)'s step-down on four p-values: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1
    # = 0.02, 0.03, 0.06, 0.04, made non-decreasing: 0.02, 0.03, 0.06, 0.06 (given back in input order).
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    rejected = adjusted([0.01, 0.04, 0.03, 0.005], "holm") < 0.05
    assert rejected.tolist() == [True, False, False, True]
    # Bonferroni rejects less: 0.01 * 4 = 0.04 < 0.05, 0.005 * 4 = 0.02; it caps at 1.
    assert adjusted([0.01, 0.04, 0.03, 0.005], "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjusted([0.6, 0.5], "bonferroni").tolist() == [1.0, 1.0]
    assert adjusted([0.6, 0.5], "none").tolist() == [0.6, 0.5]
    assert holm([]).tolist() == []


def test_it_refuses_an_unknown_correction():
    with pytest.raises(ValueError, match="holm, bonferroni, none"):
        adjusted([0.1], "sidak")


def test_it_pairs_every_system_with_one_set_of_signs():
    # The flipped sums of a - b are the flipped sums of a minus those of b: same signs for all rows.
    rng = np.random.default_rng(5)
    values = rng.random((3, 40))
    flipped = flipped_sums(values, trials=300, rng=np.random.default_rng(2))
    diff = flipped_sums(values[:1] - values[1:2], trials=300, rng=np.random.default_rng(2))
    assert flipped[:, 0] - flipped[:, 1] == pytest.approx(diff[:, 0])
    assert flipped.shape == (300, 3)


def test_against_baselines_gives_each_pair_s_own_test_corrected_per_baseline():
    from evaluator.significance import adjusted, against_baselines, paired_t_test, randomization_test

    rng = np.random.default_rng(7)
    base = rng.random(40)
    runs = [{f"q{i}": float(v) for i, v in enumerate(base + shift + rng.normal(0, 0.05, 40))}
            for shift in (0.0, 0.03, 0.2)]
    baselines = [{f"q{i}": float(v) for i, v in enumerate(base)}, None, runs[1]]
    for test, one in (("randomization", lambda a, b: randomization_test(a, b, trials=2_000, seed=3)),
                      ("t-test", paired_t_test)):
        found = against_baselines([runs[0], None, runs[2]], baselines, test=test, trials=2_000, seed=3)
        assert found[1] == [None, None, None]
        for k in (0, 2):
            p = adjusted([one(runs[0], baselines[k]).p_value, one(runs[2], baselines[k]).p_value], "holm")
            assert found[k][1] is None and found[k][0] == pytest.approx(p[0], abs=1e-12)
            assert found[k][2] == pytest.approx(p[1], abs=1e-12)
        assert found[0][2] < 0.05 < found[0][0]
