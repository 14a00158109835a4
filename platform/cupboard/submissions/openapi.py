"""This app's part of the OpenAPI 3.1 document: the JSON API's operations, generated from the
code that serves and checks them (cupboard/operations/openapi.py joins the apps' parts).

Nothing here restates the API by hand where the code already says it: the paths and their
parameters come from the contract's routes (evaluator/client/api.py), the upload's fields
from `ApiUploadForm` (names, required, types, the multipart file fields), the answers'
properties from the contract's field tuples and the error shape from `contract.error`. What
the code cannot say (a field's JSON type, a sentence for a reader) is one table below, keyed
by the contract's names: a field added to the contract without a type here fails to generate
(tests/submissions/test_openapi.py). The helpers that turn routes and tables into the
document's pieces (`api_path`, `parameters`, `object_schema`, `answers`) serve the other apps'
parts too.
"""
from __future__ import annotations

import re

from django import forms

from cupboard.competitions.forms import MultipleFileField
from evaluator.client import api as contract

from .forms import FALSE, TRUE, ApiUploadForm, YesNoField

VERSION = "1"  # of the API; a breaking change to the contract bumps it
TOKEN: dict[str, list] = {"token": []}
NULLABLE_STRING = {"type": ["string", "null"]}
SCORE_TABLE = {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {
    "type": ["number", "null"]}}}

# The JSON type of each field the contract names (ANSWER_FIELDS, UPLOAD_ANSWER_FIELDS,
# ERROR_FIELDS, DEFINITION_FIELDS), with what it means.
ANSWER_TYPES: dict[str, dict] = {
    "id": {"type": "integer", "description": "The submission's id: GET its status at /submissions/api/{id}/."},
    "number": {"type": "integer", "description": "Its number within the team's submissions to the phase."},
    "status": {"type": "string", "enum": list(contract.STATUSES),
               "description": f"{', '.join(sorted(contract.DONE))}: no worker moves it further."},
    "progress": {"type": ["number", "integer", "null"], "description": "Scoring progress, 0 to 100."},
    "status_reason": {"type": "string", "description": "Why it was rejected or failed, in words."},
    "scores": {**SCORE_TABLE, "description": "{subset code: {metric: value}}, as far as the caller may see."},
    "averages": {**SCORE_TABLE, "description": "{average key: {metric: value}}, the board's average columns."},
    "average_labels": {"type": "object", "additionalProperties": {"type": "string"},
                       "description": "{average key: label as the site shows it}."},
    "decimals": {"type": "integer", "description": "How many decimals the site shows."},
    "shown": {"type": "string", "description": "What the caller sees of the run now (\"status\": no scores; "
                                               "\"ladder\": not better than the team's shown run under the Ladder, "
                                               "no scores)."},
    "warnings": {"type": "array", "items": {"type": "string"},
                 "description": "Which languages leave queries out (they count 0), in words."},
    "repeat": {"type": "boolean", "description": "These files were already stored as this submission."},
    "queue": {"type": ["object", "null"], "description": "Its place in the scoring queue and the estimate."},
    "url": {"type": "string", "format": "uri", "description": "The submission's page."},
}
ERROR_TYPES: dict[str, dict] = {
    "file": {**NULLABLE_STRING, "description": "The run file concerned, if any."},
    "line": {"type": ["integer", "null"], "description": "Its line, counted from 1."},
    "column": {"type": ["integer", "null"], "description": "The column on that line."},
    "code": {"type": "string", "description": "A stable code a script can test (bad_token, throttled, ...)."},
    "message": {"type": "string", "description": "The problem in words."},
}
CODE_NAME = {"type": "object", "required": ["code", "name"],
             "properties": {"code": {"type": "string"}, "name": {"type": "string"}}}
