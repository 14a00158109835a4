"""The organizer's side of judging in the browser: naming assessors, and per phase the
assessment page (corpus upload, pools turned into tasks, progress per language and assessor
with a chart, time per judgment, agreement on the overlap, disagreements to resolve, and
"Create qrels version"). Organizer area: 404 / 403 as every organizer page."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cupboard.charts import as_html
from cupboard.competitions.access import organizer_competition, organizer_phase
from cupboard.competitions.assessors import assessor_add, assessor_remove, judging_labels
from cupboard.competitions.errors import CompetitionError

from .assessment import corpus_upload, judging_round_create
from .charts import progress_figure
from .forms import AssessorForm, CorpusForm, JudgingRoundForm, ReassignForm
from .judgments import qrels_version_create, resolution_set, round_agreement, round_passages, round_progress
from .models import JudgingRound
from .reassignment import judging_round_reassign


@login_required
@require_http_methods(["GET", "POST"])
def assessors(request, slug: str):
    """The competition's assessors: named by username (never a member of one of its teams), or removed."""
    competition = organizer_competition(request, slug)
    form = AssessorForm(request.POST or None)
    if request.method == "POST":
        try:
            if "remove" in request.POST:
                user = get_object_or_404(competition.assessors, username=request.POST["remove"])
                assessor_remove(competition=competition, user=user, actor=request.user)
                messages.success(request, f"{user.username} is no longer an assessor.")
                return redirect("judging:assessors", slug)
            if form.is_valid():
                user = assessor_add(competition=competition, username=form.cleaned_data["username"],
                                    actor=request.user)
                messages.success(request, f"{user.username} is an assessor of {competition.title}.")
                return redirect("judging:assessors", slug)
        except ValidationError as error:
            form.add_error("username", error)
    return render(request, "judging/assessors.html", {
        "competition": competition, "form": form, "assessors": competition.assessors.order_by("username")},
        status=400 if form.errors else 200)


def _forms(phase, data=None, files=None, *, which: str | None = None) -> dict:
    subsets = list(phase.competition.subsets.order_by("position", "code"))
    people = phase.competition.assessors.order_by("username")
    return {"corpus_form": CorpusForm(data if which == "corpus" else None, files if which == "corpus" else None,
                                      subsets=subsets),
            "round_form": JudgingRoundForm(data if which == "round" else None, phase=phase, assessors=people,
                                           subsets=subsets)}


def _page(request, phase, forms: dict | None = None, *, refusal=None, status: int = 200):
    rounds = []
    for found in phase.judging_rounds.select_related("export", "qrels_release", "created_by"):
        passages = round_passages(found)
        progress = round_progress(found)
        final = sum(p.final is not None for p in passages)
        rounds.append({"round": found, "progress": progress, "agreement": round_agreement(found, passages),
                       "disputed": [p for p in passages if p.disputed], "final": final,
                       "total": len(passages), "left": len(passages) - final,
                       "charts": as_html([progress_figure(progress, title=f"Round #{found.pk}: passages judged")]),
                       "reassign": ReassignForm(judging_round=found)})
    return render(request, "judging/assessment.html", {
        "competition": phase.competition, "phase": phase, **(forms or _forms(phase)), "rounds": rounds,
        "corpora": phase.corpora.select_related("subset")[:20], "labels": judging_labels(phase.competition),
        "assessor_count": phase.competition.assessors.count(), "refusal": refusal}, status=status)


@login_required
@require_GET
def assessment(request, slug: str, phase_slug: str):
    """A phase's judging in the browser, for its organizers."""
    return _page(request, organizer_phase(request, slug, phase_slug))


