"""A leaderboard built in memory (no database): many rows and subsets for the chart tests,
with values, intervals, rank bands and pair subsets, so every chart has something to draw."""
from __future__ import annotations

import random
from datetime import datetime, timezone
from types import SimpleNamespace

from cupboard.competitions.selectors import ALL, AVG_LABEL
from cupboard.leaderboards.selectors import Bands, Column, Entry, Leaderboard
from evaluator.rank_bands import Standing

METRIC = "nDCG@10"
LANGUAGES = ("ar", "bn", "de", "en", "es", "fa", "fi", "fr", "hi", "id", "ja", "ko", "ru", "sw", "te", "th", "yo",
             "zh")


def _standing(value: float, rank: int) -> Standing:
    return Standing(low=rank, high=rank + 2, tier=1 + rank // 3, ci_low=value - 0.02, ci_high=value + 0.03)


def _entry(rank: int | None, columns: list[Column], rng: random.Random) -> Entry:
    """A team row (a baseline when `rank` is None); one value in ten is missing."""
    values = {c.key: {METRIC: round(rng.random(), 4)} for c in columns if rng.random() > 0.1}
    mean = round(sum(v[METRIC] for v in values.values()) / max(len(values), 1), 4)
    standings = {ALL: _standing(mean, rank or 1)} | {k: _standing(v[METRIC], rank or 1) for k, v in values.items()}
    team, method = ("", "BM25") if rank is None else (f"Team <{rank}> & co", f"run-{rank}")
    return Entry(rank=rank, team=team, method=method, is_baseline=rank is None, is_own=False, url=None,
                 submitted_at=datetime.now(timezone.utc), qrels_version=1, values=values,
                 averages={ALL: {METRIC: mean}}, standings=standings)


def synthetic_board(*, rows: int = 500, languages: int = 18, pairs: int = 0, bands: bool = True,
                    seed: int = 7) -> Leaderboard:
    """`rows` ranked teams and two baselines over `languages` language subsets and `pairs`
    pair subsets ("src-tgt"), as `leaderboard_for` would return them to an organizer."""
    rng = random.Random(seed)
    codes = [f"{s}-{t}" for s in LANGUAGES for t in LANGUAGES if s != t][:pairs]
    columns = ([Column(key=c, label=c, title=c, kind="language") for c in LANGUAGES[:languages]]
               + [Column(key=c, label=c, title=c, kind="pair") for c in codes])
    ranks = [*range(1, rows + 1), None, None]
    entries = [_entry(rank, columns, rng) for rank in ranks]
    competition = SimpleNamespace(primary_metric=METRIC, metrics=[METRIC])
    return Leaderboard(
        competition=competition, phase=None, is_organizer=True, visible=True, subset_columns=columns,
        average_columns=[Column(key=ALL, label=AVG_LABEL, title="Average", is_average=True)], entries=entries,
        bands=Bands(test="t-test", correction="holm", alpha=0.05, trials=1000, samples=1000, seed=1) if bands else None)
