"""A competition's definition in the browser: create one, edit it as fields or as YAML (typed
or an uploaded file), download it as YAML, preview its Markdown pages.

Every save goes through the loader `manage.py load_competition` uses
(competitions/definition_edits.py): a first POST shows what it would change and changes
nothing; the YAML it showed, posted back with `confirm`, applies it with the version raised,
its diff written to the audit log and mailed to teams as a file's would be. The edit pages
are the organizer area's (404 / 403: competitions/access.py); creating one is for staff and
accounts with the permission to add competitions (`may_create_competition`).
"""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from cupboard.competitions.access import organizer_competition
from cupboard.competitions.definition import EXAMPLES_DIR
from cupboard.competitions.definition_edits import (
    MAX_TEXT,
    competition_save,
    definition_text_read,
    may_create_competition,
    problem_paths,
)
from cupboard.competitions.definition_export import definition_data, definition_yaml, yaml_text
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.forms_definition import ROWS, DefinitionForms, measures_known
from cupboard.competitions.pages import PAGES, render_markdown

YAML_NAME = "definition.yaml"  # how problems in the text area are named: definition.yaml:12: ...
NEW = {"schema": 1, "version": 1, "benchmark": "generic", "published": False}


def _creator(request) -> None:
    if not may_create_competition(request.user):
        raise PermissionDenied("Creating competitions is for staff and accounts allowed to add them.")


def _next_version(competition) -> int:
    return competition.config_version + 1 if competition is not None else 1


def _confirmed(request, competition, data: dict, text: str):
    """Apply the definition shown for confirmation; the organizer area with what changed."""
    saved, changes = competition_save(data=_with_creator(request, competition, data), actor=request.user,
                                      competition=competition, dry_run=False, text=text, name=YAML_NAME)
    if changes is None:
        messages.success(request, f"Created {saved.title} at definition version {saved.config_version}.")
    else:
        messages.success(request, f"Saved definition version {saved.config_version}: "
                                  f"{len(changes)} change{'s' * (len(changes) != 1)}." if changes else
                         f"Nothing changed (definition version {saved.config_version}).")
    return redirect("competitions:manage", saved.slug)


def _with_creator(request, competition, data: dict) -> dict:
    """A new competition is organized by whoever creates it (or they could not reach its pages)."""
    if competition is None and isinstance(data, dict) and request.user.username not in (data.get("organizers") or []):
        data = data | {"organizers": [*(data.get("organizers") or []), request.user.username]}
    return data


def _preview(request, competition, data: dict, text: str, *, lines: bool) -> dict:
    """What saving would change: {changes, creates, text, pages}; CompetitionError when refused,
    its problems at their lines of `text` when `lines` (the fields name them by key path)."""
    _, changes = competition_save(data=_with_creator(request, competition, data), actor=request.user,
                                  competition=competition, dry_run=True, text=text if lines else None, name=YAML_NAME)
    pages = [{"title": title, "html": render_markdown(data["pages"][name])}
             for name, title in PAGES.items() if (data.get("pages") or {}).get(name)]
    return {"changes": changes or [], "creates": changes is None, "text": text, "pages": pages}


def _refusal(error: CompetitionError, text: str) -> dict:
    """A refusal as the page lists it: each problem with its line when it has one, and the
    text's lines numbered with each problem under its own line."""
    rows: list[dict] = []
    at: dict[int, list[str]] = {}
    for problem in error.problems:
        name, _, rest = str(problem).partition(":")
        line, _, message = rest.partition(": ")
        if name == YAML_NAME and line.isdigit():
            rows.append({"file": name, "line": int(line), "message": message})
            at.setdefault(int(line), []).append(message)
        else:
            rows.append({"file": "", "line": None, "message": str(problem)})
    listing = [{"number": n, "text": line, "problems": at.get(n, [])}
               for n, line in enumerate(text.splitlines(), start=1)] if at else []
    return {"code": error.code, "message": error.message, "problems": rows, "listing": listing}


def _page(request, template: str, context: dict, *, failed: bool):
    return render(request, template, context, status=400 if failed else 200)


