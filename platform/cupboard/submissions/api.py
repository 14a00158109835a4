"""The JSON API for scripts: upload runs and read a submission's state, with a per-user token.

    curl -H "Authorization: Token $CUPBOARD_TOKEN" -F method_name=BM25 \\
         -F files=@run.sw.txt -F files=@run.te.txt.gz -F file_yo=@anything.txt \\
         https://host/submissions/api/<competition>/<phase>/

`files` take their language from the file name; `file_<code>` names it; `meta_<name>` gives
a value of the competition's run metadata (`-F meta_run_type=automatic`). Errors come back
as data with HTTP 400: {"errors": [{"file", "line", "column", "code", "message"}]}.
Re-posting the same files returns the existing submission (HTTP 200 instead of 201, with
`"repeat": true` and a `message` saying it is already stored as #N).
"""
from functools import partial, wraps

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from cupboard.accounts.selectors import token_in, user_from_token
from cupboard.competitions.models import Phase
from cupboard.competitions.page_cache import anonymous_cached
from cupboard.competitions.run_metadata import metadata_fields
from cupboard.competitions.selectors import ALL, AVG_LABEL, averaged_groups, phase_subsets, phase_topic_files
from cupboard.competitions.topic_variants import variants
from cupboard.competitions.viewer import Viewer, viewer_for
from cupboard.links import absolute
from cupboard.refusals import api_error
from cupboard.throttle import throttle_take

from .errors import SubmissionRefused
from .forms import ApiUploadForm
from .models import Submission
from .selectors import status_payload
from .services import submission_create


def phase_seen(request, competition_slug: str, phase_slug: str) -> tuple[Phase, Viewer] | None:
    """The phase and the caller's viewer, or None when the caller may not see it (the same
    answer as for a phase that does not exist)."""
    phase = Phase.objects.select_related("competition").filter(
        competition__slug=competition_slug, slug=phase_slug).first()
    viewer = viewer_for(request, phase.competition) if phase is not None else None
    if phase is None or viewer is None or not viewer.sees_competition:
        return None
    return phase, viewer


def no_phase(competition_slug: str, phase_slug: str) -> JsonResponse:
    return api_error(404, "not_found", f"No phase {phase_slug!r} in competition {competition_slug!r}.")


def token_required(view, *, optional: bool = False):
    """Authenticate with `Authorization: Token <token>` and nothing else. The views are
    csrf_exempt, so a session cookie must not count here: a page on another site could
    otherwise post as the logged-in user (browsers send cookies, never our header).
    `optional`: a request without the header is the anonymous visitor's (a wrong token is
    still refused)."""
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if optional and "Authorization" not in request.headers:
            request.user = AnonymousUser()
            return view(request, *args, **kwargs)
        return _authenticated(request) or view(request, *args, **kwargs)
    return csrf_exempt(wrapper)


def token_or_session(view):
    """For JSON that a page links and a script reads alike (the leaderboards' exports; GET
    only, so the session cannot be abused as a POST could): the token's user when
    `Authorization` is sent (refused when wrong, counted per token), else the session's."""
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if "Authorization" not in request.headers:
            return view(request, *args, **kwargs)
        return _authenticated(request) or view(request, *args, **kwargs)
    return wrapper


def _authenticated(request) -> JsonResponse | None:
    """Set `request.user` from the request's token; the refusal when there is none valid."""
    raw = token_in(request.headers.get("Authorization", ""))
    if raw is None:
        return api_error(401, "bad_token", "Send a valid API token: Authorization: Token <token>.")
    # Per token (however its header is spelled), counted before it is looked up: a runaway
    # script must not hog the web processes, nor may someone trying tokens.
    wait = throttle_take("api-token", raw)
    if wait:
        return api_error(429, "throttled", f"Too many requests with this token; try again in {wait} s.",
                         retry_after=wait)
    user = user_from_token(raw)
    if user is None:
        return api_error(401, "bad_token", "Send a valid API token: Authorization: Token <token>.")
    request.user = user
    return None


