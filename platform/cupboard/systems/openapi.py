"""This app's part of the OpenAPI document: a system's upload by token and its executions' state,
described from the code that serves them (cupboard/operations/openapi.py joins the parts).

The upload's fields are read off `SystemForm`, as the run upload's are off `ApiUploadForm`; an
execution's keys are `execution_payload`'s, each typed once below and closed
(`additionalProperties: false`), so a key added there without a line here fails the tests that
check every answer against the document (tests/operations/test_api_exercised.py).
"""
from __future__ import annotations

from cupboard.submissions.openapi import TOKEN, TRY_LATER, answers, form_schema

from .forms import SystemForm
from .models import Execution

UPLOAD_PATH = "/c/{competition_slug}/{phase_slug}/system/api/"
STATUS_PATH = "/systems/{pk}/status/"
SLUG = {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"}
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
MAYBE_INSTANT = {"type": ["string", "null"], "format": "date-time"}
MAYBE_NUMBER = {"type": ["number", "null"]}
EXECUTION_TYPES: dict[str, dict] = {
    "id": {"type": "integer"},
    "reason": {"type": "string", "enum": list(Execution.Reason.values)},
    "reason_words": {"type": "string", "description": "The reason in words."},
    "status": {"type": "string", "enum": list(Execution.Status.values)},
    "status_reason": {"type": "string", "description": "Why it stopped, was refused or failed, in words; never "
                                                       "a topic."},
    "attempts": {"type": "integer"},
    "submission": {"type": ["integer", "null"], "description": "The run it became: GET /submissions/api/{id}/."},
    "exit_code": {"type": ["integer", "null"]},
    "stopped_for": {"type": ["string", "null"], "description": "The limit it was stopped at (time, wall, memory, "
                                                              "output, processes)."},
    "cpu_seconds": MAYBE_NUMBER, "max_rss_mib": MAYBE_NUMBER, "wall_seconds": MAYBE_NUMBER,
    "log_tail": {"type": "string", "description": "The end of its output, the topics redacted."},
    "image_sha256": {"type": "string"},
    "command": {"type": "array", "items": {"type": "string"}, "description": "The image's command, as run."},
    "limits": {"type": "object", "description": "The limits it ran with (docs/systems.md)."},
    "topics": {"type": "object", "additionalProperties": {"type": "string"},
               "description": "{subset code: SHA-256 of the topics file it was given}."},
    "output_sha256": {"type": "string", "description": "Of everything it wrote (compared by determinism checks)."},
    "queued_at": MAYBE_INSTANT, "started_at": MAYBE_INSTANT, "finished_at": MAYBE_INSTANT,
}
EXECUTIONS = {"type": "array", "items": {"$ref": "#/components/schemas/Execution"}}
NOT_FOUND = "No such system, or another team's (in the error shape)"


def _closed(properties: dict[str, dict]) -> dict:
    return {"type": "object", "required": list(properties), "additionalProperties": False, "properties": properties}


def openapi_part() -> dict:
    """{"paths", "schemas"} of the systems' JSON."""
    upload = form_schema(SystemForm(organizer=True))
    upload["description"] = "`as_organizers` is read from organizers only."
    return {
        "paths": {
            UPLOAD_PATH: {"post": {
                "operationId": "system_upload", "summary": "Upload a system (a container image) to a systems phase",
                "security": [TOKEN],
                "parameters": [{"name": name, "in": "path", "required": True, "schema": SLUG}
                               for name in ("competition_slug", "phase_slug")],
                "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": upload}}},
                "responses": answers({201: ("Stored; its execution is queued", "SystemUpload")},
                                     errors={400: "The form or the image is refused; nothing is stored",
                                             401: "No valid token", 404: "No such phase the caller may see",
                                             **TRY_LATER}),
            }},
            STATUS_PATH: {"get": {
                "operationId": "system_status", "summary": "A system's executions, newest first",
                "security": [TOKEN, {}],
                "description": "Reads the session as the system's page does, or the token when one is sent.",
                "parameters": [{"name": "pk", "in": "path", "required": True,
                                "schema": {"type": "integer", "minimum": 0}}],
                "responses": answers({200: ("The system and its executions", "SystemStatus")},
                                     errors={401: "A token was sent but is not valid", 404: NOT_FOUND, **TRY_LATER}),
            }},
        },
        "schemas": {
            "SystemUpload": _closed({
                "system": {"type": "integer", "description": "Its id: GET /systems/{id}/status/."},
                "number": {"type": "integer", "description": "Its number within the team's systems of the phase."},
                "sha256": SHA256, "url": {"type": "string", "format": "uri", "description": "Its page."},
                "executions": EXECUTIONS}),
            "SystemStatus": _closed({"system": {"type": "integer"}, "sha256": SHA256, "executions": EXECUTIONS}),
            "Execution": _closed(EXECUTION_TYPES),
        },
    }
