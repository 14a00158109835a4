"""How a competition's leaderboards rank, in words, for its Rules page: the tie rule every
board follows, and each phase's own rules (which run of a team counts, a freeze, the Ladder).

The words describe leaderboards/ranking.py (`order_key`, `counted_candidate`) and
leaderboards/ladder.py; tests/competitions/test_ranking_rules.py ranks made-up rows with them
and checks the order these sentences promise, so the page cannot drift from the code.
"""
from __future__ import annotations

from datetime import datetime

from cupboard.competitions.models import Competition, Phase

TIE_RULE = ("Teams are ranked by the Avg column, higher first; an incomplete average (a subset missing where "
            "missing subsets are not counted as 0) comes after every number. Equal values, compared exactly as "
            "stored (not as rounded on the page), are ranked by submission time: the run submitted first keeps "
            "the higher place, and runs submitted at the same instant by the order they were received. Two rows "
            "never share a rank.")

_COUNTS = {Phase.Ranking.BEST: "each team's best run counts",
           Phase.Ranking.LAST: "each team's last submitted run counts",
           Phase.Ranking.SELECTED: "the best of the runs each team selects counts (its last run if it selects none)",
           Phase.Ranking.RUNS: "every scored run is its own row, ranked against every other run"}

LADDER = ("the Ladder (Blum & Hardt 2015) is on: a team's shown score changes only when a new run beats its shown "
          "run by more than the standard error of their per-query differences, otherwise the board keeps the "
          "shown one")
LADDER_OWN = ("while the judgments are hidden, the team itself sees only what the Ladder releases: the scores of "
              "its shown run, and for every other run \"not better than your shown run\", on its pages, in the API "
              "and in its mail alike")


def _instant(value: datetime) -> str:
    return f"{value:%Y-%m-%d %H:%M} UTC"


def phase_rule(phase: Phase) -> str:
    """One sentence: how the phase's board picks and shows each team's run."""
    parts = [_COUNTS[phase.ranking]]
    if phase.ladder and phase.ranking == Phase.Ranking.BEST:
        parts.append(LADDER)
        if phase.hidden_qrels:
            parts.append(LADDER_OWN)
    if phase.freeze_at is not None:
        parts.append(f"the public leaderboard is frozen from {_instant(phase.freeze_at)} until "
                     f"{_instant(phase.thaws_at())}: it shows runs scored until the freeze, each team still sees its "
                     f"own later scores on its submissions page" + (" as the Ladder releases them" if phase.ladder else ""))
    text = "; ".join(parts)
    return f"{phase.name}: {text[0].upper()}{text[1:]}."


def ranking_rules(competition: Competition) -> list[str]:
    """The tie rule, then one sentence per phase, in the phases' order."""
    return [TIE_RULE] + [phase_rule(phase) for phase in competition.phases.order_by("position")]
