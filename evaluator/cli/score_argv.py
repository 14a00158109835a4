"""`python -m evaluator score`'s usual command lines read without argparse (issue 27).

A drop-in scoring of a small collection takes ~0.07 s in trec_eval, whole process; importing
argparse (and gettext, which it loads) and building score's parser is several ms of that.
The shapes people and scripts write (`--qrels`, `--run`, `--metrics`, `--format`, ...; one
value each, or several for `--qrels`/`--run`) are read here into the namespace score's parser
would give; anything else - `--help`, an abbreviation, `--opt=value`, a repeated or unknown
option, a value that looks like an option, a missing `--qrels` or `--run` - returns None and
the argparse parser reads the line, with its usage and error messages.
`tests/evaluator/test_score_argv.py` compares this with the parser on many command lines.
"""
from __future__ import annotations

from types import SimpleNamespace

# score's options with their parser's defaults (cli/score.py, common.py and phase.py)
DEFAULTS: dict[str, object] = {
    "qrels": None, "run": None, "topics": [], "residual_qrels": [], "metrics": None, "group": [], "missing": None, "depth": None,
    "max_depth": None, "per_query": False, "check": False, "engine": "auto", "digits": None, "workers": None,
    "benchmark": None, "format": "table", "progress": None, "strict": False, "server": None, "competition": None,
    "phase": None, "token": None, "definition": None, "documents": None, "unknown_documents": "refuse",
}
LISTS = ("--qrels", "--run", "--residual-qrels")  # nargs="+"
TEXT = ("--metrics", "--documents")
INTEGERS = ("--depth", "--max-depth")
CHOICES = {"--format": ("table", "json", "csv", "trec"), "--benchmark": ("generic",),
           "--unknown-documents": ("refuse", "warn")}
FLAGS = ("--per-query", "--strict")


def score_namespace(argv: list[str]) -> SimpleNamespace | None:
    """score's arguments (argv without the command) as its parser would read them, or None
    when only the parser may say (see the module's docstring)."""
    values = dict(DEFAULTS, command="score")
    seen: set[str] = set()
    i = 0
    while i < len(argv):
        option = argv[i]
        if option in seen or not option.startswith("--"):
            return None
        seen.add(option)
        key = option[2:].replace("-", "_")
        taken = list(_values(argv, i + 1))
        if option in FLAGS:
            values[key], taken = True, []
        elif option in LISTS and taken:
            values[key] = taken
        elif len(taken) == 1 and (option in TEXT or taken[0] in CHOICES.get(option, ())):
            values[key] = taken[0]
        elif len(taken) == 1 and option in INTEGERS and taken[0].isascii() and taken[0].isdigit():
            values[key] = int(taken[0])
        else:
            return None
        i += 1 + len(taken)
    return SimpleNamespace(**values) if values["qrels"] and values["run"] else None


def _values(argv: list[str], start: int) -> list[str]:
    """The values after an option, up to the next word that starts with a dash."""
    end = start
    while end < len(argv) and not argv[end].startswith("-"):
        end += 1
    return argv[start:end]
