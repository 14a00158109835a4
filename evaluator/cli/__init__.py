"""The `python -m evaluator` command line: one module per subcommand, each adding its parser.

`common` holds what they share (inputs read by subset, the common options, JSON output);
`progress` the bar on stderr. Nothing here imports numpy or pyarrow until a command needs
them, so `--help` and `submit` start quickly; `score`'s usual command lines are read
without argparse (`score_argv`), so a small collection is scored in about trec_eval's time.
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
    if argv[:1] == ["score"]:
        from .score_argv import score_namespace

        quick = score_namespace(argv[1:])
        if quick is not None:
            from .score import score_command

            return score_command(quick)  # type: ignore[arg-type]  # the attributes of score's Namespace
    args: Any = build_parser(argv[0] if argv else None).parse_args(argv)
    command: Callable[[argparse.Namespace], int] = args.func
    return command(args)