@login_required
@require_POST
def corpus_create(request, slug: str, phase_slug: str):
    """A corpus for one language's pooled documents, checked while it streams, stored privately."""
    phase = organizer_phase(request, slug, phase_slug)
    forms = _forms(phase, request.POST, request.FILES, which="corpus")
    form = forms["corpus_form"]
    if not form.is_valid():
        return _page(request, phase, forms, status=400)
    upload = form.cleaned_data["file"]
    try:
        corpus = corpus_upload(phase=phase, subset=phase.competition.subsets.get(code=form.cleaned_data["subset"]),
                               file=upload, name=upload.name, actor=request.user)
    except CompetitionError as error:
        refusal = {"message": error.message, "problems": error.problem_rows()}
        return _page(request, phase, forms, refusal=refusal, status=400)
    messages.success(request, f"Corpus of {corpus.subset.code}: {corpus.documents} passages stored.")
    return redirect("judging:assessment", slug, phase_slug)


@login_required
@require_POST
def round_create(request, slug: str, phase_slug: str):
    """A built pool dealt out as judging tasks."""
    phase = organizer_phase(request, slug, phase_slug)
    forms = _forms(phase, request.POST, which="round")
    form = forms["round_form"]
    if form.is_valid():
        try:
            found = judging_round_create(export=form.cleaned_data["export"], assessors=form.by_subset(),
                                         overlap=form.cleaned_data["overlap"], actor=request.user)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"Round #{found.pk}: {found.assignments.count()} task(s) for the assessors.")
            return redirect("judging:assessment", slug, phase_slug)
    return _page(request, phase, forms, status=400)


def _round(request, slug: str, phase_slug: str, pk: int) -> JudgingRound:
    phase = organizer_phase(request, slug, phase_slug)
    return get_object_or_404(JudgingRound.objects.select_related("phase__competition", "qrels_release"),
                             phase=phase, pk=pk)


@login_required
@require_POST
def resolve(request, slug: str, phase_slug: str, pk: int):
    """The organizer's final label of a passage its assessors labelled differently."""
    found = _round(request, slug, phase_slug, pk)
    try:
        resolution_set(judging_round=found, code=request.POST.get("code", ""), qid=request.POST.get("qid", ""),
                       docid=request.POST.get("docid", ""), label=int(request.POST.get("label", "x")),
                       actor=request.user)
    except (ValueError, ValidationError) as error:
        messages.error(request, getattr(error, "message", "Choose one of the labels."))
        return redirect("judging:assessment", slug, phase_slug)
    messages.success(request, "Final label saved.")
    return redirect(f"{request.path.rsplit('/', 3)[0]}/#round-{pk}")


@login_required
@require_POST
def round_qrels(request, slug: str, phase_slug: str, pk: int):
    """Create a qrels version from the round's final labels and the previous version."""
    found = _round(request, slug, phase_slug, pk)
    try:
        release = qrels_version_create(judging_round=found, actor=request.user, partial=request.POST.get("partial") == "1")
    except ValidationError as error:
        messages.error(request, error.message)
    except CompetitionError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"{found.phase.name} now uses qrels v{release.number}; its scored submissions "
                                  "are queued for scoring again.")
    return redirect("judging:assessment", slug, phase_slug)


@login_required
@require_POST
def round_reassign(request, slug: str, phase_slug: str, pk: int):
    """What one assessor has left to judge in the round, to another of the competition's
    assessors; what they judged stays theirs (judging/reassignment.py). Refusals are a message."""
    found = _round(request, slug, phase_slug, pk)
    form = ReassignForm(request.POST, judging_round=found)
    try:
        if not form.is_valid():
            raise ValidationError(" ".join(message for errors in form.errors.values() for message in errors))
        done = judging_round_reassign(judging_round=found, assessor=form.cleaned_data["assessor"],
                                      to=form.cleaned_data["to"], actor=request.user)
    except ValidationError as error:
        messages.error(request, " ".join(error.messages))
    else:
        messages.success(request, f"Round #{pk}: {done.moved} passage(s) {form.cleaned_data['assessor'].username} "
                                  f"had left to judge now go to {form.cleaned_data['to'].username}"
                                  + (f"; {done.dropped} they judge already are judged once" if done.dropped else "")
                                  + f". The {done.kept} judged stay {form.cleaned_data['assessor'].username}'s.")
    return redirect(f"{reverse('judging:assessment', args=[slug, phase_slug])}#round-{pk}")
