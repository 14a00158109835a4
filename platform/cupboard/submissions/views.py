"""Submission pages: upload, the live detail page and its status endpoint, run-file download,
final selection, and organizer actions (grant quota, disqualify, rescore)."""
import itertools

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_http_methods, require_POST, require_safe

from cupboard.charts import as_html
from cupboard.competitions.access import competition_viewer, organizer_phase, organizers_only, phase_viewer, viewer_or_404
from cupboard.competitions.run_metadata import metadata_fields, metadata_shown
from cupboard.competitions.selectors import phase_subsets
from cupboard.competitions.viewer import Viewer
from cupboard.refusals import refused

from .baselines import baseline_hybrid_create
from .charts import difference_figure
from .comparison import TRIALS, can_compare, comparable_submissions, comparison_rows
from .coverage import incomplete, run_files_coverage
from .errors import SubmissionRefused
from .forms import DisqualifyForm, GrantForm, HybridForm, TeamGrantForm, UploadForm
from .kept_pages import kept_mine, kept_submission
from .models import Submission, consent_fixed_at
from .queue import queue_place
from .quota import quota_grant, quota_status, upload_blocked
from .runfiles import uploaded_chunks
from .selectors import score_tables, shown_of, status_payload, team_submissions, visible_run_files
from .services import (
    phase_rescore,
    submission_create,
    submission_disqualify,
    submission_release_consent,
    submission_select_final,
)
from .topic_fields import phase_topic_fields
from .topic_reports import has_report, residual_note
from .views_manage import grant_page

# Submission ids are one sequence for the whole site: a 403 for another team's and a 404 for
# none told anyone who polled the next id when anyone submitted, hidden phases included.
NOT_YOURS = "No such submission, or it belongs to another team."


def _submission(pk: int) -> Submission:
    """The submission `pk`; 404 with the words of any submission the viewer may not open."""
    found = Submission.objects.select_related("phase__competition", "team__competition").filter(pk=pk).first()
    if found is None:
        raise Http404(NOT_YOURS)
    return found


def _get_submission(request, pk: int) -> tuple[Viewer, Submission]:
    """A submission and its viewer; 404 when its competition is one the viewer may not see
    (everything of a draft is unknown to non-organizers)."""
    submission = _submission(pk)
    return viewer_or_404(request, submission.phase.competition), submission


def _get_submission_for_user(request, pk: int) -> tuple[Viewer, Submission]:
    """A submission the viewer may open; 404 alike for another team's and for none."""
    viewer, submission = _get_submission(request, pk)
    if not viewer.sees_submission(submission):
        raise Http404(NOT_YOURS)
    return viewer, submission


def _get_submission_for_organizer(request, pk: int) -> Submission:
    """403 to a team member on their own submission; 404, as for none, to whoever may not open it."""
    viewer, submission = _get_submission_for_user(request, pk)
    organizers_only(viewer)
    return submission


@login_required
@require_http_methods(["GET", "POST"])
def upload(request, competition_slug: str, phase_slug: str):
    """The upload form: run files, method details, quota left; validation errors with file and
    line. The form is disabled, with the reason, when the user cannot submit now."""
    viewer, phase = phase_viewer(request, competition_slug, phase_slug)
    now, organizer, team = viewer.now, viewer.is_organizer, viewer.team
    if phase.is_systems and not organizer:  # teams submit software there (cupboard/systems/); organizers, baselines
        return redirect("systems:upload", competition_slug, phase_slug)
    taken = phase_subsets(phase, viewer.subsets)  # the languages it has topics for (Test A: 11 of 18)
    form = UploadForm(request.POST or None, request.FILES or None, organizer=organizer, subsets=taken,
                      collections=len(viewer.subsets),
                      metadata_fields=metadata_fields(phase.competition), final=phase.has_official_results,
                      topic_fields=phase_topic_fields(phase))
    refusal = None
    if request.method == "POST" and form.is_valid():
        try:
            submission = submission_create(
                phase=phase, team=team, user=request.user, files=form.file_pairs(),
                method_name=form.cleaned_data["method_name"], description=form.cleaned_data["description"],
                paper_url=form.cleaned_data["paper_url"], code_url=form.cleaned_data["code_url"],
                is_baseline=form.cleaned_data.get("is_baseline", False), metadata=form.cleaned_data["metadata"],
                release_consent=form.cleaned_data.get("release_consent", False),
                judging_priority=form.cleaned_data["judging_priority"],
                topic_fields=form.cleaned_data.get("topic_fields") or [])
        except SubmissionRefused as error:
            refusal = error
        else:
            _say_received(request, submission, method_name=form.cleaned_data["method_name"])
            return redirect(submission)
    quota = quota_status(phase=phase, team=team, now=now) if team else None
    return render(request, "submissions/upload.html", {
        "phase": phase, "competition": phase.competition, "team": team, "form": form, "refusal": refusal,
        "quota": quota, "is_open": phase.is_open(now), "organizer": organizer,
        "blocked": upload_blocked(phase=phase, team=team, quota=quota, organizer=organizer, now=now),
        "hybrid_form": HybridForm(phase=phase) if organizer else None,
        # For the page's script: the codes a file name may carry (as the server reads names), those
        # the phase takes, and the team's latest runs to watch.
        "codes": [s.code for s in viewer.subsets], "recent": team_submissions(viewer, phase_slug=phase.slug, limit=5),
        "taken": taken if len(taken) < len(viewer.subsets) else [],
    }, status=400 if refusal or form.errors else 200)


