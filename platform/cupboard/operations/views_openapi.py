"""The JSON API described: its OpenAPI document, and a page that renders it (no script: CSP)."""
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from cupboard.competitions.page_cache import anonymous_cached

from .openapi import docs_operations, docs_schemas, openapi_document


@anonymous_cached("site")
@require_GET
def openapi_json(request):
    """The OpenAPI 3.1 document, joined from the apps' parts (docs/openapi.json is a copy)."""
    return JsonResponse(openapi_document(), json_dumps_params={"indent": 2})


@anonymous_cached("site")
@require_GET
def api_docs(request):
    """The API's reference for people: every operation, its fields and answers, from the same document."""
    document = openapi_document()
    return render(request, "operations/api_docs.html", {
        "info": document["info"], "operations": docs_operations(document), "schemas": docs_schemas(document)})
