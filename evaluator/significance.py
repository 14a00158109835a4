"""Paired significance tests between two runs on one subset, over per-query values.

Both tests pair the runs query by query (the same topics, so per-query differences
are what matters) and are two-sided. Smucker, Allan & Carterette (CIKM 2007) found the
paired t-test and the randomization test agree closely on IR data and recommend the
randomization test; both are offered because papers report both.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class TestResult:
    """Outcome of one paired test: `mean_difference` is mean(a) - mean(b) over `queries`."""

    __test__ = False  # not a pytest test class, despite the name

    test: str
    statistic: float
    p_value: float
    mean_difference: float
    queries: int
    trials: int | None = None
    seed: int | None = None

    def as_dict(self) -> dict:
        return {"test": self.test, "statistic": self.statistic, "p_value": self.p_value,
                "mean_difference": self.mean_difference, "queries": self.queries,
                "trials": self.trials, "seed": self.seed}


def _paired(a: Mapping[str, float], b: Mapping[str, float]) -> np.ndarray:
    """a - b per query; both must cover the same queries (an Evaluator emits every
    judged query, so a mismatch means the values come from different qrels)."""
    if a.keys() != b.keys():
        only = len(a.keys() - b.keys()) + len(b.keys() - a.keys())
        raise ValueError(f"the two runs were scored on different queries ({only} not in both)")
    if not a:
        raise ValueError("no queries to compare")
    qids = list(a)
    return np.fromiter((a[q] for q in qids), float, len(qids)) - np.fromiter((b[q] for q in qids), float, len(qids))


def paired_t_test(a: Mapping[str, float], b: Mapping[str, float]) -> TestResult:
    """Student's paired t-test (two-sided) on per-query values {qid: value}.
    Identical runs (all differences 0) give statistic 0 and p 1, not NaN."""
    from scipy import stats

    diff = _paired(a, b)
    if not diff.any():
        return TestResult("paired-t", 0.0, 1.0, 0.0, len(diff))
    if len(diff) < 2 or np.ptp(diff) == 0:
        # no variance: the difference is certain, t is infinite
        return TestResult("paired-t", float(np.sign(diff.mean()) * np.inf), 0.0, float(diff.mean()), len(diff))
    result = stats.ttest_1samp(diff, 0.0)
    return TestResult("paired-t", float(result.statistic), float(result.pvalue), float(diff.mean()), len(diff))


def randomization_test(a: Mapping[str, float], b: Mapping[str, float], *, trials: int = 10_000,
                       seed: int = 0) -> TestResult:
    """Fisher's paired randomization test (Smucker et al., CIKM 2007), two-sided: each trial
    swaps the two runs' values on a random half of the queries (flips the sign of each
    difference with probability 1/2); p is the share of trials whose |mean difference| is at
    least the observed one, counting the observed labelling itself (Phipson & Smyth, 2010),
    so p is never 0. The same seed gives the same p."""
    if trials < 1:
        raise ValueError("trials must be at least 1")
    diff = _paired(a, b)
    n, total = len(diff), float(diff.sum())
    observed = abs(total / n)
    rng = np.random.default_rng(seed)
    extreme, done = 0, 0
    while done < trials:
        batch = min(1000, trials - done)  # bounded memory: batch x queries flips at a time
        # One random bit per query and trial, eight drawn per byte: drawing is most of the cost.
        flips = np.unpackbits(rng.integers(0, 256, size=(batch, (n + 7) // 8), dtype=np.uint8), axis=1)[:, :n]
        # Flipping a subset F turns the sum into sum - 2 * sum(diff[F]).
        means = np.abs(total - 2.0 * (flips.astype(np.float64) @ diff)) / n
        extreme += int(np.count_nonzero(means >= observed - 1e-12))
        done += batch
    p_value = (extreme + 1) / (trials + 1)
    return TestResult("randomization", float(diff.mean()), p_value, float(diff.mean()), len(diff),
                      trials=trials, seed=seed)