def _say_received(request, submission: Submission, *, method_name: str) -> None:
    """The message after an upload: received, or already stored (the page it lands on is the
    earlier submission, whose method name stays the one first given)."""
    if not submission.is_repeat:
        messages.success(request, f"Submission #{submission.number} received; it is being scored.")
        return
    renamed = f" The method name {method_name!r} was not used." if method_name != submission.method_name else ""
    messages.info(request, f"These files are already stored as submission #{submission.number} "
                           f"({submission.method_name}), shown here; nothing new was stored and no slot was used."
                  + renamed)


@kept_mine
@login_required
@require_GET
def mine(request, competition_slug: str):
    """My submissions: every submission of the viewer's team in one competition, all phases,
    with status, the averages the viewer may see, and final selection; ?phase= and ?status= filter."""
    viewer = competition_viewer(request, competition_slug)
    competition = viewer.competition
    phase, status = request.GET.get("phase", ""), request.GET.get("status", "")
    return render(request, "submissions/mine.html", {
        "competition": competition, "team": viewer.team, "phases": competition.phases.all(),
        "statuses": Submission.Status.choices, "phase": phase, "status": status, "decimals": viewer.decimals,
        "rows": team_submissions(viewer, phase_slug=phase, status=status),
    })


@kept_submission
@require_GET
def detail(request, pk: int):
    """A submission: live state while scored (polls `status`), then its scores per subset."""
    viewer, submission = _get_submission_for_user(request, pk)
    competition = submission.phase.competition
    run_files = visible_run_files(viewer, submission)  # first: its prefetch serves score_tables too
    rows, averages = score_tables(viewer, submission)
    return render(request, "submissions/detail.html", {
        "submission": submission, "competition": competition, "phase": submission.phase,
        # The chart beside the baselines and the Judged@10 section come from the apps above this
        # one, through template tags (leaderboards' submission_charts, judging's submission_judged).
        "viewer": viewer, "rows": rows, "averages": averages,
        "shown": shown_of(viewer, submission), "ladder": viewer.ladder_note(submission),
        "metrics": competition.metrics, "decimals": viewer.decimals,
        "run_files": run_files, "incomplete": incomplete(run_files_coverage(run_files)),
        "is_member": viewer.is_member(submission.team), "organizer": viewer.is_organizer,
        "grant_form": GrantForm(), "disqualify_form": DisqualifyForm(),
        "phase_open": submission.phase.is_open(viewer.now),
        "consent_open": viewer.now < consent_fixed_at(submission.phase),
        "comparable": comparable_submissions(viewer, submission),
        "per_topic": has_report(viewer, submission),
        "residual": residual_note(submission),
        "metadata": metadata_shown(metadata_fields(competition), submission.metadata),
        "queue_text": _queue_text(submission),
    })


def _queue_text(submission) -> str:
    place = queue_place(submission)
    return "" if place is None else place.text(timezone.now())


@require_GET
def compare(request, pk: int):
    """This submission against another of the phase (?with=<id>): means, differences and
    p-values per language and metric, and a chart of the differences."""
    viewer, submission = _get_submission_for_user(request, pk)
    other_id = request.GET.get("with", "")
    if not other_id.isdigit():
        raise Http404("Say which submission to compare with: ?with=<id>.")
    other = _submission(int(other_id))
    if not viewer.sees_submission(other):
        raise Http404(NOT_YOURS)
    if not can_compare(viewer, submission, other):
        raise PermissionDenied("These two submissions cannot be compared query by query here.")
    rows = comparison_rows(viewer, submission, other)
    competition = submission.phase.competition
    return render(request, "submissions/compare.html", {
        "a": submission, "b": other, "competition": competition, "phase": submission.phase, "rows": rows,
        "decimals": viewer.decimals, "trials": TRIALS,
        "charts": as_html([difference_figure(rows, metric=competition.primary_metric,
                                             names=(str(submission), str(other)))]),
    })


