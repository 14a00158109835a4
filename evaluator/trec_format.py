"""`trec_eval -q -c` output, byte for byte: what `python -m evaluator score --format trec` prints.

trec_eval prints each judged query in qid order (strcmp: bytes), then the `all` lines;
within each, the measures in the order of its measure table (measures.c, whatever order
`-m` named them in), a measure's cutoffs rising, as `%-22s\\t%s\\t%6.4f` (counts as `%ld`).
A query literally named `all` is printed among the queries, as trec_eval prints it.
"""
from __future__ import annotations

from collections.abc import Iterator

from .measures import parse_metric, trec_name
from .records import SubsetResult

# trec_eval 10's measure table (te_trec_measures in measures.c), the families the evaluator has
TREC_ORDER = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
              "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
              "utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
              "map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
              "num_nonrel_judged_ret", "yaap", "rbp", "rbp_resid", "unj")
# measures trec_eval prints as whole numbers (te_print_single_meas_s_long)
COUNTS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})


def printed_order(metrics: list[str]) -> list[tuple[str, str]]:
    """(metric, printed name) in trec_eval's order; a metric trec_eval lacks keeps its own
    name and comes after, in the order given."""
    def key(item: tuple[int, tuple[str, str]]) -> tuple[int, int, int]:
        position, (metric, name) = item
        parsed = parse_metric(metric)
        family = name[:-len(str(parsed.cutoff)) - 1] if parsed.cutoff is not None else name
        if trec_name(parsed) is None or family not in TREC_ORDER:
            return len(TREC_ORDER), 0, position
        return TREC_ORDER.index(family), parsed.cutoff or 0, position

    named = [(metric, trec_name(parse_metric(metric)) or metric) for metric in metrics]
    return [pair for _, pair in sorted(enumerate(named), key=key)]


def trec_lines(result: SubsetResult, digits: int | None = None) -> Iterator[str]:
    """The lines of `trec_eval -q -c` for one subset's result (every judged query, those the
    run lacks at 0, then `all`: the mean, or the sum for counts). `digits`: that many
    significant digits (%.17g is exact) instead of trec_eval's `%6.4f`."""
    def show(name: str, value: float) -> str:
        if digits is not None:
            return f"{value:.{digits}g}"
        return str(int(value)) if name in COUNTS else f"{value:6.4f}"

    order = printed_order(list(result.means))
    first: dict[str, float] = next(iter(result.per_query.values()), {})
    for qid in sorted(first, key=str.encode):
        for metric, name in order:
            yield f"{name:<22}\t{qid}\t{show(name, result.per_query[metric][qid])}"
    for metric, name in order:
        yield f"{name:<22}\tall\t{show(name, result.means[metric])}"