@token_required
@require_POST
def upload(request, competition_slug: str, phase_slug: str):
    """Create a submission from multipart run files; 201 with its state, 200 for a repeat, 400 with errors."""
    found = phase_seen(request, competition_slug, phase_slug)
    if found is None:
        return no_phase(competition_slug, phase_slug)
    phase, viewer = found
    try:
        data, files = request.POST, request.FILES  # parsed here: Django's limits raise on the first read
    except TooManyFilesSent:
        return api_error(400, "too_many_files", f"Send at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files in one upload.")
    except (TooManyFieldsSent, RequestDataTooBig):
        return api_error(400, "upload_too_large", f"Send at most {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields, and "
                                               f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 2**20} MB of them, in one upload.")
    form = ApiUploadForm(data, files, subsets=viewer.subsets,
                         metadata_fields=metadata_fields(phase.competition))
    if not form.is_valid():
        return JsonResponse({"errors": form.errors_as_data()}, status=400)
    try:
        submission = submission_create(
            phase=phase, team=viewer.team, user=request.user, files=form.file_pairs(),
            method_name=form.cleaned_data["method_name"], description=form.cleaned_data["description"],
            paper_url=form.cleaned_data["paper_url"], code_url=form.cleaned_data["code_url"],
            is_baseline=form.cleaned_data["is_baseline"], metadata=form.cleaned_data["metadata"],
                release_consent=form.cleaned_data["release_consent"],
                judging_priority=form.cleaned_data["judging_priority"], topic_fields=form.cleaned_data["topic_fields"])
    except SubmissionRefused as error:
        return JsonResponse({"errors": error.as_error_list()}, status=400)
    payload = status_payload(viewer, submission)
    payload["url"] = absolute(submission.get_absolute_url())
    if submission.is_repeat:
        payload["message"] = f"These files are already stored as #{submission.number} ({submission.method_name}); " \
                             "nothing new was stored."
    return JsonResponse(payload, status=200 if submission.is_repeat else 201)


@anonymous_cached()
@partial(token_required, optional=True)
@require_GET
def definition(request, competition_slug: str, phase_slug: str):
    """A phase's subsets as the caller may see them (never a hidden one) and how it scores:
    what `python -m evaluator` needs to read the phase's files as the server reads them."""
    found = phase_seen(request, competition_slug, phase_slug)
    if found is None:
        return no_phase(competition_slug, phase_slug)
    phase, viewer = found
    competition = phase.competition
    subsets = phase_subsets(phase, viewer.subsets)
    return JsonResponse({
        "competition": competition.slug, "phase": phase.slug, "benchmark": competition.benchmark,
        "subsets": [{"code": s.code, "name": s.name} for s in subsets], "averages": _averages(viewer, subsets),
        "metrics": competition.metrics, "primary_metric": competition.primary_metric,
        "relevance_level": competition.relevance_level, "max_run_depth": competition.max_run_depth,
        "scoring_depth": competition.scored_depth(), **_topics(viewer, phase)})


def _averages(viewer, subsets) -> list[dict]:
    """The board's average columns over the subsets the caller sees (a group none of them is
    in is not named), Avg last: `evaluator score --server` averages as the board does."""
    groups = averaged_groups(subsets, every=viewer.all_subsets)
    return [*({"key": g.name, "label": g.label, "subsets": [s.code for s in subsets if s.group_id == g.pk]}
              for g in groups), {"key": ALL, "label": AVG_LABEL, "subsets": [s.code for s in subsets]}]


def _topics(viewer, phase) -> dict:
    """The topic variants (the default first) and the topics files the caller may download,
    each with its address: a script fetches the variant it runs on."""
    from django.urls import reverse

    competition = phase.competition
    files = [{"subset": t.subset.code, "variant": t.variant, "name": t.original_name, "queries": t.query_count,
              "url": absolute(reverse("competitions:topics_variant",
                                      args=[competition.slug, phase.slug, t.subset.code, t.variant]))}
             for t in phase_topic_files(viewer, phase)]
    return {"topic_variants": [{"code": v.code, "name": v.name} for v in variants(competition)], "topics": files}


@token_required
@require_GET
def status(request, pk: int):
    """A submission's state and the scores the caller may see."""
    submission = Submission.objects.select_related("phase__competition", "team").filter(pk=pk).first()
    viewer = viewer_for(request, submission.phase.competition) if submission is not None else None
    if viewer is None or not viewer.sees_submission(submission):
        return api_error(404, "not_found", "No such submission, or it belongs to another team.")
    return JsonResponse(status_payload(viewer, submission))