@require_GET
def status(request, pk: int):
    """JSON state of a submission, polled by the detail page while it is scored."""
    viewer, submission = _get_submission_for_user(request, pk)
    return JsonResponse(status_payload(viewer, submission))


@require_safe
def download(request, pk: int, subset_code: str):
    """A run file: for its team and organizers; baselines' for anyone (hidden subsets: 404 alike)."""
    viewer, submission = _get_submission_for_user(request, pk)
    visible = visible_run_files(viewer, submission)
    run_file = next((f for f in visible if f.subset.code == subset_code), None)
    if run_file is None:
        raise Http404("No run file for this subset.")
    if not run_file.file:
        return refused(request, status=410, code="run-file-removed",
                       message=f"{run_file.original_name} was removed: files of rejected and failed submissions are "
                               f"kept {settings.CUPBOARD_RUN_FILE_RETENTION_DAYS} days.")
    # The first chunk is read here, so storage that cannot be reached answers 503 (outages.py),
    # not a download cut off after its headers.
    chunks = uploaded_chunks(run_file)
    first = next(chunks, b"")
    response = StreamingHttpResponse(itertools.chain([first], chunks), content_type="application/octet-stream")
    response["Content-Length"] = str(run_file.size)
    response["Content-Disposition"] = content_disposition_header(True, run_file.original_name)
    return response


def _team_choice(request, pk: int, field: str, choose) -> HttpResponse:
    """A team member's yes/no about one of its runs (`choose(submission, yes)`, yes when the
    form's `field` is "1"), then back to the run's page, with the reason if refused."""
    _, submission = _get_submission_for_user(request, pk)
    try:
        choose(submission, request.POST.get(field) == "1")
    except SubmissionRefused as error:
        messages.error(request, error.message)
    return redirect(submission)


@login_required
@require_POST
def select_final(request, pk: int):
    return _team_choice(request, pk, "selected", lambda submission, yes: submission_select_final(
        submission=submission, user=request.user, selected=yes))


@login_required
@require_POST
def release_consent(request, pk: int):
    """Give or withdraw the team's consent to the run being in the results archive (until the reveal)."""
    return _team_choice(request, pk, "consent", lambda submission, yes: submission_release_consent(
        submission=submission, user=request.user, consent=yes))


@login_required
@require_POST
def disqualify(request, pk: int):
    submission = _get_submission_for_organizer(request, pk)
    form = DisqualifyForm(request.POST)
    if form.is_valid():
        submission_disqualify(submission=submission, actor=request.user, reason=form.cleaned_data["reason"])
        messages.success(request, "Submission disqualified.")
    else:
        messages.error(request, "Say why the submission is disqualified.")
    return redirect(submission)


@login_required
@require_POST
def grant(request, pk: int):
    """Give the submission's team extra slots in its phase (organizers; audited). Bad input
    shows the grant form again with the field named and what was typed kept."""
    submission = _get_submission_for_organizer(request, pk)
    if submission.team is None:
        raise Http404("Baselines have no quota.")
    form = TeamGrantForm({**request.POST.dict(), "phase": submission.phase_id}, competition=submission.phase.competition)
    if not form.is_valid():
        return grant_page(request, team=submission.team, form=form)
    data = {k: v for k, v in form.cleaned_data.items() if k != "phase"}
    quota_grant(team=submission.team, phase=submission.phase, actor=request.user, **data)
    messages.success(request, f"Granted {data['extra']} extra submission(s).")
    return redirect(submission)


@login_required
@require_POST
def rescore(request, competition_slug: str, phase_slug: str):
    """Queue every scored submission of the phase for scoring again (organizers; audited)."""
    phase = organizer_phase(request, competition_slug, phase_slug)
    count = phase_rescore(phase=phase, actor=request.user, reason="asked by an organizer")
    messages.success(request, f"{count} submission(s) queued for scoring again; the leaderboard keeps the scores "
                              f"from before until every one of them is scored, then switches at once.")
    return redirect("competitions:manage_scoring", competition_slug, phase_slug)


@login_required
@require_POST
def hybrid(request, competition_slug: str, phase_slug: str):
    """Add a baseline fusing two baselines of the phase (organizers)."""
    phase = organizer_phase(request, competition_slug, phase_slug)
    form = HybridForm(request.POST, phase=phase)
    if not form.is_valid():
        messages.error(request, "Choose two baselines and a weight between 0 and 1.")
        return redirect("submissions:upload", competition_slug, phase_slug)
    try:
        submission = baseline_hybrid_create(phase=phase, user=request.user, **form.cleaned_data)
    except SubmissionRefused as error:
        messages.error(request, error.message)
        return redirect("submissions:upload", competition_slug, phase_slug)
    return redirect(submission)
