"""The JSON API for scripts: upload runs and read a submission's state, with a per-user token.

    curl -H "Authorization: Token $CUPBOARD_TOKEN" -F method_name=BM25 \\
         -F files=@run.sw.txt -F files=@run.te.txt.gz -F file_yo=@anything.txt \\
         https://host/submissions/api/<competition>/<phase>/

`files` take their language from the file name; `file_<code>` names it. Errors come back
as data with HTTP 400: {"errors": [{"file", "line", "column", "code", "message"}]}.
Re-posting the same files returns the existing submission (HTTP 200 instead of 201).
"""
from functools import wraps

from django.http import JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from cupboard.accounts.selectors import user_from_authorization
from cupboard.competitions.models import Phase
from cupboard.competitions.selectors import is_competition_visible
from cupboard.teams.selectors import user_team
from cupboard.throttle import throttle_take

from .errors import SubmissionRefused
from .models import Submission
from .selectors import can_view_submission, status_payload
from .services import submission_create


def _error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"errors": [{"file": None, "line": None, "column": None, "code": code,
                                     "message": message}]}, status=status)


def token_required(view):
    """Authenticate with `Authorization: Token <token>` (a logged-in session works too)."""
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        header = request.headers.get("Authorization", "")
        user = user_from_authorization(header) if header else (request.user if request.user.is_authenticated else None)
        if user is None:
            return _error(401, "bad_token", "Send a valid API token: Authorization: Token <token>.")
        # Per token (or per user, for a session): a runaway script must not hog the web processes.
        wait = throttle_take("api-token", header or f"user:{user.pk}")
        if wait:
            response = _error(429, "throttled", f"Too many requests with this token; try again in {wait} s.")
            response["Retry-After"] = str(wait)
            return response
        request.user = user
        return view(request, *args, **kwargs)
    return csrf_exempt(wrapper)


def _file_pairs(request) -> list:
    pairs = [(f, None) for f in request.FILES.getlist("files")]
    pairs += [(f, key.removeprefix("file_")) for key in request.FILES if key.startswith("file_")
              for f in request.FILES.getlist(key)]
    return pairs


@token_required
@require_POST
def upload(request, competition_slug: str, phase_slug: str):
    """Create a submission from multipart run files; 201 with its state, 200 for a repeat, 400 with errors."""
    phase = Phase.objects.select_related("competition").filter(
        competition__slug=competition_slug, slug=phase_slug).first()
    if phase is None or not is_competition_visible(phase.competition, user=request.user):
        return _error(404, "not_found", f"No phase {phase_slug!r} in competition {competition_slug!r}.")
    team = user_team(competition=phase.competition, user=request.user)
    is_baseline = request.POST.get("is_baseline", "").lower() in {"1", "true", "yes"}
    started = timezone.now()
    try:
        submission = submission_create(
            phase=phase, team=team, user=request.user, files=_file_pairs(request),
            method_name=request.POST.get("method_name", ""), description=request.POST.get("description", ""),
            paper_url=request.POST.get("paper_url", ""), code_url=request.POST.get("code_url", ""),
            is_baseline=is_baseline)
    except SubmissionRefused as error:
        return JsonResponse({"errors": error.as_error_list()}, status=400)
    created = submission.created_at >= started
    payload = status_payload(submission=submission, user=request.user, now=timezone.now())
    payload["url"] = request.build_absolute_uri(submission.get_absolute_url())
    return JsonResponse(payload, status=201 if created else 200)


@token_required
@require_GET
def status(request, pk: int):
    """A submission's state and the scores the caller may see."""
    submission = Submission.objects.select_related("phase__competition", "team").filter(pk=pk).first()
    if submission is None or not can_view_submission(submission=submission, user=request.user):
        return _error(404, "not_found", "No such submission, or it belongs to another team.")
    return JsonResponse(status_payload(submission=submission, user=request.user, now=timezone.now()))
