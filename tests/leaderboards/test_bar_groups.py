"""The grouped bars stay legible: a board of many subsets with groups (CLIRMatrix: 64 language
pairs, a group per source language) opens on a group of bars per group average, not 64 x 7
slivers, and its menu shows one source's pairs at a time; a board of a readable number of
subsets (the Cup's 18 languages) keeps one per subset.
Issue 24 item 9."""
from dataclasses import replace

import plotly.graph_objects as go

from cupboard.leaderboards.charts import MAX_BAR_GROUPS, bars_figure
from cupboard.leaderboards.selectors import Column
from tests.leaderboards.synthetic import METRIC, synthetic_board


def _grouped(board, group_of):
    """`board` with a group average per `group_of(column key)`, before Avg, as leaderboard_for builds them."""
    names = list(dict.fromkeys(group_of(c.key) for c in board.subset_columns))
    groups = [Column(key=name, label=f"{name}.Avg", title=f"Average over {name}", is_average=True) for name in names]

    def averages(entry):
        means = {}
        for name in names:
            values = [v[METRIC] for k, v in entry.values.items() if group_of(k) == name]
            means[name] = {METRIC: round(sum(values) / len(values), 4) if values else None}
        return entry.averages | means
    return replace(board, average_columns=groups + board.average_columns,
                   entries=[replace(e, averages=averages(e)) for e in board.entries])


def test_many_pairs_are_drawn_per_group():
    board = _grouped(synthetic_board(rows=5, languages=0, pairs=64), lambda key: key.split("-")[0])
    assert len(board.subset_columns) > MAX_BAR_GROUPS
    figure = bars_figure(board, metric=METRIC)
    go.Figure(figure)  # valid plotly
    labels = ["ar.Avg", "bn.Avg", "de.Avg", "en.Avg"]
    assert figure["layout"]["title"]["text"] == f"{METRIC} per group (95% intervals)"
    assert len(figure["data"]) == 7  # five teams and two baselines
    for trace, entry in zip(figure["data"], board.entries, strict=True):
        assert trace["x"] == labels
        assert trace["y"] == [entry.averages[label.split(".")[0]][METRIC] for label in labels]


def test_a_readable_number_of_subsets_is_drawn_per_subset():
    board = _grouped(synthetic_board(rows=5, languages=18), lambda key: "known" if key < "m" else "surprise")
    figure = bars_figure(board, metric=METRIC)
    assert figure["layout"]["title"]["text"].startswith(f"{METRIC} per subset")
    assert figure["data"][0]["x"] == [c.label for c in board.subset_columns]


def test_many_pairs_without_groups_are_drawn_a_source_at_a_time():
    """No averages to open on: the first source's pairs by target, the others from the menu."""
    board = synthetic_board(rows=5, languages=0, pairs=64)
    figure = bars_figure(board, metric=METRIC)
    assert figure["data"][0]["x"] == [c.key[3:] for c in board.subset_columns if c.key.startswith("ar-")]
    assert [b["label"] for b in figure["layout"]["updatemenus"][0]["buttons"]] == ["from ar", "from bn", "from de",
                                                                                  "from en"]


def test_many_pairs_with_groups_offer_each_source_after_the_averages():
    board = _grouped(synthetic_board(rows=5, languages=0, pairs=64), lambda key: key.split("-")[0])
    buttons = bars_figure(board, metric=METRIC)["layout"]["updatemenus"][0]["buttons"]
    assert [b["label"] for b in buttons] == ["group averages", "from ar", "from bn", "from de", "from en"]
    assert [b["args"][1]["title.text"] for b in buttons[:2]] == [f"{METRIC} per group (95% intervals)",
                                                                  f"{METRIC} per subset (95% intervals)"]
