"""Check an API answer against the OpenAPI document: its status is one the document lists
for that path and method, and its JSON body matches that answer's schema (jsonschema)."""
from __future__ import annotations

import gzip
import json
import re
from functools import cache

from jsonschema import Draft202012Validator

from cupboard.operations.openapi import openapi_document


@cache
def _document() -> dict:
    return openapi_document()


def _operation(method: str, path: str, openapi: dict) -> dict | None:
    """The operation of `method path`: a template with fewer parameters first, as the URL
    patterns resolve it (/submissions/api/competitions/ is not /submissions/api/{pk}/)."""
    for template, methods in sorted(openapi["paths"].items(), key=lambda item: item[0].count("{")):
        if re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", template), path):
            return methods.get(method.lower())
    return None


def check_answer(method: str, path: str, response) -> bool:
    """Fail when `response` to `method path` is not what the document says; False when the
    document does not describe that path and method (a page, a 405, a HEAD) or the answer has
    no body to check (304 Not Modified)."""
    if _operation(method, path, _document()) is None or response.status_code == 304:
        return False
    body = response.content
    if response.get("Content-Encoding") == "gzip":  # a cached leaderboard export, as sent to a browser
        body = gzip.decompress(body)
    return check_document(method, path, response.status_code, json.loads(body), retry_after=response.get("Retry-After"))


def check_document(method: str, path: str, status: int, document, *, retry_after: str | None = "",
                   openapi: dict | None = None) -> bool:
    """As `check_answer`, for an answer already read (the CLI's `call_api` gives status and JSON;
    `retry_after=""`: the caller cannot see headers), against `openapi` (e.g. the document a
    running server serves; default: the one this checkout generates)."""
    openapi = openapi or _document()
    operation = _operation(method, path, openapi)
    if operation is None:
        return False
    answer = operation["responses"].get(str(status))
    assert answer is not None, f"{method} {path} answered {status}, which the OpenAPI document omits"
    if "Retry-After" in answer.get("headers", {}) and retry_after != "":
        assert (retry_after or "").isdigit(), f"{method} {path} {status} lacks Retry-After"
    schema = {"$ref": answer["content"]["application/json"]["schema"]["$ref"], "components": openapi["components"]}
    errors = sorted(Draft202012Validator(schema).iter_errors(document), key=str)
    assert not errors, f"{method} {path} {status} does not match its schema: {errors[0].message} " \
                       f"at {list(errors[0].absolute_path)}"
    return True


def check_every_answer(monkeypatch) -> None:
    """From now on, every answer a Django test client gets is checked against the document:
    a status it does not list, or a body off its schema, fails the test that got it."""
    from django.test import Client

    original = Client.request

    def request(self, **environ):
        response = original(self, **environ)
        check_answer(environ["REQUEST_METHOD"], environ["PATH_INFO"], response)
        return response
    monkeypatch.setattr(Client, "request", request)
