"""`python -m evaluator submit`: upload runs to a cupboard server and, with `--wait`, wait for the score.

A participant's script needs no browser: the token comes from the profile page (`--token`
or $CUPBOARD_TOKEN), the files go to the server's JSON API as the upload form sends them,
and validation errors come back with file, line and reason. With `--topics` the run is
first checked here exactly as `validate` checks it (the phase's subset codes asked of the
server: cli/phase.py), so a bad line is found before a large file travels; the server
checks again and is the authority. Only the standard library is
used, so this works from any Python that has the evaluator.

Exit status: 0 uploaded (and, with --wait, scored); 1 refused, rejected or failed;
2 nothing was tried (no token, a missing file) or the server could not be reached, refused
the token, or did not answer in time; 3 try again later: the server is briefly unavailable
(HTTP 503, e.g. its database restarting) or throttling the token (429), nothing was stored,
and the Retry-After it gave is printed. A script can sleep that long and run the same command.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..client import api
from ..client.api import TRY_LATER
from ..client.cupboard import Cupboard, Watch, run_files
from ..client.http import CupboardError, ServerError
from ..io.naming import expand_inputs
from .common import add_common, print_json
from .phase import inputs_for, phase_definition_or_none
from .progress import Progress
from .validate import check_runs

EXIT_TRY_LATER = 3
SCRIPT = "cupboard-eval"  # [project.scripts] in pyproject.toml; `python -m evaluator` alike


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register `submit` on the CLI's subparsers."""
    parser = subparsers.add_parser(
        "submit", help="upload run files to a cupboard competition (its JSON API) and wait for the score",
        description="Each PATH is a run file, whose language the server reads from its name "
                    "(run.mine.sw.dev.txt -> sw), or LANG=PATH to name it.")
    parser.add_argument("--server", required=True, help="the platform's address, e.g. https://cup.example.org")
    parser.add_argument("--competition", required=True, metavar="SLUG")
    parser.add_argument("--phase", required=True, metavar="SLUG")
    parser.add_argument("--run", nargs="+", required=True, metavar="PATH", help="run files (plain or .gz) or folders of them")
    parser.add_argument("--method", required=True, help="the method name shown on the leaderboard")
    parser.add_argument("--description", default="")
    parser.add_argument("--paper-url", default="")
    parser.add_argument("--code-url", default="")
    parser.add_argument("--meta", action="append", default=[], metavar="NAME=VALUE",
                        help="a run-metadata value the competition asks for (its How to submit page lists "
                             "them), e.g. --meta run_type=automatic --meta zero_shot=yes; repeat for each")
    parser.add_argument("--release", action="store_true",
                        help="consent to releasing the run files in the phase's public results archive after the "
                             "reveal (as the upload form's box; the scores are archived either way)")
    parser.add_argument("--priority", type=int, default=None, metavar="N",
                        help="the run's judging priority, 1 (judge its documents first) to 9, as TREC's run "
                             "priority; organizers may pool runs by it")
    parser.add_argument("--topic-fields", default="", metavar="FIELD,FIELD",
                        help="the topic fields the run used, as the topics file names them (e.g. query,question "
                             "or title,description)")
    parser.add_argument("--token", default=None, help="API token (default: $CUPBOARD_TOKEN)")
    parser.add_argument("--topics", nargs="*", default=[], metavar="PATH",
                        help="check the runs against these topics here before uploading")
    parser.add_argument("--max-depth", type=int, help="most documents per query, for --topics (default: the "
                                                      "phase's max_run_depth)")
    parser.add_argument("--wait", action="store_true", help="wait until the submission is scored or rejected")
    parser.add_argument("--poll", type=float, default=2.0, metavar="SECONDS", help="status check interval")
    parser.add_argument("--timeout", type=float, default=900.0, metavar="SECONDS",
                        help="give up waiting after this long (default 900)")
    add_common(parser, formats=("text", "json"))
    parser.set_defaults(func=submit_command)
    return parser


def command_lines(*, server: str, competition: str, phase: str, method: str, runs: Sequence[str],
                  topics: Sequence[str] = (), meta: Sequence[tuple[str, str]] = (), wait: bool = True) -> list[str]:
    """This command as shell-quoted lines, an option with its values each: what the platform's
    How to submit page prints (cupboard.competitions.submitting), so the page names only the
    options this parser has (tests/submissions/test_api_contract.py parses it back)."""
    from shlex import quote  # only the platform's page asks for this

    lines = [f"{SCRIPT} submit", f"--server {quote(server)}", f"--competition {quote(competition)}",
             f"--phase {quote(phase)}", f"--method {quote(method)}", "--run " + " ".join(map(quote, runs))]
    if topics:
        lines.append("--topics " + " ".join(map(quote, topics)))
    lines += [f"--meta {quote(f'{name}={value}')}" for name, value in meta]
    return lines + (["--wait"] if wait else [])


def metadata_fields(pairs: list[str]) -> dict[str, str]:
    """`--meta NAME=VALUE` options as {name: value}; ValueError names a malformed one. The
    server checks the values (and says which field is wrong): the CLI knows no competition's fields."""
    fields = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"--meta {pair!r}: write NAME=VALUE, e.g. --meta run_type=automatic")
        fields[name.strip()] = value
    return fields


def checked_here(args: argparse.Namespace) -> bool:
    """With --topics: validate as `validate` does and print the problems; False if any run is rejected."""
    if not args.topics:
        return True
    phase = phase_definition_or_none(args)  # the codes the phase's files are named with
    inputs = inputs_for(args, phase)
    inputs.strict = True  # the platform checks every upload by a competition's rules
    max_depth = args.max_depth or (phase.max_run_depth if phase else 1000)
    check_runs(inputs, topics=args.topics, runs=args.run, max_depth=max_depth, progress=args.progress)
    if inputs.errors or args.format == "text":  # in JSON, a clean check leaves stdout to the server's answer
        report(inputs.problems_as_dict(), args.format)
    return not inputs.errors


