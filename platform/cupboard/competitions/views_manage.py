"""The organizer area: an overview per phase, topics and qrels uploads, the phase and
surprise schedules (each edit shown as its diff to confirm before it applies). For a competition's organizers and staff only; anyone else gets a 403,
or the 404 of a competition that does not exist when they may not see it (a draft), as
every organizer page answers (competitions/access.py)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_safe

from cupboard.competitions.access import organizer_competition, organizer_phase
from cupboard.competitions.board_rules import BOARD_RULE_FIELDS, phase_board_rules_change, phase_board_rules_preview
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.forms import (
    GroupRevealForm,
    PhaseBoardRulesForm,
    PhaseScheduleForm,
    QrelsUploadForm,
    TopicsUploadForm,
)
from cupboard.competitions.models import SubsetGroup, TopicsFile
from cupboard.competitions.schedule import (
    PHASE_SCHEDULE_FIELDS,
    group_reveal_change,
    group_reveal_preview,
    phase_schedule_change,
    phase_schedule_preview,
)
from cupboard.competitions.selectors import organizer_overview, topics_history
from cupboard.competitions.services import qrels_release_create
from cupboard.competitions.topic_files import topics_import_files, topics_preview
from cupboard.competitions.topic_variants import variants
from cupboard.competitions.topics_changes import REFUSE, RESCORE
from cupboard.competitions.topics_staging import topics_stage, topics_staged, topics_unstage
from cupboard.competitions.uploads import read_source


def _refusal(error: CompetitionError) -> dict:
    """What the page shows of a refused upload: the reason, and each problem's file, line and reason."""
    return {"code": error.code, "message": error.message, "problems": error.problem_rows()}


def _posted(request) -> tuple:
    """A form's data and files: bound on every POST, even an empty one (which must show
    "this field is required", not the blank form again)."""
    return (request.POST, request.FILES) if request.method == "POST" else (None, None)


def _save(request, form, action, *, slug: str):
    """For a valid POST, run `action()` (it returns the message to show): the redirect to the
    overview, or the refusal to show with the form. (None, None) for a GET or form errors."""
    if request.method != "POST" or not form.is_valid():
        return None, None
    try:
        message = action()
    except CompetitionError as error:
        return None, _refusal(error)
    messages.success(request, message)
    return redirect("competitions:manage", slug), None


def _save_confirmed(request, form, action, *, preview, slug: str):
    """A schedule edit in two steps, like `load_competition --dry-run` then the load: a valid
    POST shows what it would change (or why it is refused) and changes nothing; the same values
    posted again with `confirm` apply. Returns (redirect, refusal, changes to confirm)."""
    if request.method == "POST" and "confirm" not in request.POST and form.is_valid():
        try:
            changes = preview()
        except CompetitionError as error:
            return None, _refusal(error), []
        if changes:
            return None, None, changes
    return *_save(request, form, action, slug=slug), []


def _form_page(request, template: str, context: dict, *, refusal: dict | None):
    """The form again: 400 with its errors or the refusal, 200 when first shown."""
    failed = refusal is not None or bool(context["form"].errors)
    return render(request, template, {**context, "refusal": refusal}, status=400 if failed else 200)


@login_required
@require_GET
def manage(request, slug: str):
    """Per phase: topics and current judgments per subset, submissions by status, actions."""
    competition = organizer_competition(request, slug)
    return render(request, "competitions/manage.html", {
        "competition": competition, "phases": organizer_overview(competition),
        "groups": competition.groups.all()})


def _files_upload(request, slug: str, phase_slug: str, *, kind: str, form_class, store, form_kwargs=None):
    """Shared by the topics and qrels uploads: a form, one service call, errors by file and line.
    `form_kwargs(phase)`: what else the form is made with."""
    phase = organizer_phase(request, slug, phase_slug)
    subsets = phase.competition.subsets.order_by("position", "code")
    form = form_class(*_posted(request), subsets=subsets, **(form_kwargs(phase) if form_kwargs else {}))
    done, refusal = _save(request, form, lambda: store(phase, form), slug=slug)
    return done or _form_page(request, "competitions/manage_files.html", {
        "competition": phase.competition, "phase": phase, "form": form, "kind": kind, "codes": form.codes},
        refusal=refusal)


