"""A metric's value over all queries, one exact number whichever engine computed the per-query
values: trec_eval's, summed in qid order (strcmp's, which is Python's on str) one addition
after another, then divided by the count.

numpy's mean sums pairwise, and a sum in another order stored 0.225 for a run from one
scoring and 0.22499999999999998 from the next (its Judged@10, shown at two decimals, flipped
from 0.23 to 0.22): one summation in one order gives one number however the per-query values
were computed.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..measures import Metric


def summary(metric: Metric, qids: Sequence[str], values: Iterable[float]) -> float:
    """The mean of `values` (per query of `qids`, in the same order; 0 without queries), or
    their sum for counts; an explicit loop, since sum() of floats is compensated on Python 3.12+."""
    total = 0.0
    for _, value in sorted(zip(qids, values, strict=True)):
        total += value
    if metric.measure.summary == "sum" or not len(qids):
        return total
    return total / len(qids)
