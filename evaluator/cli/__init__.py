"""The `python -m evaluator` command line: one module per subcommand, each adding its parser.

`common` holds what they share (inputs read by subset, the common options, JSON output);
`progress` the bar on stderr. Nothing here imports numpy or pyarrow until a command needs
them, so `--help` and `submit` start quickly.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence


def build_parser() -> argparse.ArgumentParser:
    from . import compare, fuse, score, submit, validate

    parser = argparse.ArgumentParser(prog="python -m evaluator",
                                     description="Validate, score, fuse and compare TREC runs the way trec_eval does, "
                                                 "and submit them to a cupboard competition.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (validate, score, fuse, compare, submit):
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    command: Callable[[argparse.Namespace], int] = args.func
    return command(args)
