"""Macro averages over subsets (languages): MIRACL's K.Avg, S.Avg and Avg.

MIRACL and the WSDM Cup average each metric over languages with equal weight, however
many queries a language has, so a language is one vote. A language a submission did not
cover is either a 0 (the Cup's rule: leaving a language out must not pay) or makes the
average incomplete (None), as the competition chooses.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

MISSING_RULES = ("zero", "incomplete")


def group_means(values: Mapping[str, Mapping[str, float]], groups: Mapping[str, Sequence[str]], *,
                missing: str = "zero") -> dict[str, dict[str, float | None]]:
    """{group: {metric: unweighted mean over the group's subsets}} from {subset: {metric: mean}}.

    Metrics are every metric any subset has. `missing="zero"`: a subset without a value
    counts 0; `missing="incomplete"`: the group's value is None. An empty group is None.
    """
    if missing not in MISSING_RULES:
        raise ValueError(f"missing must be one of {', '.join(MISSING_RULES)}, not {missing!r}")
    metrics = list(dict.fromkeys(metric for per_metric in values.values() for metric in per_metric))
    result: dict[str, dict[str, float | None]] = {}
    for group, subsets in groups.items():
        result[group] = {}
        for metric in metrics:
            found = [values.get(subset, {}).get(metric) for subset in subsets]
            if not found or (missing == "incomplete" and None in found):
                result[group][metric] = None
            else:
                result[group][metric] = sum(v or 0.0 for v in found) / len(found)
    return result