@login_required
@require_http_methods(["GET", "POST"])
def qrels_upload(request, slug: str, phase_slug: str):
    """A new qrels version for a phase: validated whole, audited, scored submissions re-scored;
    judged queries without a topic are named in a warning."""
    def store(phase, form):
        previous = phase.qrels_releases.order_by("-number").first()
        warnings: list[str] = []
        release = qrels_release_create(phase=phase, files=form.cleaned_data["by_subset"], names=form.names(),
                                       actor=request.user, note=form.cleaned_data["note"], warn=warnings.append)
        for warning in warnings:  # only once stored: a refused upload shows its refusal alone
            messages.warning(request, warning)
        if release == previous:
            return f"Nothing new: the files are those of qrels v{release.number}."
        stored = release.files.filter(subset__code__in=form.cleaned_data["by_subset"]).select_related("subset")
        return (f"{phase.name} now uses qrels v{release.number}; its scored submissions are queued for scoring again. "
                + "; ".join(f"{f.subset.code}: {f.judgments} judgments, SHA-256 {f.sha256}" for f in stored))

    return _files_upload(request, slug, phase_slug, kind="qrels", form_class=QrelsUploadForm, store=store)


@login_required
@require_http_methods(["GET", "POST"])
def topics_upload(request, slug: str, phase_slug: str):
    """Topics for some subsets of a phase, all stored or none; the same bytes again change nothing.
    A change to queries stored before is shown first (added, removed, changed per subset, and the
    runs it affects) and applies only once confirmed, with the organizer's choice for those runs:
    scored again, or the change refused while they exist (competitions/topics_changes.py)."""
    if request.method == "POST" and "confirm" in request.POST:
        return _topics_confirm(request, slug, phase_slug)
    phase = organizer_phase(request, slug, phase_slug)
    form = _topics_form(phase, *_posted(request))
    page = _topics_page(phase, form)
    if request.method != "POST" or not form.is_valid():
        return _form_page(request, "competitions/manage_files.html", page, refusal=None)
    files = {key: read_source(upload) for key, upload in form.cleaned_data["by_subset"].items()}
    try:
        change = topics_preview(phase=phase, files=files, names=form.names())
        if change.replaces:  # shown first; stored once confirmed (_topics_confirm)
            token = topics_stage(phase=phase, files=files, names=form.names())
            return render(request, "competitions/manage_files.html", {**page, "preview": _topics_preview(
                phase, change, token)})
        stored = topics_import_files(phase=phase, files=files, names=form.names(), actor=request.user)
    except CompetitionError as error:
        return _form_page(request, "competitions/manage_files.html", page, refusal=_refusal(error))
    messages.success(request, _topics_stored(phase, stored, several=len(form.variants) > 1))
    return redirect("competitions:manage", slug)


@login_required
@require_safe
def topics_change_file(request, slug: str, phase_slug: str, number: int, code: str, variant: str):
    """A topics file as change `number` of the phase stored it, replaced since or not: organizers
    only (it may hold a surprise language's queries), under its name then, the change in a header."""
    phase = organizer_phase(request, slug, phase_slug)
    stored = get_object_or_404(TopicsFile, version__phase=phase, version__number=number, subset__code=code,
                               variant=variant)
    response = FileResponse(stored.file.open("rb"), as_attachment=True, filename=stored.original_name,
                            content_type="text/plain")
    response["X-Topics-Change"] = str(number)
    return response


def _topics_page(phase, form) -> dict:
    """The topics upload page's context: the form, and every change of the phase's topics, newest first."""
    return {"competition": phase.competition, "phase": phase, "form": form, "kind": "topics", "codes": form.codes,
            "changes": topics_history(phase)}


def _topics_form(phase, *posted) -> TopicsUploadForm:
    return TopicsUploadForm(*posted, subsets=phase.competition.subsets.order_by("position", "code"),
                            variants=variants(phase.competition))


