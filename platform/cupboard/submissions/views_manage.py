"""The organizer's desk for submissions: a phase's export (every submission, CSV) and its runs
(one zip), its scoring
progress while it is re-scored, the teams page (who is in which team, what each submitted per
phase, every team change: team-hopping is seen, not only prevented) and quota grants for any team. In the organizer area, so
anyone but the competition's organizers and staff gets its 404."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_safe

from cupboard.competitions.access import organizer_competition, organizer_phase
from cupboard.teams.models import Team

from .archive import archive_name, phase_runs_zip
from .errors import SubmissionRefused
from .exports import phase_submissions_csv
from .forms import TeamGrantForm
from .models import Verification
from .quota import quota_grant
from .selectors import scoring_progress, teams_overview
from .steps import open_step, step_progress
from .verification import verification_request


@login_required
@require_safe
def phase_export(request, slug: str, phase_slug: str):
    """Every submission of a phase with metadata and scores, as a CSV download."""
    phase = organizer_phase(request, slug, phase_slug)
    response = HttpResponse(phase_submissions_csv(phase=phase), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{slug}-{phase_slug}-submissions.csv")
    return response


@login_required
@require_safe
def phase_runs(request, slug: str, phase_slug: str):
    """Every run file of a phase and a manifest, as one zip streamed while it is written (a
    HEAD gets the headers without a byte of it being read)."""
    phase = organizer_phase(request, slug, phase_slug)
    body = iter(()) if request.method == "HEAD" else phase_runs_zip(phase)
    response = StreamingHttpResponse(body, content_type="application/zip")
    response["Content-Disposition"] = content_disposition_header(True, archive_name(phase))
    return response


@login_required
@require_GET
def phase_scoring(request, slug: str, phase_slug: str):
    """A phase's submissions by state with a progress bar; the page reloads itself every few
    seconds while any is still waiting or being scored (a re-score, a new qrels version)."""
    phase = organizer_phase(request, slug, phase_slug)
    verifications = list(phase.verifications.select_related("requested_by")[:5])
    return render(request, "submissions/manage_scoring.html", {
        "competition": phase.competition, "phase": phase, "progress": scoring_progress(phase=phase),
        "step": open_step(phase), "step_progress": step_progress(phase),
        "verifications": verifications, "verifying": any(v.is_pending for v in verifications)})


@login_required
@require_http_methods(["POST"])
def phase_verify(request, slug: str, phase_slug: str):
    """Queue a second engine's check of the phase's official scores (pytrec_eval, in the
    worker: submissions/verification.py); its progress and outcome show on the scoring page."""
    phase = organizer_phase(request, slug, phase_slug)
    verification = verification_request(phase=phase, actor=request.user, reason=Verification.Reason.ORGANIZER)
    messages.success(request, f"Verification {verification.pk} of {phase.name} by a second engine is "
                              f"{verification.get_status_display().lower()}.")
    return redirect("competitions:manage_scoring", slug, phase_slug)


@login_required
@require_http_methods(["GET", "POST"])
def team_grant(request, slug: str, team_slug: str):
    """Extra submissions for any team of the competition, in a phase it chooses (audited),
    whether or not the team has submitted yet. Errors name their field and keep the input."""
    competition = organizer_competition(request, slug)
    team = get_object_or_404(Team, competition=competition, slug=team_slug)
    initial = {"phase": request.GET.get("phase")} if request.GET.get("phase") else None
    form = TeamGrantForm(request.POST or None, competition=competition, initial=initial)
    return grant_page(request, team=team, form=form)


def grant_page(request, *, team: Team, form: TeamGrantForm):
    """Grant on a valid POST and go back to the Teams page; else the form (400 with its errors)."""
    refusal = None
    if request.method == "POST" and form.is_valid():
        data = dict(form.cleaned_data)
        phase = data.pop("phase")
        try:
            quota_grant(team=team, phase=phase, actor=request.user, **data)
        except SubmissionRefused as error:
            refusal = error.message
        else:
            messages.success(request, f"Granted {team.name} {data['extra']} extra submission(s) in {phase.name}.")
            return redirect("competitions:manage_teams", team.competition.slug)
    failed = request.method == "POST"
    return render(request, "submissions/manage_grant.html", {
        "competition": team.competition, "team": team, "form": form, "refusal": refusal},
        status=400 if failed else 200)


@login_required
@require_GET
def manage_teams(request, slug: str):
    """Teams with members and submission counts per phase, and the team-change events; organizers
    and staff only (a 403 to everyone else, as every organizer page: competitions/access.py)."""
    competition = organizer_competition(request, slug)
    return render(request, "teams/manage.html", {"competition": competition, **teams_overview(competition=competition)})
