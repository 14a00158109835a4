"""trec_eval's order of a run's rows, the one definition every part uses (reading and
writing runs, scoring, fusion, pooling): grouped by query, score descending, then docid
descending in byte order (trec_eval's strcmp); the rank column plays no part.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .texts import Texts, arrow, sorted_descending, take_rows


def trec_order(q: np.ndarray, scores: np.ndarray, docids: Any) -> tuple[np.ndarray, int, int]:
    """Row order grouped by query, score descending, docid descending (trec_eval's order);
    also how many queries have tied scores and the row of the first tie."""
    n = q.size
    same_q = q[1:] == q[:-1]
    grouped = np.count_nonzero(~same_q) + 1 == np.count_nonzero(np.bincount(q)) if n else True
    if grouped and np.all(scores[1:][same_q] <= scores[:-1][same_q]):
        order, qs, ss = np.arange(n), q, scores  # already as nearly every retrieval toolkit writes it
    else:
        order = np.lexsort((-scores, q))
        qs, ss = q[order], scores[order]
    tied = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not tied.any():
        return order, 0, 0
    member = np.zeros(n, dtype=bool)
    member[:-1] |= tied
    member[1:] |= tied
    group = np.cumsum(member & ~np.concatenate(([False], tied)))
    at = np.flatnonzero(member)
    within = sorted_descending(group[at], docids, order[at]) if isinstance(docids, Texts) else None
    if within is None:
        within = _arrow_order(group[at], take_rows(docids, order[at]))
    order[at] = order[at][within]
    tied_qs = qs[at]  # grouped by query, so each query's rows are one stretch (np.unique would import numpy.ma)
    return order, 1 + int(np.count_nonzero(tied_qs[1:] != tied_qs[:-1])), int(order[at].min())


def _arrow_order(groups: np.ndarray, docids: Any) -> np.ndarray:
    """`texts.sorted_descending` by Arrow's sort, for Arrow arrays (and what numpy declines)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from .columns import column, numbers

    ties = pa.table({"group": column(groups), "docid": arrow(docids)})
    return numbers(pc.sort_indices(ties, sort_keys=[("group", "ascending"), ("docid", "descending")]))


def position_in_query(qs: np.ndarray) -> np.ndarray:
    """0-based position of each row within its query's stretch (rows grouped by query)."""
    n = qs.size
    starts = np.flatnonzero(np.concatenate(([True], qs[1:] != qs[:-1])))
    return np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))
