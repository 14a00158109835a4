"""The OpenAPI 3.1 document of the site's whole JSON API, joined from the apps' parts.

Each app describes its own JSON from its own code (`cupboard.submissions.openapi`: the API
under /submissions/api/; `cupboard.leaderboards.openapi`: a phase's leaderboards as JSON;
`cupboard.systems.openapi`: a system's upload and its executions); an
app cannot see the apps above it, so the parts are joined here, above both
(docs/architecture.md). Two parts naming the same path or schema is an error, not an
overwrite. Served at /api/openapi.json, rendered for people at /api/docs/ and checked in as
docs/openapi.json (`manage.py openapi`; a test fails when that copy is stale).
"""
from __future__ import annotations

from cupboard.leaderboards.openapi import openapi_part as leaderboards_part
from cupboard.submissions.openapi import VERSION
from cupboard.submissions.openapi import openapi_part as submissions_part
from cupboard.systems.openapi import openapi_part as systems_part
from evaluator.client import api as contract

PARTS = (submissions_part, leaderboards_part, systems_part)


def openapi_document() -> dict:
    """The whole document, ready for json.dumps."""
    paths: dict[str, dict] = {}
    schemas: dict[str, dict] = {}
    for part in PARTS:
        found = part()
        _join(paths, found["paths"], what="path")
        _join(schemas, found["schemas"], what="schema")
    return {
        "openapi": "3.1.0",
        "info": {"title": "cupboard JSON API", "version": VERSION,
                 "description": "Upload runs and read a submission's state with a per-user token; list the "
                                "competitions and a team's submissions; read a phase's definition, its "
                                "leaderboard, history and official results; upload a system to a systems phase "
                                "and read its executions. Errors come back as data, in one shape."},
        "paths": paths,
        "components": {
            "securitySchemes": {"token": {
                "type": "apiKey", "in": "header", "name": "Authorization",
                "description": f"`Authorization: {contract.AUTH_SCHEME} <token>` (the CLI reads "
                               f"${contract.TOKEN_ENV}). Under {contract.PREFIX} a session cookie does not "
                               "count; the leaderboards' JSON reads the session when no token is sent."}},
            "schemas": schemas,
        },
    }


def _join(into: dict[str, dict], part: dict[str, dict], *, what: str) -> None:
    for name, value in part.items():
        if name in into:
            raise ValueError(f"Two parts of the OpenAPI document describe the {what} {name!r}")
        into[name] = value


def docs_operations(document: dict) -> list[dict]:
    """The document's operations, flattened for the /api/docs/ page: what a reader scans."""
    return [{"method": method.upper(), "path": path, "summary": op["summary"],
             "token": "optional" if {} in op["security"] else "required", "description": op.get("description", ""),
             "parameters": [(p["name"], _type_of(p["schema"])) for p in op["parameters"] if p["in"] == "path"],
             "query": [(p["name"], _type_of(p["schema"]), p.get("description", ""))
                       for p in op["parameters"] if p["in"] == "query"],
             "fields": _fields(op["requestBody"]["content"]["multipart/form-data"]["schema"])
             if "requestBody" in op else [],
             "responses": [(code, answer["description"], answer["content"]["application/json"]["schema"]["$ref"]
                            .rsplit("/", 1)[1]) for code, answer in sorted(op["responses"].items())]}
            for path, methods in document["paths"].items() for method, op in methods.items()]


def docs_schemas(document: dict) -> list[tuple[str, list]]:
    """(name, fields) for each answer schema, fields as (name, type, required, description)."""
    return [(name, _fields(schema)) for name, schema in document["components"]["schemas"].items()]


def _fields(schema: dict) -> list[tuple[str, str, bool, str]]:
    required = set(schema.get("required", ()))
    named = [(name, _type_of(s), name in required, s.get("description", ""))
             for name, s in schema.get("properties", {}).items()]
    return named + [(pattern, _type_of(s), False, s.get("description", ""))
                    for pattern, s in schema.get("patternProperties", {}).items()]


def _type_of(schema: dict) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[1]
    kind = schema.get("type", "any")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array":
        return f"array of {_type_of(schema['items'])}"
    if schema.get("contentMediaType"):
        return "file"
    return kind + (f" ({schema['format']})" if "format" in schema else "")