def _fields(request, competition):
    """The structured form: fill, add a row, check (the diff), confirm."""
    editing = competition is not None
    base = definition_data(competition, version=_next_version(competition), listed=True) if editing else dict(NEW)
    context = {"competition": competition, "measures": measures_known(), "rows": ROWS}
    if request.method == "POST" and "confirm" in request.POST:
        return _yaml_confirm(request, competition)
    if request.method == "POST" and request.POST.get("add") in ROWS:
        forms = DefinitionForms.with_row_added(request.POST, prefix=request.POST["add"], base=base, editing=editing)
        return _page(request, "competitions/definition_fields.html", context | {"forms": forms}, failed=False)
    forms = DefinitionForms(request.POST if request.method == "POST" else None, base=base, editing=editing)
    if request.method != "POST" or not forms.is_valid():
        return _page(request, "competitions/definition_fields.html", context | {"forms": forms},
                     failed=request.method == "POST")
    data = _with_creator(request, competition, forms.definition())  # in the YAML shown, as it is saved
    text = yaml_text(data)
    try:
        preview = _preview(request, competition, data, text, lines=False)
    except CompetitionError as error:
        forms.show_problems(problem_paths(error))
        return _page(request, "competitions/definition_fields.html",
                     context | {"forms": forms, "refusal": {"code": error.code, "message": error.message}}, failed=True)
    return _page(request, "competitions/definition_fields.html", context | {"forms": forms, "preview": preview},
                 failed=False)


def _yaml(request, competition):
    """The YAML text area or an uploaded file: check (the diff), confirm."""
    if request.method == "POST" and "confirm" in request.POST:
        return _yaml_confirm(request, competition)
    upload = request.FILES.get("file")
    if request.method != "POST":
        text = (definition_yaml(competition, version=_next_version(competition)) if competition is not None else
                (EXAMPLES_DIR / "ciral-like.yaml").read_text(encoding="utf-8"))
        return _page(request, "competitions/definition_yaml.html", {"competition": competition, "text": text},
                     failed=False)
    try:
        text = upload.read(MAX_TEXT + 1).decode("utf-8") if upload else request.POST.get("definition", "")
    except UnicodeDecodeError:
        text = ""
        refusal = {"code": "bad-file", "message": f"{upload.name} is not UTF-8 text", "problems": []}
        return _page(request, "competitions/definition_yaml.html",
                     {"competition": competition, "text": text, "refusal": refusal}, failed=True)
    try:
        preview = _preview(request, competition, definition_text_read(text, name=YAML_NAME), text, lines=True)
    except CompetitionError as error:
        return _page(request, "competitions/definition_yaml.html",
                     {"competition": competition, "text": text, "refusal": _refusal(error, text)}, failed=True)
    return _page(request, "competitions/definition_yaml.html",
                 {"competition": competition, "text": text, "preview": preview}, failed=False)


def _yaml_confirm(request, competition):
    """The confirmed text, read and applied again (it may have been refused since it was shown)."""
    text = request.POST.get("definition", "")
    try:
        return _confirmed(request, competition, definition_text_read(text, name=YAML_NAME), text)
    except CompetitionError as error:
        return _page(request, "competitions/definition_yaml.html",
                     {"competition": competition, "text": text, "refusal": _refusal(error, text)}, failed=True)


@login_required
@require_http_methods(["GET", "POST"])
def definition_edit(request, slug: str):
    """The competition's definition as fields, prefilled from what it is now."""
    return _fields(request, organizer_competition(request, slug))


@login_required
@require_http_methods(["GET", "POST"])
def definition_edit_yaml(request, slug: str):
    """The competition's definition as YAML text, or a file to load in its place."""
    return _yaml(request, organizer_competition(request, slug))


@login_required
@require_safe
def definition_download(request, slug: str):
    """The definition as a YAML file: loaded back (here or by load_competition) it changes nothing."""
    competition = organizer_competition(request, slug)
    response = HttpResponse(definition_yaml(competition), content_type="application/yaml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{competition.slug}.v{competition.config_version}.yaml"'
    return response


@login_required
@require_http_methods(["GET", "POST"])
def competition_create(request):
    """A new competition from fields (a draft until published)."""
    _creator(request)
    return _fields(request, None)


@login_required
@require_http_methods(["GET", "POST"])
def competition_create_yaml(request):
    """A new competition from YAML text or a file."""
    _creator(request)
    return _yaml(request, None)


@login_required
@require_POST
def markdown_preview(request):
    """A page's Markdown as the competition page renders it (sanitised: competitions/pages.py),
    for the live preview beside the form's text areas."""
    if not (may_create_competition(request.user) or request.user.organized_competitions.exists()):
        raise PermissionDenied("For organizers.")
    return HttpResponse(render_markdown(request.POST.get("text", "")[:100_000]), content_type="text/html; charset=utf-8")
