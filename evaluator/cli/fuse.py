"""`python -m evaluator fuse`: build baseline runs per language by fusing two or more systems.

Each --run option is one system (its files or directory); files of the same language are
fused, and the result is written as `run.<tag>.<lang>.txt`, a valid TREC run.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from .common import add_common, add_strict, benchmark_of, inputs_of, print_json, report_problems


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "fuse", help="fuse systems per language: MIRACL's hybrid or reciprocal-rank fusion",
        description="Repeat --run once per system; each takes files, directories or LANG=PATH.")
    parser.add_argument("--run", nargs="+", action="append", required=True, metavar="PATH",
                        help="one system's runs (repeat per system; hybrid takes exactly two)")
    parser.add_argument("--method", choices=("hybrid", "rrf"), default="hybrid")
    parser.add_argument("--alpha", type=float, default=0.5, help="hybrid: weight of the first system")
    parser.add_argument("--k", type=int, default=60, help="rrf: the constant k of 1 / (k + rank)")
    parser.add_argument("--depth", type=int, default=1000, help="documents per query taken and written")
    parser.add_argument("--tag", help="run tag and file name part (default: the method)")
    parser.add_argument("--output", required=True, metavar="DIR", help="folder for the fused runs")
    add_common(parser, formats=("table", "json"))
    add_strict(parser)
    parser.set_defaults(func=fuse_command)
    return parser


def fuse_command(args: argparse.Namespace) -> int:
    """Read every system's runs, fuse each language all systems cover, write the results."""
    from ..fusion import hybrid_fusion, reciprocal_rank_fusion  # numpy: for this command only
    from ..io.runs import write_run

    if args.method == "hybrid" and len(args.run) != 2:
        print("python -m evaluator fuse: --method hybrid takes exactly two --run systems")
        return 2
    inputs = inputs_of(args, benchmark_of(args))
    systems = [inputs.read_runs(paths, keep_depth=args.depth, max_depth=max(args.depth, 10_000),
                                progress=args.progress) for paths in args.run]
    if inputs.errors:
        report_problems(inputs, args.format)
        return 1
    tag = args.tag or args.method
    output = Path(args.output)
    output.mkdir(parents=True, exist_ok=True)
    written = {}
    for code in [c for c in systems[0] if all(c in s for s in systems)]:
        runs = [system[code] for system in systems]
        fused = (hybrid_fusion(*runs, alpha=args.alpha, depth=args.depth, tag=tag) if args.method == "hybrid"
                 else reciprocal_rank_fusion(runs, k=args.k, depth=args.depth, tag=tag))
        target = output / f"run.{tag}.{code}.txt"
        with target.open("w", encoding="utf-8") as handle:
            write_run(fused, handle, tag=tag)
        written[code] = str(target)
    skipped = sorted(set().union(*systems) - written.keys())
    if args.format == "json":
        print_json({"written": written, "skipped": skipped, **inputs.problems_as_dict()})
    else:
        for code, path in written.items():
            print(f"{code}\t{path}")
        for code in skipped:
            print(f"{code}\tskipped: not every system has a run for it")
        report_problems(inputs, args.format)
    return 0
