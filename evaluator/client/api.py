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
PREFIX = "/" + MOUNT + ROOT  # every API path starts so

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


def path_of(route: str, **values: object) -> str:
    """The absolute path of a route: `path_of(STATUS_ROUTE, pk=7)` is `/submissions/api/7/`."""
    return "/" + MOUNT + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: quote(str(values[m.group(1)]), safe=""), route)


def upload_url(server: str, competition: str, phase: str) -> str:
    return server.rstrip("/") + path_of(UPLOAD_ROUTE, competition_slug=competition, phase_slug=phase)


def definition_url(server: str, competition: str, phase: str) -> str:
    return server.rstrip("/") + path_of(DEFINITION_ROUTE, competition_slug=competition, phase_slug=phase)


def status_url(server: str, submission_id: int) -> str:
    return server.rstrip("/") + path_of(STATUS_ROUTE, pk=submission_id)


def error(code: str, message: str) -> dict[str, object]:
    """One error as the API writes it when no file or line is concerned."""
    return {**dict.fromkeys(ERROR_FIELDS), "code": code, "message": message}
