"""Which systems of a leaderboard are statistically tied: rank bands, tiers and confidence
intervals for every column (a subset, or an average over several), from per-query values.

For each column, every pair of systems is compared with a paired test over queries (the
randomization test or the paired t-test of significance.py). Each system's N-1 comparisons
are one family, corrected together (Holm by default), which gives a marginal confidence
interval for its rank (Mogstad, Romano, Shaikh & Wilhelm, "Inference for ranks", Review of
Economic Studies 2024): from 1 + the number of systems significantly better than it to N -
the number significantly worse. `tier` groups the table from the top: a tier is a system
and the ones after it, in order, not significantly worse than it (the first tier: the
leader and the systems tied with it). The interval around each value is a percentile
bootstrap over queries, at level 1 - alpha.

A column over several subsets (K.Avg, Avg) tests the per-query values of all its subsets
together, queries being the units: each query is weighted so the weighted sum is the
column's value, the unweighted mean of the subsets' means (aggregate.py), and the
bootstrap resamples queries within each subset. Each subset's random signs and resamples
are drawn once and shared by every column holding it, so averages cost almost nothing on
top of their subsets; each subset's draws come from its own seed (`seed` and its code),
so its results do not depend on which other subsets are on the board.
"""
from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from .significance import CORRECTIONS, adjusted, flipped_sums, randomization_p

TESTS = ("randomization", "t-test")


@dataclass(frozen=True, slots=True)
class BandSettings:
    """How a leaderboard is tested: the organizer's choices (competition YAML) and the
    fixed numbers that make every refresh give the same answer for the same scores."""

    test: str = "randomization"
    correction: str = "holm"
    alpha: float = 0.05
    trials: int = 10_000      # randomization trials: p resolves down to 1e-4, below Holm's 0.05/49
    samples: int = 1_000      # bootstrap resamples for the intervals
    seed: int = 0

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise ValueError(f"test must be one of {', '.join(TESTS)}, not {self.test!r}")
        if self.correction not in CORRECTIONS:
            raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, not {self.correction!r}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, not {self.alpha!r}")
        if self.trials < 1 or self.samples < 1:
            raise ValueError("trials and samples must be at least 1")


@dataclass(frozen=True, slots=True)
class Standing:
    """One system in one column: its rank band (`low`-`high`, 1 = best), its tier (1 = tied
    with the leader), and the bootstrap interval around its value."""

    low: int
    high: int
    tier: int
    ci_low: float
    ci_high: float

    @property
    def band(self) -> str:
        """"1-3", or "2" when the rank is certain."""
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"


def _rng(seed: int, code: str, stream: int) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(code.encode()), stream])


@dataclass
class _Subset:
    """One subset's matrix (systems x queries, zeros where a system has no run) and its draws."""

    values: np.ndarray
    present: np.ndarray          # systems with a run on it
    flipped: np.ndarray | None   # trials x systems, in units of the subset's mean
    boot: np.ndarray             # samples x systems: resampled means


def _prepare(code: str, matrix: np.ndarray, settings: BandSettings) -> _Subset:
    present = ~np.isnan(matrix).all(axis=1)
    values = np.nan_to_num(matrix, nan=0.0)
    n = values.shape[1]
    flipped = None
    if settings.test == "randomization":
        flipped = flipped_sums(values / n, trials=settings.trials, rng=_rng(settings.seed, code, 0))
    # Resampling n queries with replacement, as counts per query: one bincount, then one product.
    picks = _rng(settings.seed, code, 1).integers(0, n, size=(settings.samples, n))
    counts = np.bincount((picks + n * np.arange(settings.samples)[:, None]).ravel(),
                         minlength=settings.samples * n).reshape(settings.samples, n)
    return _Subset(values=values, present=present, flipped=flipped, boot=counts @ values.T / n)


def _summed(parts: Iterable[np.ndarray]) -> np.ndarray:
    """Python's sum of same-shaped arrays, typed as the array it is (a column is never empty)."""
    return cast(np.ndarray, sum(parts))


