"""The Ladder: a live leaderboard that adaptive overfitting cannot climb.

Blum, A. and Hardt, M. (2015). "The Ladder: A Reliable Leaderboard for Machine Learning
Competitions". ICML 2015, PMLR 37:1006-1014 (arXiv:1502.04585). A team that submits many
small variations and keeps whatever scores best on the public queries fits their noise, and
an ordinary best-of board rewards it. Under the Ladder a team's shown score changes only
when a new run beats its shown best by more than the noise: this is the paper's
*parameter-free* Ladder (its Algorithm 2), whose margin is the standard error of the paired
per-query differences, s / sqrt(n), with s their sample standard deviation (a one-sided
paired t statistic above 1). Otherwise the board keeps the old shown run.

Two choices of ours: the shown score is the shown run's own score (the paper rounds it to a
multiple of 1/n; a board shows one value per subset and average, all from one run, so it
shows that run), and runs are taken in submission order (the order the `last` ranking uses),
so replaying a team's scored runs gives the same shown run however often or late it is done:
`leaderboard_update` after one scoring and `leaderboard_refresh` of the whole phase agree.

Per-query values are those of the phase's primary metric on the subsets ranks count (the
revealed ones), each query weighted so that the mean of a run's vector is its ranking
average (the unweighted mean of the subsets' means), as the rank bands do
(evaluator/rank_bands.py). Computed in the worker that scores, never when a page is served.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

import numpy as np

from cupboard.leaderboards.ranking import Candidate


def climbs(new: np.ndarray, shown: np.ndarray) -> bool:
    """Whether a run with per-query values `new` replaces the shown run's (`shown`, the same
    queries in the same order): their mean difference exceeds its standard error. Two
    identical runs never climb; a run better on every query by the same amount always does."""
    differences = new - shown
    n = len(differences)
    if n == 0:
        return False
    margin = float(np.std(differences, ddof=1)) / math.sqrt(n) if n > 1 else 0.0
    return float(np.mean(differences)) > margin


def query_vectors(per_query: Mapping[int, Mapping[str, Mapping[str, float]]], codes: list[str]) -> dict[int, np.ndarray]:
    """{submission id: weighted per-query vector} from {submission id: {subset code: {qid: value}}}
    over the subsets `codes` (those the ranking average counts). Queries of a subset are the
    union over the runs given (one qrels version: the same for all); a query or subset a run
    lacks counts 0, as the average counts it. Weights make each vector's mean the average."""
    queries = {code: sorted({qid for values in per_query.values() for qid in values.get(code, {})}) for code in codes}
    total = sum(len(qids) for qids in queries.values())
    vectors = {}
    for submission_id, by_code in per_query.items():
        parts = [np.array([by_code.get(code, {}).get(qid, 0.0) for qid in qids]) * (total / (len(codes) * len(qids)))
                 for code, qids in queries.items() if qids]
        vectors[submission_id] = np.concatenate(parts) if parts else np.zeros(0)
    return vectors


def ladder_candidate(candidates: Iterable[Candidate], vectors: Mapping[int, np.ndarray]) -> Candidate:
    """The run a team's row shows under the Ladder: its first complete run, replaced in
    submission order by each later run that `climbs` over the one shown. A team whose runs are
    all incomplete (no primary value) shows its first one, as `best` would rank it last."""
    in_order = sorted(candidates, key=lambda c: (c.created_at, c.submission_id))
    if not in_order:
        raise ValueError("a team with no scored submission has no leaderboard row")
    shown = None
    for candidate in in_order:
        if candidate.primary_value is None:
            continue
        if shown is None or climbs(vectors[candidate.submission_id], vectors[shown.submission_id]):
            shown = candidate
    return shown or in_order[0]