DEFINITION_TYPES: dict[str, dict] = {
    "competition": {"type": "string"}, "phase": {"type": "string"}, "benchmark": {"type": "string"},
    "subsets": {"type": "array", "items": CODE_NAME, "description": "The subsets the caller may see."},
    "averages": {"type": "array", "items": {"type": "object", "required": ["key", "label", "subsets"], "properties": {
        "key": {"type": "string"}, "label": {"type": "string"},
        "subsets": {"type": "array", "items": {"type": "string"}}}}},
    "metrics": {"type": "array", "items": {"type": "string"}}, "primary_metric": {"type": "string"},
    "relevance_level": {"type": "integer"}, "max_run_depth": {"type": "integer"},
    "scoring_depth": {"type": "integer"},
    "topic_variants": {"type": "array", "items": CODE_NAME, "description": "The default variant first."},
    "topics": {"type": "array", "items": {"type": "object", "properties": {
        "subset": {"type": "string"}, "variant": {"type": "string"}, "name": {"type": "string"},
        "queries": {"type": "integer"}, "url": {"type": "string", "format": "uri"}}},
        "description": "The topics files the caller may download."},
}
URL = {"type": "string", "format": "uri"}
INSTANT = {"type": "string", "format": "date-time"}
COMPETITION_TYPES: dict[str, dict] = {
    "slug": {"type": "string"}, "title": {"type": "string"},
    "url": {**URL, "description": "The competition's page."}, "starts_at": INSTANT,
    "phases": {"type": "array", "items": {"$ref": "#/components/schemas/Phase"}, "description": "In their order."},
}
PHASE_TYPES: dict[str, dict] = {
    "slug": {"type": "string"}, "name": {"type": "string"}, "opens": INSTANT, "closes": INSTANT,
    "is_open": {"type": "boolean", "description": "Open for uploads now."},
    "is_final": {"type": "boolean", "description": "The phase that decides the competition."},
    "reveal_at": {"type": ["string", "null"], "format": "date-time",
                  "description": "When a private leaderboard becomes public (null: live, or never)."},
    "leaderboard_visible": {"type": "boolean", "description": "The caller may see its leaderboard now."},
    "definition_url": URL, "submissions_url": {**URL, "description": "The caller's team's submissions to it."},
    "leaderboard_url": URL, "history_url": URL,
    "official_url": {"type": ["string", "null"], "format": "uri",
                     "description": "Its frozen official results, once the caller may see them (else null)."},
}
SUBMISSIONS_TYPES: dict[str, dict] = {
    "competition": {"type": "string"}, "phase": {"type": "string"}, "team": {"type": "string"},
    "submissions": {"type": "array", "items": {"$ref": "#/components/schemas/Submission"},
                    "description": "Newest first."},
}
CONVERTERS = {"slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"}, "int": {"type": "integer", "minimum": 0}}
TRY_LATER = {429: "Too many requests with this token", 503: "The service is briefly unavailable (an outage)"}


def openapi_part() -> dict:
    """This app's part of the document (cupboard/operations/openapi.py joins the apps' parts):
    {"paths", "schemas"}, the operations on the contract's API routes and their answers,
    among them the error shape every part refers to."""
    return {
        "paths": {
            api_path(contract.UPLOAD_ROUTE): {"post": _upload()},
            api_path(contract.DEFINITION_ROUTE): {"get": _definition()},
            api_path(contract.STATUS_ROUTE): {"get": _status()},
            api_path(contract.COMPETITIONS_ROUTE): {"get": _competitions()},
            api_path(contract.SUBMISSIONS_ROUTE): {"get": _submissions()},
        },
        "schemas": {
            "Submission": object_schema(ANSWER_TYPES, contract.ANSWER_FIELDS),
            "Upload": object_schema(ANSWER_TYPES, contract.UPLOAD_ANSWER_FIELDS),
            "Definition": object_schema(DEFINITION_TYPES, contract.DEFINITION_FIELDS),
            "Competitions": {"type": "object", "required": ["competitions"], "properties": {"competitions": {
                "type": "array", "items": {"$ref": "#/components/schemas/Competition"}}}},
            "Competition": object_schema(COMPETITION_TYPES, contract.COMPETITION_FIELDS),
            "Phase": object_schema(PHASE_TYPES, contract.PHASE_FIELDS),
            "Submissions": object_schema(SUBMISSIONS_TYPES, contract.SUBMISSIONS_FIELDS),
            "Error": {**object_schema(ERROR_TYPES, contract.ERROR_FIELDS), "additionalProperties": False},
            "Errors": {"type": "object", "required": ["errors"], "additionalProperties": False, "properties": {
                "errors": {"type": "array", "minItems": 1, "items": {"$ref": "#/components/schemas/Error"}}}},
        },
    }


def api_path(route: str, *, mount: str = contract.MOUNT) -> str:
    """A contract route in OpenAPI's syntax: `api/<int:pk>/` -> `/submissions/api/{pk}/`
    (`mount=""` for a route at the site's root, as the leaderboards' JSON)."""
    return "/" + mount + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


def parameters(route: str) -> list[dict]:
    return [{"name": name, "in": "path", "required": True, "schema": CONVERTERS[converter or "str"]}
            for converter, name in re.findall(r"<(?:(\w+):)?(\w+)>", route)]


def object_schema(types: dict[str, dict], fields: tuple[str, ...]) -> dict:
    """An answer object: every field the contract says clients read is there (more may be)."""
    return {"type": "object", "required": list(fields), "properties": {name: types[name] for name in fields}}


def answers(ok: dict[int, tuple[str, str]], *, errors: dict[int, str]) -> dict:
    """{status: response}: `ok` statuses with (description, schema name), the rest the error shape."""
    answers = {str(code): {"description": text, "content": {"application/json": {"schema": {
        "$ref": f"#/components/schemas/{schema}"}}}} for code, (text, schema) in ok.items()}
    for code, text in errors.items():
        answers[str(code)] = {"description": text, "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/Errors"}}}}
        if code in contract.TRY_LATER:
            answers[str(code)]["headers"] = {"Retry-After": {"description": "Seconds to wait before trying again",
                                                             "schema": {"type": "integer"}}}
    return answers