def report(document: dict[str, Any], fmt: str) -> None:
    """JSON as one document on stdout (problems with their codes); as text, problems as
    `file:line:column: error: message` on stderr, for a person: no raw codes."""
    if fmt == "json":
        print_json(document)
        return
    for kind in ("errors", "warnings"):
        for problem in document.get(kind, []):
            where = ":".join(str(problem[k]) for k in ("file", "line", "column") if problem.get(k) is not None)
            print(f"{where or 'server'}: {kind[:-1]}: {problem['message']}", file=sys.stderr)


def told_while_waiting() -> Watch:
    """What `--wait` tells on stderr of each poll: an outage waited out, and each change of
    state (status, progress, place in the queue)."""
    last: list[tuple[object, ...]] = []

    def watch(status: int, answer: dict[str, Any]) -> None:
        if status in TRY_LATER:  # the run is stored: a brief outage is waited out, up to --timeout
            print(f"the server is briefly unavailable (HTTP {status}); still waiting", file=sys.stderr)
            return
        if status != 200:
            return
        queue = answer.get("queue") or {}
        state = (answer["status"], answer["progress"], queue.get("ahead"))
        if state not in last:
            last[:] = [state]
            print(f"{state[0]}" + (f" {state[1]}%" if state[0] == "scoring" else "")
                  + (f": {queue['text']}" if queue.get("text") else ""), file=sys.stderr)
    return watch


_NO_SCORES = {"status": "valid and scored; this phase shows no score until its reveal",
              "ladder": "valid and scored; not better than your shown run (the Ladder shows a run's scores only "
                        "when it beats the shown run)"}


def print_scores(submission: dict[str, Any]) -> None:
    """Group averages under the site's labels (K.Avg, S.Avg, Avg; an older server's keys when it
    sends none), then `subset  metric...` rows, as the server returned them (rounded for participants)."""
    print(f"submission #{submission['number']} {submission['status']}"
          + (f": {submission['status_reason']}" if submission.get("status_reason") else ""))
    scores = submission.get("scores") or {}
    if submission["status"] == "scored" and not scores:
        print(_NO_SCORES.get(submission.get("shown", ""), "scores are not shown for this phase until its reveal"))
    if not scores:
        return
    decimals = submission.get("decimals", 3)
    labels = submission.get("average_labels") or {}
    averages = [(labels.get(key, key), values) for key, values in (submission.get("averages") or {}).items()]
    rows = averages + sorted(scores.items())
    metrics = list(dict.fromkeys(m for _, values in rows for m in values))  # the competition's order
    width = max(len(name) for name, _ in rows) + 2
    print("".ljust(width) + "  ".join(f"{m:>9}" for m in metrics))
    for name, values in rows:
        cells = [f"{values[m]:>9.{decimals}f}" if values.get(m) is not None else f"{'-':>9}" for m in metrics]
        print(name.ljust(width) + "  ".join(cells))


def refused(error: CupboardError, fmt: str) -> int:
    """Tell a refusal as `report` does and give the exit status: 3 for "not now" (nothing
    stored; the Retry-After printed), 2 for no answer, a bad token or no such phase, else 1."""
    if isinstance(error, ServerError) or error.status is None or error.status < 400:  # no API answer
        print(f"error: {error}", file=sys.stderr)
        return 2
    report(error.answer, fmt)
    if error.status in TRY_LATER:
        wait = error.retry_after
        print(f"nothing was stored; try again {f'in {wait} s' if wait is not None else 'later'}"
              f" (exit status {EXIT_TRY_LATER})", file=sys.stderr)
        return EXIT_TRY_LATER
    return 2 if error.status in (401, 404) else 1


def submit_command(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get(api.TOKEN_ENV, "")
    if not token:
        print("no API token: give --token or set CUPBOARD_TOKEN (your profile page shows it)", file=sys.stderr)
        return 2
    try:
        metadata_fields(args.meta)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    missing = [str(path) for _, path in run_files(args.run) if not path.is_file()]
    missing += [path for _, path in expand_inputs(args.topics, known=()) if not Path(path).exists()]
    if missing:
        print(f"no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    if not checked_here(args):
        return 1
    client = Cupboard(args.server, token)
    bar = Progress("uploading", enabled=args.progress)
    try:
        answer = client.upload(args.competition, args.phase, args.run, method_name=args.method,
                               description=args.description, paper_url=args.paper_url, code_url=args.code_url,
                               meta=metadata_fields(args.meta), progress=bar, release_consent=args.release,
                               judging_priority=args.priority,
                               topic_fields=[name for name in args.topic_fields.split(",") if name.strip()])
        bar.close()
        said = "already stored as" if answer.get("repeat") else "submission"
        print(f"{said} #{answer['number']} {answer['status']}: {answer['url']}", file=sys.stderr)
        for warning in answer.get("warnings") or []:
            print(f"warning: {warning}", file=sys.stderr)
        if args.wait:
            answer = {**client.wait(answer, timeout=args.timeout, poll=args.poll, backoff=1,
                                    watch=told_while_waiting()), "url": answer["url"]}
    except CupboardError as error:
        bar.close()
        return refused(error, args.format)
    except OSError as error:
        bar.close()
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.format == "json":
        print_json(answer)
    else:
        print_scores(answer)
    return 1 if answer["status"] in api.UNSUCCESSFUL else 0

