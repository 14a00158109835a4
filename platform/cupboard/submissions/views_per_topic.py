"""Per-topic reports (topic_reports.py): a run's page and CSV, for its team once the phase's
judgments are public and for organizers always, and the organizers' CSV of every run of a
phase. Before a viewer may see a report there is nothing of it: the page and the CSV answer
404 and no page links them (`Viewer.sees_topic_report`)."""
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET, require_safe

from cupboard.charts import as_html
from cupboard.competitions.access import organizer_phase
from cupboard.competitions.viewer import Viewer
from evaluator.per_topic import topic_key

from .charts import topic_figure
from .models import Submission
from .topic_reports import (
    has_report,
    phase_topics_csv,
    removed_documents,
    report_subsets,
    residual_phase_names,
    run_topics_csv,
    topic_reports,
)
from .views import _get_submission_for_user


def _get_report_for_user(request, pk: int) -> tuple[Viewer, Submission]:
    """A run whose report the viewer may read: 404 for another team's run (as its page) and
    while the report is closed to them or the run is not scored on the current judgments."""
    viewer, submission = _get_submission_for_user(request, pk)
    if not has_report(viewer, submission):
        raise Http404("No per-topic report here: it opens once the phase's judgments are public, for runs "
                      "scored on its current judgments.")
    return viewer, submission


@login_required
@require_GET
def per_topic(request, pk: int):
    """The run's per-topic report on one language (?subset=) and measure (?measure=): a chart and
    a table of its value per topic beside the best, median and worst of all the phase's runs."""
    viewer, submission = _get_report_for_user(request, pk)
    competition = submission.phase.competition
    subsets = report_subsets(viewer, submission)
    if not subsets:
        raise Http404("The run has no language with a per-topic report.")
    subset = next((s for s in subsets if s.code == request.GET.get("subset", subsets[0].code)), None)
    metric = request.GET.get("measure", competition.primary_metric)
    if subset is None or metric not in competition.metrics:
        raise Http404("No such language or measure in this report.")
    report = next(r for r in topic_reports(viewer, submission, subset) if r.metric == metric)
    removed = removed_documents(submission, subset)
    return render(request, "submissions/per_topic.html", {
        "removed": sorted(removed.items(), key=lambda item: topic_key(item[0])),
        "removed_count": sum(map(len, removed.values())), "residual_of": residual_phase_names(submission.phase),
        "submission": submission, "competition": competition, "phase": submission.phase,
        "subsets": subsets, "subset": subset, "metrics": competition.metrics, "metric": metric, "report": report,
        "decimals": viewer.decimals, "charts": as_html([topic_figure(report, decimals=viewer.decimals)])})


@login_required
@require_safe
def per_topic_csv(request, pk: int):
    """The run's per-topic report on every language and measure the viewer may see, as CSV."""
    viewer, submission = _get_report_for_user(request, pk)
    response = HttpResponse(run_topics_csv(viewer, submission), content_type="text/csv; charset=utf-8")
    name = f"{submission.phase.competition.slug}-{submission.phase.slug}-run-{submission.pk}-per-topic.csv"
    response["Content-Disposition"] = content_disposition_header(True, name)
    return response


@login_required
@require_safe
def phase_per_topic(request, slug: str, phase_slug: str):
    """Every scored run's per-topic values on a phase with the best, median and worst, as one
    CSV streamed a language at a time (organizers)."""
    phase = organizer_phase(request, slug, phase_slug)
    body = iter(()) if request.method == "HEAD" else phase_topics_csv(phase)
    response = StreamingHttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, f"{slug}-{phase_slug}-per-topic.csv")
    return response