def _pairwise_p(column: list[_Subset], weight: float, members: np.ndarray, settings: BandSettings) -> np.ndarray:
    """p-values of every pair of `members` (indices of systems) on the column, unadjusted."""
    means = _summed(weight * s.values.mean(axis=1) for s in column)[members]
    size = len(members)
    p = np.ones((size, size))
    if settings.test == "randomization":
        flipped = _summed(weight * s.flipped for s in column if s.flipped is not None)[:, members]
        for i in range(size - 1):
            row = randomization_p(flipped[:, i:i + 1] - flipped[:, i + 1:], means[i] - means[i + 1:])
            p[i, i + 1:] = p[i + 1:, i] = row
        return p
    # Paired t-test on the weighted per-query values, whose mean is the column's value.
    from scipy import stats

    n = sum(s.values.shape[1] for s in column)
    pooled = np.hstack([s.values[members] * (weight * n / s.values.shape[1]) for s in column])
    if n < 2:
        return p
    cov = np.atleast_2d(np.cov(pooled))
    var = np.maximum(np.diag(cov)[:, None] + np.diag(cov)[None, :] - 2 * cov, 0.0)
    diff = means[:, None] - means[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(diff) / np.sqrt(var / n)
    p = np.where(np.isnan(t), 1.0, 2 * stats.t.sf(t, n - 1))
    np.fill_diagonal(p, 1.0)
    return p


def _bands(p: np.ndarray, means: np.ndarray, settings: BandSettings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(low, high, significant) per system from the pairwise p-values; each row is one family."""
    size = len(means)
    significant = np.zeros((size, size), dtype=bool)
    for i in range(size):
        others = np.arange(size) != i
        significant[i, others] = adjusted(p[i, others], settings.correction) < settings.alpha
    better = significant & (means[None, :] > means[:, None])
    worse = significant & (means[None, :] < means[:, None])
    return 1 + better.sum(axis=1), size - worse.sum(axis=1), significant


def _tiers(order: np.ndarray, significant: np.ndarray) -> np.ndarray:
    """Tier per system: down the table, a tier is a head and the systems after it that its
    own family does not find significantly worse; the first one that is starts the next."""
    tiers = np.zeros(len(order), dtype=int)
    tier, head = 0, None
    for i in order:
        if head is None or significant[head, i]:
            tier, head = tier + 1, i
        tiers[i] = tier
    return tiers


def _intervals(column: list[_Subset], weight: float, members: np.ndarray,
               settings: BandSettings) -> dict[int, tuple[float, float]]:
    """Percentile bootstrap interval at level 1 - alpha of each member's value on the column."""
    boot = weight * _summed(s.boot for s in column)[:, members]
    ci = np.percentile(boot, [100 * settings.alpha / 2, 100 * (1 - settings.alpha / 2)], axis=0)
    return {int(system): (float(ci[0, k]), float(ci[1, k])) for k, system in enumerate(members)}


def _column(column: list[_Subset], weight: float, members: np.ndarray, settings: BandSettings) -> dict[int, Standing]:
    """Standings of `members` on a column: its subsets, each weighing `weight` in its value."""
    means = weight * sum(s.values.mean(axis=1) for s in column)[members]
    order = np.argsort(-means, kind="stable")
    low, high, significant = _bands(_pairwise_p(column, weight, members, settings), means, settings)
    tiers = _tiers(order, significant)
    intervals = _intervals(column, weight, members, settings)
    return {int(system): Standing(low=int(low[k]), high=int(high[k]), tier=int(tiers[k]),
                                  ci_low=intervals[int(system)][0], ci_high=intervals[int(system)][1])
            for k, system in enumerate(members)}


def column_standings(subsets: Mapping[str, np.ndarray], columns: Mapping[str, Sequence[str]], *,
                     settings: BandSettings = BandSettings(), missing: str = "zero",
                     ranked: Sequence[bool] | None = None,
                     between: Callable[[], None] = lambda: None) -> dict[str, dict[int, Standing]]:
    """{column: {system index: Standing}} for systems 0..N-1.

    `subsets`: {code: matrix of systems x queries}, the same queries in the same order in
    every row, a row of NaN where the system has no run on the subset. `columns`: {key:
    [codes]} (a subset's own column is [code]). A system without a run on a one-subset
    column is not in it; on an average, it counts 0 there (`missing="zero"`) or leaves the
    column (`"incomplete"`), as aggregate.group_means does. Systems are ranked by their value
    in each column; equal values keep their input order (pass them in leaderboard order).
    `between` is called before each subset's draws and each column: a caller whose board has
    changed meanwhile stops the computation by raising there (leaderboards/bands.py)."""
    needed = list(dict.fromkeys(code for codes in columns.values() for code in codes if code in subsets))
    prepared = {}
    for code in needed:
        between()
        prepared[code] = _prepare(code, np.asarray(subsets[code], dtype=float), settings)
    result: dict[str, dict[int, Standing]] = {}
    for key, codes in columns.items():
        between()
        # A subset nobody has values on counts 0 for everyone under "zero": only its weight remains.
        column = [prepared[c] for c in codes if c in prepared]
        if not column or (len(column) < len(codes) and (missing != "zero" or len(codes) == 1)):
            continue
        present = np.logical_and.reduce([s.present for s in column])
        if len(codes) > 1 and missing == "zero":
            present = np.logical_or.reduce([s.present for s in column])
        weight = 1.0 / len(codes)
        contenders = present if ranked is None else present & np.asarray(ranked, dtype=bool)
        standings = _column(column, weight, np.flatnonzero(contenders), settings) if contenders.any() else {}
        others = np.flatnonzero(present & ~contenders)
        if len(others):
            standings |= {i: Standing(0, 0, 0, low, high) for i, (low, high) in _intervals(column, weight, others, settings).items()}
        if standings:
            result[key] = standings
    return result
