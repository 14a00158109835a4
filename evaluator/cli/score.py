"""`python -m evaluator score`: validate and score runs per language, with group averages.

JSON output, which scripts rely on: {"subsets": {lang: {metric: mean}}, "groups":
{group: {metric: mean or null}}, "warnings": [...]} with full-precision floats, plus
"per_query": {lang: {metric: {qid: value}}} with --per-query.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..aggregate import MISSING_RULES, group_means
from ..benchmarks import ALL, Benchmark
from ..engines.jobs import Job, Outcome, Scoring
from ..measures import UNLIMITED, parse_metric, parse_metrics, scoring_depth
from ..records import Problem, SubsetResult
from .common import (
    Inputs,
    add_common,
    add_documents,
    add_strict,
    print_json,
    read_document_list,
    report_problems,
)
from .phase import add_phase_options, phase_inputs
from .progress import Progress

if TYPE_CHECKING:
    import argparse


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "score", help="score runs against qrels (trec_eval -c semantics), per language and averaged",
        description="Each PATH is a file, a directory, or LANG=PATH. Every judged query counts; a query "
                    "missing from a run scores 0. Group averages are unweighted means over languages.")
    parser.add_argument("--qrels", nargs="+", required=True, metavar="PATH")
    parser.add_argument("--run", nargs="+", required=True, metavar="PATH")
    parser.add_argument("--topics", nargs="*", default=[], metavar="PATH",
                        help="topic files: with them, every run qid must be a query of its language")
    parser.add_argument("--residual-qrels", nargs="+", default=[], metavar="PATH",
                        help="earlier rounds' qrels (repeatable per language, LANG=PATH): the documents they judged "
                             "for a topic are removed from its run before scoring, as Anserini's "
                             "filter_run_with_qrels and TREC-COVID's rounds 2+ (the residual collection)")
    parser.add_argument("--metrics", help="comma-separated, e.g. nDCG@10,R@100 (default: the benchmark's)")
    parser.add_argument("--group", action="append", default=[], metavar="NAME=LANG,LANG...",
                        help="an average column; repeatable (default: the benchmark's groups)")
    parser.add_argument("--missing", choices=MISSING_RULES,
                        help="a language with qrels but no run counts 0, or leaves its groups incomplete (default: "
                             "the definition's missing_subset with --definition, else zero)")
    parser.add_argument("--depth", type=int, help="documents per query that are scored, as trec_eval -M (default: "
                        "the deepest cutoff, or all a run may hold (--max-depth) when a measure has none, "
                        "as trec_eval -c; the platform's rule)")
    parser.add_argument("--max-depth", type=int, help="most documents a run may have per query (default: no limit; "
                        "1000 with a --benchmark)")
    parser.add_argument("--per-query", action="store_true", help="add each query's values")
    parser.add_argument("--check", action="store_true",
                        help="recompute every score with pytrec_eval and fail on any difference beyond 1e-9 "
                             "(on float32 scores, as pytrec_eval keeps them; see docs/evaluator.md)")
    parser.add_argument("--digits", type=int, metavar="N",
                        help="--format trec: N significant digits (17: exact) instead of trec_eval's 4 decimals")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="languages scored at once, each in its own process (default: one per core)")
    add_common(parser, formats=("table", "json", "csv", "trec"))
    add_strict(parser)
    add_documents(parser)
    add_phase_options(parser)
    parser.set_defaults(func=score_command)
    return parser


def parse_groups(specs: list[str], benchmark: Benchmark, present: list[str]) -> dict[str, list[str]]:
    """--group NAME=LANG,... as given; else the benchmark's groups over the languages with qrels."""
    if specs:
        groups = {}
        for spec in specs:
            name, sep, members = spec.partition("=")
            if not sep or not name or not members:
                raise SystemExit(f"--group {spec!r}: expected NAME=LANG,LANG...")
            groups[name] = [m.strip() for m in members.split(",") if m.strip()]
        return groups
    groups = {g.name: [c for c in benchmark.members(g.name) if c in present] for g in benchmark.groups}
    if ALL not in groups:
        groups[ALL] = list(present)
    return {name: members for name, members in groups.items() if members}


