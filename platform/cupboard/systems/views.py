"""System pages: the upload form of a systems phase, a system's page with its executions, the
organizers' re-run and determinism check, the image download (organizers), and the API upload.

A system is its team's and the organizers' (404 alike to anyone else and for none, as a
submission is); an organizers' system is theirs alone. The team reads each execution's state,
why it stopped, the time and memory it used and the end of its log (the topics redacted by the
sandbox); the record (command, limits, topics' hashes, output hash) is there for everyone who
sees the page, as it gives away nothing of the topics.
"""
from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, JsonResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from cupboard.competitions.access import organizers_only, phase_viewer, viewer_or_404
from cupboard.competitions.viewer import Viewer
from cupboard.links import absolute
from cupboard.refusals import api_error
from cupboard.submissions.api import no_phase, phase_seen, token_or_session, token_required
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.quota import quota_status, upload_blocked

from .forms import SystemForm
from .models import System
from .selectors import determinism_rows, execution_payload, phase_systems
from .services import system_determinism_check, system_rerun, system_upload

NOT_YOURS = "No such system, or it belongs to another team."


def sees_system(viewer: Viewer, system: System) -> bool:
    """Its team's members and the competition's organizers."""
    if not viewer.sees_competition:
        return False
    return viewer.is_organizer or (system.team_id is not None and viewer.is_member(system.team))


def _system(request, pk: int) -> tuple[Viewer, System]:
    system = System.objects.select_related("phase__competition", "team").filter(pk=pk).first()
    if system is None:
        raise Http404(NOT_YOURS)
    viewer = viewer_or_404(request, system.phase.competition)
    if not sees_system(viewer, system):
        raise Http404(NOT_YOURS)
    return viewer, system


def _uploaded(form: SystemForm, *, phase, team, user) -> System:
    """The form's system, stored and queued (the page and the API alike), or SubmissionRefused."""
    data = form.cleaned_data
    return system_upload(phase=phase, team=team, user=user, image=data["image"], method_name=data["method_name"],
                         description=data["description"], release_consent=data["release_consent"],
                         as_organizers=data.get("as_organizers", False))


@login_required
@require_http_methods(["GET", "POST"])
def upload(request, slug: str, phase_slug: str):
    """The form of a systems phase: the image, a method name; the team's systems below it."""
    viewer, phase = phase_viewer(request, slug, phase_slug)
    if not phase.is_systems:
        return redirect("submissions:upload", slug, phase_slug)
    organizer, team = viewer.is_organizer, viewer.team
    form = SystemForm(request.POST or None, request.FILES or None, organizer=organizer)
    refusal = None
    if request.method == "POST" and form.is_valid():
        try:
            system = _uploaded(form, phase=phase, team=team, user=request.user)
        except SubmissionRefused as error:
            refusal = error
        else:
            messages.success(request, f"System #{system.number} received; it runs on the phase's topics as soon as "
                                      "a runner is free.")
            return redirect(system)
    quota = quota_status(phase=phase, team=team, now=viewer.now) if team else None
    return render(request, "systems/upload.html", {
        "phase": phase, "competition": phase.competition, "form": form, "refusal": refusal, "team": team,
        "quota": quota, "organizer": organizer, "systems": phase_systems(viewer, phase),
        "image_limit_mib": settings.CUPBOARD_SYSTEM_IMAGE_MAX_BYTES // 2 ** 20,
        "blocked": upload_blocked(phase=phase, team=team, quota=quota, organizer=organizer, now=viewer.now),
    }, status=400 if refusal or form.errors else 200)


@require_safe
def detail(request, pk: int):
    """A system: its image's SHA-256 and every execution, live while one is pending."""
    viewer, system = _system(request, pk)
    executions = list(system.executions.select_related("submission").order_by("-created_at", "-pk"))
    return render(request, "systems/detail.html", {
        "system": system, "phase": system.phase, "competition": system.phase.competition,
        "executions": [execution_payload(e) for e in executions], "organizer": viewer.is_organizer,
        "pending": any(e.is_pending for e in executions), "checks": determinism_rows(executions),
    })


@token_or_session
@require_safe
def status(request, pk: int):
    """Its executions as JSON, for scripts (a token) and the page (the session); another team's
    system is a 404 in the API's error shape, as a script reads it."""
    try:
        _, system = _system(request, pk)
    except Http404:
        return api_error(404, "not_found", NOT_YOURS)
    return JsonResponse({"system": system.pk, "sha256": system.sha256,
                         "executions": [execution_payload(e) for e in system.executions.order_by("-created_at")]})


@login_required
@require_POST
def rerun(request, pk: int):
    viewer, system = _system(request, pk)
    organizers_only(viewer)
    system_rerun(system=system, actor=request.user)
    messages.success(request, "Queued to run again on the phase's current topics; its run is a new submission.")
    return redirect(system)


@login_required
@require_POST
def determinism(request, pk: int):
    viewer, system = _system(request, pk)
    organizers_only(viewer)
    system_determinism_check(system=system, actor=request.user)
    messages.success(request, "Queued to run twice; the two outputs' SHA-256 are compared below once both ran.")
    return redirect(system)


@login_required
@require_safe
def image(request, pk: int):
    """The image as uploaded: the organizers' (to reproduce a result); its team has it."""
    viewer, system = _system(request, pk)
    organizers_only(viewer)
    response = FileResponse(system.image.open("rb"), content_type="application/x-tar")
    response["Content-Disposition"] = content_disposition_header(True, system.original_name)
    return response


@token_required
@require_POST
def api_upload(request, competition_slug: str, phase_slug: str):
    """`curl -H "Authorization: Token $T" -F image=@image.tar -F method_name=BM25 .../c/<c>/<p>/system/api/`:
    201 with the system's state, 400 with {"errors": [...]} as the run upload API."""
    found = phase_seen(request, competition_slug, phase_slug)
    if found is None:
        return no_phase(competition_slug, phase_slug)
    phase, viewer = found
    form = SystemForm(request.POST, request.FILES, organizer=viewer.is_organizer)
    if not form.is_valid():
        return JsonResponse({"errors": form.errors_as_data()}, status=400)
    try:
        system = _uploaded(form, phase=phase, team=viewer.team, user=request.user)
    except SubmissionRefused as error:
        return JsonResponse({"errors": error.as_error_list()}, status=400)
    return JsonResponse({"system": system.pk, "number": system.number, "sha256": system.sha256,
                         "url": absolute(system.get_absolute_url()),
                         "executions": [execution_payload(e) for e in system.executions.all()]}, status=201)