def _upload() -> dict:
    return {
        "operationId": "upload", "summary": "Upload run files as a new submission", "security": [TOKEN],
        "parameters": parameters(contract.UPLOAD_ROUTE),
        "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": upload_form_schema()}}},
        "responses": answers({201: ("Created: the new submission", "Upload"),
                               200: ("A repeat: these files are already stored as this submission", "Upload")},
                              errors={400: "The request or a run file is refused; nothing is stored",
                                      401: "No valid token", 404: "No such phase the caller may see",
                                      **TRY_LATER}),
    }


def _definition() -> dict:
    return {
        "operationId": "definition", "summary": "A phase's subsets, scoring and topics, as the caller may see them",
        "security": [TOKEN, {}], "parameters": parameters(contract.DEFINITION_ROUTE),
        "responses": answers({200: ("The phase's definition", "Definition")},
                              errors={401: "A token was sent but is not valid", 404: "No such phase the caller may see",
                                      **TRY_LATER}),
    }


def _status() -> dict:
    return {
        "operationId": "status", "summary": "A submission's state and the scores the caller may see",
        "security": [TOKEN], "parameters": parameters(contract.STATUS_ROUTE),
        "responses": answers({200: ("The submission's state", "Submission")},
                              errors={401: "No valid token", 404: "No such submission, or another team's",
                                      **TRY_LATER}),
    }


def _competitions() -> dict:
    return {
        "operationId": "competitions", "summary": "The competitions the caller may see, with their phases",
        "security": [TOKEN, {}], "parameters": [],
        "responses": answers({200: ("The competitions, newest first", "Competitions")},
                              errors={401: "A token was sent but is not valid", **TRY_LATER}),
    }


def _submissions() -> dict:
    return {
        "operationId": "submissions", "summary": "The caller's team's submissions to a phase, newest first",
        "security": [TOKEN], "parameters": parameters(contract.SUBMISSIONS_ROUTE),
        "responses": answers({200: ("The team's submissions, each as its status", "Submissions")},
                              errors={401: "No valid token", 403: "The caller is in no team of the competition",
                                      404: "No such phase the caller may see", **TRY_LATER}),
    }


def upload_form_schema() -> dict:
    """The upload's multipart body, read from the form that validates it: each field's name,
    type and whether it is required, and the `file_<code>` / `meta_<name>` families."""
    return {
        **form_schema(ApiUploadForm(subsets=(), metadata_fields=())),
        "patternProperties": {
            f"^{contract.FILE_PREFIX}[-a-zA-Z0-9_]+$": {
                "type": "string", "contentMediaType": "application/octet-stream",
                "description": f"{contract.FILE_PREFIX}<code>: a run file for the language named."},
            f"^{contract.META_PREFIX}[-a-zA-Z0-9_]+$": {
                "type": "string", "description": f"{contract.META_PREFIX}<name>: a value of the competition's "
                                                 "run metadata (the phase's definition page lists them)."}},
        "description": f"Send at least one run file, in `{contract.FILES}` or `{contract.FILE_PREFIX}<code>`.",
    }


def form_schema(form: forms.Form) -> dict:
    """A form's multipart body as JSON Schema: each field's name, type and whether it is required
    (the run upload's and the system upload's alike)."""
    return {"type": "object", "properties": {name: _form_field(field) for name, field in form.fields.items()},
            "required": [name for name, field in form.fields.items() if field.required]}


def _form_field(field: forms.Field) -> dict:
    """A form field as JSON Schema: files are binary parts, the rest strings as multipart sends them."""
    file = {"type": "string", "contentMediaType": "application/octet-stream"}
    if isinstance(field, MultipleFileField):
        schema: dict = {"type": "array", "items": file}
    elif isinstance(field, forms.FileField):
        schema = file
    elif isinstance(field, YesNoField):
        schema = {"type": "string", "pattern": _yes_no_pattern(), "default": "false"}
    elif isinstance(field, forms.URLField):
        schema = {"type": "string", "format": "uri"}
    elif isinstance(field, forms.CharField) and field.max_length:
        schema = {"type": "string", "maxLength": field.max_length}
    else:
        schema = {"type": "string"}
    if field.help_text:
        schema["description"] = str(field.help_text)
    if isinstance(field, YesNoField):
        schema["description"] = " ".join([*filter(None, [schema.get("description")]), YES_NO])
    return schema


YES_NO = (f"Yes is {', '.join(sorted(TRUE))}; no is {', '.join(sorted(FALSE - {''}))}, empty or left out "
          "(any case); anything else is refused (code bad_boolean).")


def _yes_no_pattern() -> str:
    """The spellings `YesNoField` reads, in any case and with spaces around (as it strips them):
    JSON Schema's regular expressions have no case-insensitive flag, so each letter is a class."""
    words = sorted(TRUE | FALSE, key=lambda word: (-len(word), word))
    spelled = ("".join(f"[{c.upper()}{c}]" if c.isalpha() else c for c in word) for word in words)
    return rf"^\s*(?:{'|'.join(spelled)})\s*$"
