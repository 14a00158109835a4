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
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..client import api
from ..client.api import TRY_LATER
from ..client.http import Multipart, ServerError, call_api
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


def upload_files(args: argparse.Namespace) -> list[tuple[str, Path]]:
    """(form field, path) per run: `files` take their language from the name on the server,
    `file_<code>` name it (a code only where LANG=PATH gives one)."""
    return [(f"{api.FILE_PREFIX}{code}" if code else api.FILES, Path(path))
            for code, path in expand_inputs(args.run, known=(), kind="run")]


def metadata_fields(pairs: list[str]) -> dict[str, str]:
    """`--meta NAME=VALUE` options as the API's `meta_<name>` fields; ValueError names a malformed one.
    The server checks the values (and says which field is wrong): the CLI knows no competition's fields."""
    fields = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise ValueError(f"--meta {pair!r}: write NAME=VALUE, e.g. --meta run_type=automatic")
        fields[f"{api.META_PREFIX}{name.strip()}"] = value
    return fields


def upload_body(args: argparse.Namespace, files: list[tuple[str, Path]]) -> Multipart:
    fields = {api.METHOD_NAME: args.method, api.DESCRIPTION: args.description,
              api.PAPER_URL: args.paper_url, api.CODE_URL: args.code_url, **metadata_fields(args.meta)}
    return Multipart(fields, files)


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


def wait_for_score(args: argparse.Namespace, token: str, submission: dict[str, Any]) -> dict[str, Any]:
    """Poll the status endpoint until the submission is done, telling each change on stderr."""
    url = api.status_url(args.server, submission["id"])
    deadline = time.monotonic() + args.timeout
    last = None
    while submission["status"] not in api.DONE:
        if time.monotonic() > deadline:
            raise ServerError(f"still {submission['status']} after {args.timeout:.0f} s: {submission.get('url', url)}")
        time.sleep(args.poll)
        status, answer = call_api(url, token)
        if status in TRY_LATER:  # the run is stored: a brief outage is waited out, up to --timeout
            print(f"the server is briefly unavailable (HTTP {status}); still waiting", file=sys.stderr)
            time.sleep(max(0.0, min(answer.get("retry_after") or 0, deadline - time.monotonic()) - args.poll))
            continue
        if status != 200:
            raise ServerError(f"{url}: HTTP {status}: {answer}")
        submission = answer
        queue = submission.get("queue") or {}
        state = (submission["status"], submission["progress"], queue.get("ahead"))
        if state != last:
            last = state
            print(f"{state[0]}" + (f" {state[1]}%" if state[0] == "scoring" else "")
                  + (f": {queue['text']}" if queue.get("text") else ""), file=sys.stderr)
    return submission


def print_scores(submission: dict[str, Any]) -> None:
    """Group averages under the site's labels (K.Avg, S.Avg, Avg; an older server's keys when it
    sends none), then `subset  metric...` rows, as the server returned them (rounded for participants)."""
    print(f"submission #{submission['number']} {submission['status']}"
          + (f": {submission['status_reason']}" if submission.get("status_reason") else ""))
    scores = submission.get("scores") or {}
    if submission["status"] == "scored" and not scores:
        print("valid and scored; this phase shows no score until its reveal" if submission.get("shown") == "status"
              else "scores are not shown for this phase until its reveal")
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
    files = upload_files(args)
    missing = [str(path) for _, path in files if not path.is_file()]
    missing += [path for _, path in expand_inputs(args.topics, known=()) if not Path(path).exists()]
    if missing:
        print(f"no such file: {', '.join(missing)}", file=sys.stderr)
        return 2
    if not checked_here(args):
        return 1
    url = api.upload_url(args.server, args.competition, args.phase)
    bar = Progress("uploading", enabled=args.progress)
    try:
        status, answer = call_api(url, token, upload_body(args, files), progress=bar)
        bar.close()
        if status >= 400:
            report(answer, args.format)
            if status in TRY_LATER:
                wait = answer.get("retry_after")
                print(f"nothing was stored; try again {f'in {wait} s' if wait is not None else 'later'}"
                      f" (exit status {EXIT_TRY_LATER})", file=sys.stderr)
                return EXIT_TRY_LATER
            return 2 if status in (401, 404) else 1
        said = "already stored as" if answer.get("repeat") else "submission"
        print(f"{said} #{answer['number']} {answer['status']}: {answer['url']}", file=sys.stderr)
        for warning in answer.get("warnings") or []:
            print(f"warning: {warning}", file=sys.stderr)
        if args.wait:
            answer = {**wait_for_score(args, token, answer), "url": answer["url"]}
    except (ServerError, OSError) as error:
        bar.close()
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.format == "json":
        print_json(answer)
    else:
        print_scores(answer)
    return 1 if answer["status"] in api.UNSUCCESSFUL else 0

