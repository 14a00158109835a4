"""Baselines built from other baselines: a hybrid (e.g. BM25 + mDPR) by score fusion.

The fused run goes through `submission_create` like any upload, so it is validated,
stored, numbered and scored exactly as an uploaded baseline would be.
"""
import io

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile

from cupboard.competitions.models import Phase
from evaluator.fusion import hybrid_fusion
from evaluator.io.runs import write_run

from .errors import SubmissionRefused
from .models import Submission
from .runfiles import read_run_file, read_topics_of
from .services import submission_create


def _runs(submission: Submission) -> dict:
    """subset code -> the parsed run of each of a baseline's files."""
    competition = submission.phase.competition
    runs = {}
    for run_file in submission.run_files.select_related("subset"):
        topics = read_topics_of(phase=submission.phase, subset=run_file.subset)
        with run_file.file.open("rb") as stored:
            run, report = read_run_file(source=stored, name=run_file.original_name, competition=competition,
                                        topics=topics, keep_depth=competition.max_run_depth)
        if run is None:
            raise SubmissionRefused(f"{run_file.original_name} of {submission} no longer validates.",
                                    code="invalid_run", problems=report.errors)
        runs[run_file.subset.code] = run
    return runs


def baseline_hybrid_create(*, phase: Phase, baseline_a: Submission, baseline_b: Submission, alpha: float,
                           user: AbstractBaseUser) -> Submission:
    """A new baseline fusing two baselines of `phase` on the subsets both cover:
    alpha * a + (1 - alpha) * b after min-max normalisation per query (evaluator.fusion)."""
    if not phase.competition.is_organizer(user):
        raise SubmissionRefused("Only organizers can add baselines.", code="not_organizer")
    if any(not b.is_baseline or b.phase_id != phase.pk for b in (baseline_a, baseline_b)):
        raise SubmissionRefused("Fuse two baselines of this phase.", code="not_baselines")
    if not 0 <= alpha <= 1:
        raise SubmissionRefused("alpha is a weight between 0 and 1.", code="bad_alpha")
    runs_a, runs_b = _runs(baseline_a), _runs(baseline_b)
    common = sorted(set(runs_a) & set(runs_b))
    if not common:
        raise SubmissionRefused("The two baselines share no language.", code="no_common_subset")
    files = []
    for code in common:
        fused = hybrid_fusion(runs_a[code], runs_b[code], alpha=alpha, depth=phase.competition.max_run_depth)
        text = io.StringIO()
        write_run(fused, text, tag="hybrid")
        files.append((ContentFile(text.getvalue().encode(), name=f"hybrid.{code}.txt"), code))
    return submission_create(
        phase=phase, team=None, user=user, files=files, is_baseline=True,
        method_name=f"Hybrid of {baseline_a.method_name} and {baseline_b.method_name} (alpha={alpha:g})"[:100],
        description=f"Score fusion of baselines #{baseline_a.number} and #{baseline_b.number}, alpha={alpha:g}.")
