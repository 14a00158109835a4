"""Paired significance tests between two runs on one subset, over per-query values.

Both tests pair the runs query by query (the same topics, so per-query differences
are what matters) and are two-sided. Smucker, Allan & Carterette (CIKM 2007) found the
paired t-test and the randomization test agree closely on IR data and recommend the
randomization test; both are offered because papers report both.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike


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

    def as_dict(self) -> dict[str, Any]:
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
    diff: np.ndarray = np.fromiter((a[q] for q in qids), float, len(qids)) - np.fromiter((b[q] for q in qids), float,
                                                                                           len(qids))
    return diff


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


def flipped_sums(values: np.ndarray, *, trials: int, rng: np.random.Generator) -> np.ndarray:
    """(trials, systems): per trial, the sum over queries of +-value, one random sign per query
    and trial shared by every system (row of `values`, systems x queries).

    Shared signs are what pair the systems: the flipped sum of a - b is row a minus row b, so
    one matrix product gives every pair's randomization distribution at once (the
    leaderboard's bands: evaluator/rank_bands.py) and the two-run test below is its
    smallest case. Batches bound the memory: about 2 million sign bits at a time."""
    if trials < 1:
        raise ValueError("trials must be at least 1")
    systems, n = values.shape
    total = values.sum(axis=1)
    out = np.empty((trials, systems))
    batch = max(1, min(trials, 2_000_000 // max(n, 1)))
    for start in range(0, trials, batch):
        size = min(batch, trials - start)
        # One random bit per query and trial, eight drawn per byte: drawing is most of the cost.
        flips = np.unpackbits(rng.integers(0, 256, size=(size, (n + 7) // 8), dtype=np.uint8), axis=1, count=n)
        # Flipping a subset F turns the sum into sum - 2 * sum(values[F]). Small products skip
        # BLAS: waking its threads costs more than the product, the more so on a busy machine.
        flipped = (np.einsum("tq,sq->ts", flips, values) if systems * n < 20_000
                   else flips.astype(np.float64) @ values.T)
        out[start:start + size] = total - 2.0 * flipped
    return out


def randomization_p(flipped: np.ndarray, observed: float | np.ndarray) -> np.ndarray:
    """Two-sided p of each column of `flipped` (trials x tests): the share of trials at least
    as extreme as `observed`, counting the observed labelling itself (Phipson & Smyth, 2010),
    so p is never 0."""
    extreme = np.count_nonzero(np.abs(flipped) >= np.abs(observed) - 1e-12, axis=0)
    p: np.ndarray = (extreme + 1) / (flipped.shape[0] + 1)
    return p


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
    n = len(diff)
    flipped = flipped_sums(diff[None, :] / n, trials=trials, rng=np.random.default_rng(seed))
    p_value = float(randomization_p(flipped, diff.sum() / n)[0])
    return TestResult("randomization", float(diff.mean()), p_value, float(diff.mean()), n,
                      trials=trials, seed=seed)


CORRECTIONS = ("holm", "bonferroni", "none")


def holm(p_values: ArrayLike) -> np.ndarray:
    """Holm-Bonferroni adjusted p-values (Holm, Scand. J. Statistics 1979), in the input's
    order: the k-th smallest of m is multiplied by m - k + 1, made non-decreasing, capped at 1.
    Rejecting where adjusted p < alpha is Holm's step-down procedure at level alpha."""
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.minimum(np.maximum.accumulate(p[order] * (m - np.arange(m))), 1.0)
    adjusted = np.empty(m)
    adjusted[order] = stepped
    return adjusted


def adjusted(p_values: ArrayLike, correction: str) -> np.ndarray:
    """p-values adjusted for testing them together: `holm` (the default: uniformly more
    powerful than Bonferroni, same guarantee), `bonferroni` (times m), or `none`."""
    p = np.asarray(p_values, dtype=float)
    if correction == "holm":
        return holm(p)
    if correction == "bonferroni":
        bonferroni: np.ndarray = np.minimum(p * len(p), 1.0)
        return bonferroni
    if correction == "none":
        return p.copy()
    raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {correction!r}")


def against_baselines(runs: Sequence[Mapping[str, float] | None], baselines: Sequence[Mapping[str, float] | None], *,
                      test: str = "randomization", correction: str = "holm", trials: int = 10_000,
                      seed: int = 0) -> list[list[float | None]]:
    """p[k][i]: the adjusted two-sided p of run i against baseline k, over per-query values
    {qid: value}, every run and baseline holding the same queries in the same order (None: a
    run or baseline not compared, whose p is None). The runs compared with one baseline are
    one family, corrected together (`adjusted`), as a paper's "significantly better than BM25"
    marks are. Each p is the one `randomization_test(run, baseline, trials=, seed=)` or
    `paired_t_test` gives for the pair: the randomization test's signs depend only on the
    number of queries and the seed, so one draw serves every pair (a flipped sum of a - b is
    that of a minus that of b, as `flipped_sums` says)."""
    present = [i for i, run in enumerate(runs) if run is not None]
    found: list[list[float | None]] = [[None] * len(runs) for _ in baselines]
    if not present or all(b is None for b in baselines):
        return found
    if test not in ("randomization", "t-test"):
        raise ValueError(f"test must be randomization or t-test, not {test!r}")
    systems = [cast(Mapping[str, float], runs[i]) for i in present] + [b for b in baselines if b is not None]
    qids = list(systems[0])
    if any(list(s) != qids for s in systems):
        raise ValueError("the runs and baselines must hold the same queries in the same order")
    values = np.array([[s[q] for q in qids] for s in systems])
    n, where = len(qids), {b: len(present) + j for j, b in enumerate(k for k, b in enumerate(baselines) if b is not None)}
    flipped = flipped_sums(values / n, trials=trials, rng=np.random.default_rng(seed)) if test == "randomization" else None
    for k, row in where.items():
        if flipped is not None:
            p = randomization_p(flipped[:, :len(present)] - flipped[:, row:row + 1],
                                (values[:len(present)].sum(axis=1) - values[row].sum()) / n)
        else:
            p = np.array([paired_t_test(systems[i], systems[row]).p_value for i in range(len(present))])
        for i, value in zip(present, adjusted(p, correction), strict=True):
            found[k][i] = float(value)
    return found
