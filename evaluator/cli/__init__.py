"""The `python -m evaluator` command line: one module per subcommand, each adding its parser.

`common` holds what they share (inputs read by subset, the common options, JSON output);
`progress` the bar on stderr. Nothing here imports numpy or pyarrow until a command needs
them, so `--help`, `submit` and a small collection's `score` start quickly. Every command line
is read by argparse, with only the named subcommand's parser built: a hand-written reader of
`score`'s usual lines saved about a tenth of a small collection's CPU time, not a difference a
user can measure (docs/benchmarks.md), for a second parser to keep in step with the first.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

COMMANDS = ("validate", "score", "fuse", "compare", "submit")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; of `command`'s alone when given (each subcommand's
    module imports what it needs: `score` then loads neither the HTTP client nor csv)."""
    import argparse
    from importlib import import_module

    parser = argparse.ArgumentParser(prog="python -m evaluator",
                                     description="Validate, score, fuse and compare TREC runs the way trec_eval does, "
                                                 "and submit them to a cupboard competition.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in (command,) if command in COMMANDS else COMMANDS:
        import_module(f"{__name__}.{name}").add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args: Any = build_parser(argv[0] if argv else None).parse_args(argv)
    command: Callable[[argparse.Namespace], int] = args.func
    return command(args)
