"""How a run's queries meet the judged ones: the warnings trec_eval never gives.

Given by `evaluator.engines.scoring` for every run it scores; pure Python.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..records import Problem


def coverage(ran: set[str], judged_qids: Sequence[str], file: str) -> tuple[Problem, ...]:
    """Warnings from the run's query ids: none matches a judged query (`01` against `1`),
    run queries nobody judged (dropped), judged queries the run lacks (each scores 0, as
    with `trec_eval -c`)."""
    judged = set(judged_qids)
    unjudged = sorted(ran.difference(judged))
    missing = [q for q in judged_qids if q not in ran]
    found = []
    if ran and len(unjudged) == len(ran) and judged:
        found.append(("no-matching-queries", f"none of the run's {len(ran)} query ids is a judged query "
                      f"(run: {', '.join(unjudged[:3])}; qrels: {', '.join(judged_qids[:3])}): it scores 0"))
    elif unjudged:
        found.append(("unjudged-queries", f"{len(unjudged)} of the run's {len(ran)} queries are not in the "
                      f"qrels and are not scored (e.g. {', '.join(unjudged[:5])})"))
    if missing and len(missing) < len(judged) or missing and not ran:
        found.append(("queries-not-in-run", f"{len(missing)} of {len(judged)} judged queries are not in the "
                      f"run and score 0 (e.g. {', '.join(missing[:5])})"))
    return tuple(Problem(code, message, file, severity="warning") for code, message in found)
