"""`python -m evaluator compare`: is run A better than run B, language by language?

Both runs are scored per query with the same Evaluator, then compared with a paired
t-test and a seeded randomization test on each metric.
"""
from __future__ import annotations

import argparse
import csv
import sys

from ..measures import parse_metric, parse_metrics, scoring_depth
from .common import add_common, add_strict, benchmark_of, inputs_of, print_json, report_problems

MAX_DEPTH = 10_000  # most documents a run may hold per query here (a run is a system's, not an upload)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "compare", help="paired significance tests between two runs, per language",
        description="Each PATH is a file, a directory, or LANG=PATH.")
    parser.add_argument("--qrels", nargs="+", required=True, metavar="PATH")
    parser.add_argument("--run-a", nargs="+", required=True, metavar="PATH")
    parser.add_argument("--run-b", nargs="+", required=True, metavar="PATH")
    parser.add_argument("--metrics", help="comma-separated (default: the benchmark's)")
    parser.add_argument("--trials", type=int, default=10_000, help="randomization test trials")
    parser.add_argument("--seed", type=int, default=0, help="randomization test seed")
    parser.add_argument("--depth", type=int, help="documents per query that are scored, as trec_eval -M (default: "
                        "the deepest cutoff, or every document when a measure has none: score's rule)")
    add_common(parser)
    add_strict(parser)
    parser.set_defaults(func=compare_command)
    return parser


def compare_command(args: argparse.Namespace) -> int:
    """Score A and B on every language both cover; print means, difference and p-values."""
    from ..engines.scoring import Evaluator  # numpy: imported for this command only
    from ..significance import paired_t_test, randomization_test

    benchmark = benchmark_of(args)
    metrics = [m.strip() for m in args.metrics.split(",")] if args.metrics else list(benchmark.metrics)
    max_depth = max(args.depth or 0, MAX_DEPTH)
    try:
        depth = scoring_depth(map(parse_metric, metrics), max_depth=max_depth, depth=args.depth)
        parse_metrics(metrics, depth)  # an unknown or too deep metric: said before reading the runs
    except ValueError as exc:
        print(f"python -m evaluator compare: {exc}", file=sys.stderr)
        return 2
    inputs = inputs_of(args, benchmark)
    inputs.read_qrels(args.qrels)
    options = dict(keep_depth=depth, max_depth=max_depth, progress=args.progress, require_qrels=True)
    runs_a, runs_b = inputs.read_runs(args.run_a, **options), inputs.read_runs(args.run_b, **options)
    if inputs.errors:
        report_problems(inputs, args.format)
        return 1
    rows = []
    for code in [c for c in inputs.qrels if c in runs_a and c in runs_b]:
        evaluator = Evaluator(inputs.qrels[code], metrics, relevance_level=benchmark.relevance_level,
                              gain=benchmark.gain, depth=depth)
        a, b = evaluator.score(runs_a[code]), evaluator.score(runs_b[code])
        for metric in metrics:
            t = paired_t_test(a.per_query[metric], b.per_query[metric])
            r = randomization_test(a.per_query[metric], b.per_query[metric], trials=args.trials, seed=args.seed)
            rows.append({"subset": code, "metric": metric, "a": a.means[metric], "b": b.means[metric],
                         "difference": t.mean_difference, "queries": t.queries, "t": t.statistic,
                         "p_t": t.p_value, "p_randomization": r.p_value})
    if args.format == "json":
        print_json({"comparisons": rows, "trials": args.trials, "seed": args.seed, **inputs.problems_as_dict()})
    elif args.format == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]) if rows else ["subset"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    else:
        print(f"{'lang':<6} {'metric':<10} {'A':>7} {'B':>7} {'A-B':>8} {'p(t)':>8} {'p(rand)':>8}")
        for row in rows:
            print(f"{row['subset']:<6} {row['metric']:<10} {row['a']:7.4f} {row['b']:7.4f} {row['difference']:+8.4f} "
                  f"{row['p_t']:8.4f} {row['p_randomization']:8.4f}")
        report_problems(inputs, args.format)
    return 0
