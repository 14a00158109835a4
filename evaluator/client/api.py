"""The contract between a cupboard server's JSON API and its clients, written once.

The platform mounts its API views on these routes (`cupboard.submissions.urls`), answers
with these statuses and fields, and recognises its API by `PREFIX` (`cupboard.outages`);
`python -m evaluator submit` (and the load test) call the same routes and read the same
fields. Routes are in Django's syntax (`<slug:phase_slug>`), which `path_of` fills in for a
client, so the two sides share one string. The evaluator imports no Django: the platform
imports this module, never the other way round. tests/submissions/test_api_contract.py
checks the platform's URL patterns, statuses, form fields and answers against it.
"""
from __future__ import annotations

import re
from urllib.parse import quote

MOUNT = "submissions/"  # where the platform includes cupboard.submissions.urls
ROOT = "api/"
UPLOAD_ROUTE = ROOT + "<slug:competition_slug>/<slug:phase_slug>/"
STATUS_ROUTE = ROOT + "<int:pk>/"
DEFINITION_ROUTE = UPLOAD_ROUTE + "definition/"  # GET, token optional: what reads a phase's files
COMPETITIONS_ROUTE = ROOT + "competitions/"  # GET, token optional: the competitions and phases the caller sees
SUBMISSIONS_ROUTE = UPLOAD_ROUTE + "submissions/"  # GET, token required: the caller's team's, newest first
PREFIX = "/" + MOUNT + ROOT  # every API path starts so

# A phase's leaderboards as JSON, among its pages under the site's root (not MOUNT: `page_path`
# fills them in). GET; they read the session or the token, as the pages do (token optional).
BOARD_ROOT = "c/<slug:competition_slug>/<slug:phase_slug>/"
LEADERBOARD_ROUTE = BOARD_ROOT + "leaderboard.json"  # ?as_of=<instant>, ?meta_<name>=<value>
OFFICIAL_ROUTE = BOARD_ROOT + "official.json"  # the frozen official results, once there are some
HISTORY_ROUTE = BOARD_ROOT + "leaderboard/history.json"  # each change: every team's primary value and rank

AUTH_SCHEME = "Token"  # Authorization: Token <token>
TOKEN_ENV = "CUPBOARD_TOKEN"

# A submission's status (cupboard.submissions.models.Submission.Status).
QUEUED, SCORING, SCORED, REJECTED, FAILED = "queued", "scoring", "scored", "rejected", "failed"
STATUSES = (QUEUED, SCORING, SCORED, REJECTED, FAILED)
DONE = frozenset({SCORED, REJECTED, FAILED})  # no worker moves it further
UNSUCCESSFUL = frozenset({REJECTED, FAILED})

TRY_LATER = frozenset({429, 503})  # HTTP answers that say "not now" (with Retry-After), not "no"

# The upload's multipart fields.
METHOD_NAME, DESCRIPTION, PAPER_URL, CODE_URL, IS_BASELINE = "method_name", "description", "paper_url", "code_url", \
    "is_baseline"
RELEASE_CONSENT = "release_consent"  # the run files may go in the phase's public results archive
JUDGING_PRIORITY = "judging_priority"  # 1 (judge first) to 9: pools may be built per priority
TOPIC_FIELDS = "topic_fields"  # the topic fields the run used, comma-separated ("query,question")
FILES = "files"  # run files whose language the server reads from their names
FILE_PREFIX = "file_"  # file_<code>: a run file for the language named
META_PREFIX = "meta_"  # meta_<name>: a value of the competition's run metadata

# What clients read from an answer: a submission's state, or errors as data.
ANSWER_FIELDS = ("id", "number", "status", "progress", "status_reason", "scores", "averages", "average_labels",
                 "decimals", "shown", "repeat", "warnings", "queue")
