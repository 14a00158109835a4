"""How far assessors agree on the same passages: Cohen's kappa and Krippendorff's alpha.

Pools are judged by several people; a share of the passages is judged twice, and how often
two assessors agree beyond chance says how far the judgments can be trusted (TREC reports
it, MIRACL's paper too). Two measures, both chance-corrected:

- `cohen_kappa(a, b)`: two assessors who judged the same items, nominal labels (Cohen,
  "A coefficient of agreement for nominal scales", Educational and Psychological
  Measurement 20(1), 1960): (p_o - p_e) / (1 - p_e), p_e from each assessor's own label
  frequencies.
- `krippendorff_alpha(units, level=...)`: any number of assessors, items judged by any
  number of them (missing values), nominal, ordinal or interval labels (Krippendorff,
  "Computing Krippendorff's Alpha-Reliability", 2011, and Content Analysis, 2004, ch. 11):
  1 - D_o / D_e from the coincidence matrix. Graded relevance (0-3) is ordinal: a 2 against a
  3 is a smaller disagreement than a 0 against a 3.

Both return NaN where the measure is undefined (every label the same: no variation to
agree on beyond chance), never a made-up 1 or 0.
"""
from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence

LEVELS = ("nominal", "ordinal", "interval")


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
    """Cohen's kappa of two assessors' labels of the same items, `a[i]` and `b[i]` the
    labels of item i. NaN when chance agreement is 1 (both gave one and the same label to
    everything). ValueError for sequences of different lengths or none."""
    if len(a) != len(b):
        raise ValueError(f"the two assessors labelled {len(a)} and {len(b)} items: kappa pairs them one to one")
    if not a:
        raise ValueError("no items judged by both assessors")
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    expected = sum(count_a[label] * count_b[label] for label in count_a) / (n * n)
    if expected == 1:
        return math.nan
    return (observed - expected) / (1 - expected)


def krippendorff_alpha(units: Iterable[Iterable[float | None]], *, level: str = "nominal") -> float:
    """Krippendorff's alpha of reliability data: one entry per unit (a passage of a query),
    holding the values the assessors gave it, None for an assessor who did not judge it
    (or just the values given: only how many of each value a unit got matters). Units with
    fewer than two values carry no pairs and are left out, as Krippendorff says. `level`:
    nominal, ordinal (ranks matter, distances between them by how many values lie between)
    or interval (numeric differences). NaN when fewer than two values are pairable or all
    pairable values are the same."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; one of {', '.join(LEVELS)}")
    coincidences: dict[tuple[float, float], float] = defaultdict(float)
    for unit in units:
        values = [v for v in unit if v is not None]
        m = len(values)
        if m < 2:
            continue
        counts = Counter(values)
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                pairs = n_c * (n_k - 1) if c == k else n_c * n_k
                if pairs:
                    coincidences[c, k] += pairs / (m - 1)
    marginals: dict[float, float] = defaultdict(float)
    for (c, _), o in coincidences.items():
        marginals[c] += o
    n = sum(marginals.values())
    if n < 2 or len(marginals) < 2:
        return math.nan
    delta = _distance(level, marginals)
    observed = sum(o * delta(c, k) for (c, k), o in coincidences.items())
    expected = sum(marginals[c] * marginals[k] * delta(c, k) for c in marginals for k in marginals) / (n - 1)
    return 1 - observed / expected


def _distance(level: str, marginals: dict[float, float]) -> Callable[[float, float], float]:
    """The squared difference function delta^2(c, k) of a level (Krippendorff 2011, E)."""
    if level == "nominal":
        return lambda c, k: 0.0 if c == k else 1.0
    if level == "interval":
        return lambda c, k: float(c - k) ** 2
    ordered = sorted(marginals)
    cumulative: dict[float, float] = {}
    running = 0.0
    for value in ordered:
        cumulative[value] = running  # n_g of the values below it
        running += marginals[value]

    def ordinal(c: float, k: float) -> float:
        low, high = (c, k) if c <= k else (k, c)
        # sum of n_g for low <= g <= high, less half of the two ends
        between = cumulative[high] + marginals[high] - cumulative[low]
        return (between - (marginals[low] + marginals[high]) / 2) ** 2
    return ordinal