def _topics_confirm(request, slug: str, phase_slug: str):
    """The confirmation of a previewed change: the staged files stored with the chosen `when_runs`."""
    phase = organizer_phase(request, slug, phase_slug)
    token, when_runs = request.POST.get("token", ""), request.POST.get("when_runs", REFUSE)
    try:
        files, names = topics_staged(phase=phase, token=token)
        stored = topics_import_files(phase=phase, files=files, names=names, actor=request.user,
                                     when_runs=RESCORE if when_runs == RESCORE else REFUSE)
    except CompetitionError as error:
        return _form_page(request, "competitions/manage_files.html", _topics_page(phase, _topics_form(phase)),
                          refusal=_refusal(error))
    topics_unstage(phase=phase, token=token)
    messages.success(request, _topics_stored(phase, stored, several=len(variants(phase.competition)) > 1))
    return redirect("competitions:manage", slug)


def _topics_stored(phase, stored, *, several: bool) -> str:
    return f"Topics of {phase.name}: " + "; ".join(
        f"{t.subset.code}{f' ({t.variant})' if several else ''}: {t.query_count} queries, SHA-256 {t.sha256}"
        + (f" (topics v{t.version})" if t.version > 1 else "") for t in stored)


def _topics_preview(phase, change, token: str) -> dict:
    """What the confirmation page shows: each file's queries added, removed and changed (ids,
    the first PREVIEW_IDS of each), and the runs the change affects."""
    def ids(qids: list[str]) -> str:
        more = len(qids) - PREVIEW_IDS
        return ", ".join(qids[:PREVIEW_IDS]) + (f" and {more} more" if more > 0 else "")

    return {"token": token, "runs": change.runs, "several": len(variants(phase.competition)) > 1,
            "files": [{"change": f, "added": ids(f.added), "removed": ids(f.removed), "changed": ids(f.changed)}
                      for f in change.files]}


PREVIEW_IDS = 30


def _phase_edit(request, slug: str, phase_slug: str, *, form_class, fields, change, preview, what: str,
                context: dict | None = None):
    """A phase edit of the organizer area: its form (with the phase's `fields`), the diff to
    confirm, then `change(phase=..., actor=..., **values)`; the page again otherwise."""
    phase = organizer_phase(request, slug, phase_slug)
    form = form_class(*_posted(request)[:1], initial={n: getattr(phase, n) for n in fields})

    def apply():
        change(phase=phase, actor=request.user, **form.cleaned_data)
        return f"Saved the {what} of {phase.name}."

    done, refusal, changes = _save_confirmed(
        request, form, apply, preview=lambda: preview(phase=phase, **form.cleaned_data), slug=slug)
    return done or _form_page(request, "competitions/manage_schedule.html", {
        "competition": phase.competition, "phase": phase, "form": form, "changes": changes, **(context or {})},
        refusal=refusal)


@login_required
@require_http_methods(["GET", "POST"])
def phase_schedule(request, slug: str, phase_slug: str):
    """A phase's leaderboard visibility, reveal instant and hidden judgments (audited)."""
    return _phase_edit(request, slug, phase_slug, form_class=PhaseScheduleForm, fields=PHASE_SCHEDULE_FIELDS,
                       change=phase_schedule_change, preview=phase_schedule_preview, what="schedule")


@login_required
@require_http_methods(["GET", "POST"])
def phase_board_rules(request, slug: str, phase_slug: str):
    """A phase's leaderboard freeze and Ladder (competitions/board_rules.py; audited)."""
    return _phase_edit(request, slug, phase_slug, form_class=PhaseBoardRulesForm, fields=BOARD_RULE_FIELDS,
                       change=phase_board_rules_change, preview=phase_board_rules_preview, what="leaderboard rules",
                       context={"board_rules": True})


@login_required
@require_http_methods(["GET", "POST"])
def group_reveal(request, slug: str, group_name: str):
    """When a subset group (the surprise languages) is revealed to participants (audited)."""
    competition = organizer_competition(request, slug)
    group = get_object_or_404(SubsetGroup, competition=competition, name=group_name)
    form = GroupRevealForm(*_posted(request)[:1], initial={"reveal_at": group.reveal_at})

    def change():
        group_reveal_change(group=group, actor=request.user, reveal_at=form.cleaned_data["reveal_at"])
        return f"Saved the reveal of the {group.name} group."

    done, refusal, changes = _save_confirmed(
        request, form, change, slug=slug,
        preview=lambda: group_reveal_preview(group=group, reveal_at=form.cleaned_data["reveal_at"]))
    return done or _form_page(request, "competitions/manage_schedule.html", {
        "competition": competition, "group": group, "form": form, "changes": changes}, refusal=refusal)
