"""`python -m evaluator validate`: check run files the way an upload is checked.

Exit status 0 when every run is valid, 1 when any is rejected (scripts rely on it).
"""
from __future__ import annotations

import argparse
import json
import sys

from .benchmarks import BENCHMARKS, get_benchmark
from .naming import expand_inputs
from .records import InputError, Problem
from .runs import read_run
from .topics import read_topics


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register `validate` on the CLI's subparsers."""
    parser = subparsers.add_parser(
        "validate", help="check TREC run files (format, topics, docids, depth) without scoring them",
        description="Each PATH is a file, a directory of files, or LANG=PATH; the language is "
                    "taken from the file name when not given (run.miracl.bm25.sw.dev.txt -> sw).")
    parser.add_argument("--run", nargs="+", required=True, metavar="PATH", help="run files to check")
    parser.add_argument("--topics", nargs="*", default=[], metavar="PATH",
                        help="topic files; with them, every qid must be a query of its language")
    parser.add_argument("--benchmark", default="miracl", choices=sorted(BENCHMARKS),
                        help="sets the languages and the docid pattern (default: miracl)")
    parser.add_argument("--max-depth", type=int, default=1000, help="most documents allowed per query")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.set_defaults(func=validate_command)
    return parser


def validate_command(args: argparse.Namespace) -> int:
    """Validate each run against its language's topics; print the problems; 0 if all valid, else 1."""
    benchmark = get_benchmark(args.benchmark)
    errors: list[Problem] = []
    warnings: list[Problem] = []
    topics: dict[str, dict[str, str]] = {}
    for code, path in expand_inputs(args.topics, benchmark.codes):
        if code is None:
            errors.append(Problem("unknown-subset", "cannot tell the language from the file name; "
                                  "give it as LANG=PATH", path))
            continue
        try:
            topics[code] = read_topics(path)
        except InputError as exc:
            errors += exc.problems
    summaries = []
    for code, path in expand_inputs(args.run, benchmark.codes):
        if code is None:
            errors.append(Problem("unknown-subset", "cannot tell the language from the file name; "
                                  "give it as LANG=PATH", path))
            continue
        if args.topics and code not in topics:
            errors.append(Problem("no-topics", f"no topics were given for {code!r}", path))
            continue
        _, report = read_run(path, topics=topics.get(code), docid_pattern=benchmark.docid_pattern,
                             max_depth=args.max_depth)
        errors += report.errors
        warnings += report.warnings
        summaries.append({"file": path, "subset": code, "ok": report.ok, "lines": report.lines,
                          "queries": report.queries})
    if args.format == "json":
        json.dump({"errors": [p.as_dict() for p in errors], "warnings": [p.as_dict() for p in warnings],
                   "runs": summaries}, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        for s in summaries:
            print(f"{'valid   ' if s['ok'] else 'REJECTED'} {s['subset']:>6}  {s['file']}  "
                  f"({s['lines']:,} lines, {s['queries']:,} queries)")
        for problem in errors + warnings:
            print(problem)
    return 1 if errors else 0