UPLOAD_ANSWER_FIELDS = (*ANSWER_FIELDS, "url")
ERROR_FIELDS = ("file", "line", "column", "code", "message")
# A phase's definition, as the caller may see it: its subsets ([{"code", "name"}], never a
# hidden one), so the CLI tells a run's subset from its name as the server does, and how it
# scores (the benchmark's key, metrics, depths) so `score` and `validate` can do alike; and its
# topic variants (the default first) with the topics files the caller may download, each with its url.
DEFINITION_FIELDS = ("competition", "phase", "benchmark", "subsets", "averages", "metrics", "primary_metric",
                     "relevance_level", "max_run_depth", "scoring_depth", "topic_variants", "topics")
# The competitions the caller may see ({"competitions": [...]}), each with the phases in order.
COMPETITION_FIELDS = ("slug", "title", "url", "starts_at", "phases")
PHASE_FIELDS = ("slug", "name", "opens", "closes", "is_open", "is_final", "reveal_at", "leaderboard_visible",
                "definition_url", "submissions_url", "leaderboard_url", "history_url", "official_url")
# The caller's team's submissions to a phase ({"submissions": [...]}), each an answer of ANSWER_FIELDS.
SUBMISSIONS_FIELDS = ("competition", "phase", "team", "submissions")
# leaderboard.json (official.json is a frozen copy of it); rows of LEADERBOARD_ROW_FIELDS.
LEADERBOARD_FIELDS = ("competition", "phase", "qrels_version", "metrics", "primary_metric", "rounded_to", "subsets",
                      "metadata_fields", "filter", "unfiltered_rows", "averages", "significance", "rows")
LEADERBOARD_ROW_FIELDS = ("rank", "team", "method", "baseline", "qrels_version", "metadata", "values", "averages")
# history.json: the instants of the changes, and a point per team ranked at each of them.
HISTORY_FIELDS = ("competition", "phase", "metric", "rounded_to", "decimals", "frozen_since", "instants", "points")
HISTORY_POINT_FIELDS = ("at", "team", "rank", "value")


def path_of(route: str, **values: object) -> str:
    """The absolute path of an API route: `path_of(STATUS_ROUTE, pk=7)` is `/submissions/api/7/`."""
    return "/" + MOUNT + _filled(route, values)


def page_path(route: str, **values: object) -> str:
    """The absolute path of a leaderboard route (at the site's root): `page_path(LEADERBOARD_ROUTE,
    competition_slug="cup", phase_slug="dev")` is `/c/cup/dev/leaderboard.json`."""
    return "/" + _filled(route, values)


def _filled(route: str, values: dict[str, object]) -> str:
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: quote(str(values[m.group(1)]), safe=""), route)


def upload_url(server: str, competition: str, phase: str) -> str:
    return server.rstrip("/") + path_of(UPLOAD_ROUTE, competition_slug=competition, phase_slug=phase)


def definition_url(server: str, competition: str, phase: str) -> str:
    return server.rstrip("/") + path_of(DEFINITION_ROUTE, competition_slug=competition, phase_slug=phase)


def status_url(server: str, submission_id: int) -> str:
    return server.rstrip("/") + path_of(STATUS_ROUTE, pk=submission_id)


def competitions_url(server: str) -> str:
    return server.rstrip("/") + path_of(COMPETITIONS_ROUTE)


def submissions_url(server: str, competition: str, phase: str) -> str:
    return server.rstrip("/") + path_of(SUBMISSIONS_ROUTE, competition_slug=competition, phase_slug=phase)


def board_url(server: str, route: str, competition: str, phase: str) -> str:
    """LEADERBOARD_ROUTE, OFFICIAL_ROUTE or HISTORY_ROUTE of a phase on `server`."""
    return server.rstrip("/") + page_path(route, competition_slug=competition, phase_slug=phase)


def error(code: str, message: str) -> dict[str, object]:
    """One error as the API writes it when no file or line is concerned."""
    return {**dict.fromkeys(ERROR_FIELDS), "code": code, "message": message}