def score_command(args: argparse.Namespace) -> int:
    """Read qrels, topics and runs, score each language, print the table; 1 if any input is rejected."""
    read = phase_inputs(args, "score")
    if read is None:
        return 2
    phase, inputs = read
    benchmark = inputs.benchmark
    metrics = [m.strip() for m in args.metrics.split(",")] if args.metrics else \
        list(phase.metrics if phase else benchmark.metrics)
    generic = benchmark.open_subsets
    max_depth = args.max_depth or (phase.max_run_depth if phase else UNLIMITED if generic else 1000)
    try:
        # an unknown metric is a usage error: say so before reading gigabytes
        # the phase's depth holds for the phase's measures (its `scoring_depth` may be set)
        set_depth = args.depth if args.depth is not None or args.metrics or phase is None else phase.scoring_depth
        depth = scoring_depth(map(parse_metric, metrics), max_depth=max_depth, depth=set_depth)
        parse_metrics(metrics, depth)
    except ValueError as exc:
        print(f"python -m evaluator score: {exc}", file=sys.stderr)
        return 2
    if not read_document_list(args, inputs):  # read here, once: the workers inherit it
        report_problems(inputs, args.format)
        return 1
    jobs = plan_jobs(inputs, args)
    scoring = Scoring(tuple(metrics), relevance_level=benchmark.relevance_level, gain=benchmark.gain,
                      depth=depth, max_depth=max_depth, docid_pattern=benchmark.docid_pattern,
                      per_query=args.per_query or args.format == "trec", strict=inputs.strict,
                      check=args.check, documents=args.documents, refuse_unknown=args.unknown_documents != "warn")
    from ..engines.parallel import score_submission

    outcomes = score_submission(jobs, scoring=scoring, workers=args.workers, done=_progress(jobs, args.progress))
    for outcome in outcomes.values():
        _collect(inputs, outcome)
    if inputs.errors:
        report_problems(inputs, args.format)
        return 1
    # columns in the benchmark's order (known languages, then surprise ones), then any others as given
    scored = [code for code, outcome in outcomes.items() if outcome.result is not None]
    order = [code for code in benchmark.codes if code in scored] + [c for c in scored if c not in benchmark.codes]
    results = {code: result for code in order if (result := outcomes[code].result) is not None}
    subsets = {code: result.means for code, result in results.items()}
    with_qrels = [job.subset for job in jobs if job.qrels is not None]
    missing = args.missing or (phase.missing_subset if phase else None) or "zero"
    groups = group_means(subsets, parse_groups(args.group, benchmark, with_qrels), missing=missing)
    if args.format == "trec":
        write_trec(results, args.digits)
        report_problems(inputs, args.format)
    elif args.format == "json":
        document = {"subsets": subsets, "groups": groups, **inputs.problems_as_dict()}
        if args.per_query:
            document["per_query"] = {code: result.per_query for code, result in results.items()}
        if args.residual_qrels:
            document["removed"] = {code: result.removed for code, result in results.items()}
        print_json(document)
    else:
        write_table(subsets, groups, metrics, benchmark, csv_out=args.format == "csv")
        if args.per_query:
            write_per_query(results)
        report_problems(inputs, args.format)
    return 0


def plan_jobs(inputs: Inputs, args: argparse.Namespace) -> list[Job]:
    """One job per language given qrels or topics; its run joins it when it can be scored
    (a run needs its language's qrels, and its topics when any topics were given)."""
    qrels, topics = inputs.by_subset(args.qrels), inputs.by_subset(args.topics)
    runs: dict[str, str] = {}
    for code, path in inputs.by_subset(args.run).items():
        if code not in qrels:
            inputs.errors.append(Problem("no-qrels", f"no qrels were given for {code!r}", path))
        elif topics and code not in topics:
            inputs.errors.append(Problem("no-topics", f"no topics were given for {code!r}", path))
        else:
            runs[code] = path
    judged = residual_by_subset(inputs, args.residual_qrels)
    return [Job(code, qrels.get(code), runs.get(code), topics.get(code), tuple(judged.get(code, ())))
            for code in {**qrels, **topics}]


def residual_by_subset(inputs: Inputs, paths: list[str]) -> dict[str, list[str]]:
    """{code: earlier rounds' qrels}: each file's language told as --qrels tells it; one
    language may have several (one per earlier round)."""
    judged: dict[str, list[str]] = {}
    for path in paths:
        for code, found in inputs.by_subset([path]).items():
            judged.setdefault(code, []).append(found)
    return judged


def _collect(inputs: Inputs, outcome: Outcome) -> None:
    inputs.errors += outcome.errors
    inputs.warnings += outcome.warnings


def _progress(jobs: list[Job], enabled: bool | None) -> Callable[[Outcome, int, int], None]:
    """A bar over the bytes of all runs, advanced as each language finishes (workers are
    separate processes: they cannot draw on this terminal themselves)."""
    sizes = {job.subset: job.run_bytes() for job in jobs}
    total, finished = sum(sizes.values()), 0
    bar = Progress("reading", enabled=enabled)

    def done(outcome: Outcome, count: int, of: int) -> None:
        nonlocal finished
        finished += sizes[outcome.subset]
        bar.label = f"reading {outcome.subset}"
        bar.update(finished, total)
        if count == of:
            bar.close()
    return done


def write_table(subsets: dict[str, dict[str, float]], groups: dict[str, dict[str, float | None]], metrics: list[str],
                benchmark: Benchmark, *, csv_out: bool) -> None:
    """One row per metric; one column per language, then one per group average."""
    labels = {g.name: g.label for g in benchmark.groups}
    header = ["metric", *subsets, *(labels.get(name, name) for name in groups)]
    rows: list[list[str | float | None]] = [
        [metric, *(subsets[c].get(metric) for c in subsets), *(groups[g].get(metric) for g in groups)]
        for metric in metrics]
    if csv_out:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([[cell if cell is not None else "" for cell in row] for row in rows])
        return
    text: list[list[str]] = [[str(row[0]), *("-" if v is None else f"{v:.4f}" for v in row[1:])] for row in rows]
    widths = [max(len(str(r[i])) for r in [header, *text]) for i in range(len(header))]
    for row in [header, *text]:
        print("  ".join(str(cell).ljust(w) if i == 0 else str(cell).rjust(w)
                        for i, (cell, w) in enumerate(zip(row, widths, strict=True))))


def write_per_query(results: dict[str, SubsetResult]) -> None:
    """trec_eval -q style lines: language, metric, qid, value."""
    for code, result in results.items():
        for metric, values in result.per_query.items():
            for qid, value in values.items():
                print(f"{code}\t{metric}\t{qid}\t{value:.4f}")


def write_trec(results: dict[str, SubsetResult], digits: int | None) -> None:
    """`trec_eval -q -c` lines (evaluator.trec_format); several subsets print one block
    each, as several trec_eval calls would."""
    from ..trec_format import trec_lines

    for result in results.values():
        for line in trec_lines(result, digits):
            print(line)
