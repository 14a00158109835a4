"""`demo_load`: a working demo through the same services organizers and teams use.

Competitions are loaded from their YAML definitions (dates shifted to now), topics and
qrels go through `topics_import` / `qrels_release_create`, runs through
`submission_create`, and each submission is scored at once by calling the worker's
`submission_score` directly, so the leaderboards are full when the command returns.
What already exists is left alone: a second run changes nothing. Each competition is
loaded in one transaction, so an interrupted load leaves nothing half-made behind.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from cupboard.competitions.models import Competition, Phase
from cupboard.competitions.run_metadata import metadata_fields
from cupboard.competitions.services import competition_load, qrels_release_create
from cupboard.competitions.topic_files import topics_import
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.services import leaderboards_retested_once
from cupboard.submissions.baselines import baseline_hybrid_create
from cupboard.submissions.models import Verification
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create, submission_select_final
from cupboard.submissions.verification import verification_request
from cupboard.teams.models import Team
from cupboard.teams.services import team_create, team_join
from evaluator.benchmarks import get_benchmark

from . import data as sources
from .assessment import demo_assessment
from .data import SubsetData
from .judging import demo_judging_cycle
from .plan import (
    ADMIN,
    ASSESSORS,
    BASELINES,
    COMPETITIONS,
    LONER,
    METADATA_NAMES,
    METHOD_METADATA,
    ORGANIZER,
    PASSWORD,
    RELEASING,
    TEAMS,
    CompetitionPlan,
    TeamPlan,
)
from .results import demo_results_publish
from .runs import RunSpec, demo_runs
from .systems import demo_system_run
from .timeline import phase_setup_backdate, phase_timeline_spread, team_formed_backdate

Log = Callable[[str], None]


def demo_accounts_create() -> dict[str, User]:
    """The organizer, the admin and the participants, all with the demo password; existing
    accounts are kept as they are (their passwords too)."""
    people = {ORGANIZER: {}, ADMIN: {"is_staff": True, "is_superuser": True}, LONER: {}, **{a: {} for a in ASSESSORS}}
    people.update({member: {} for team in TEAMS for member in team.members})
    # One hash for all: hashing is slow on purpose, and the password is public anyway.
    hashed = make_password(PASSWORD)
    users = {}
    for username, flags in people.items():
        users[username], _ = User.objects.get_or_create(username=username, defaults={
            "email": f"{username}@example.org", "password": hashed, **flags})
    return users


def demo_load(*, data_dir: Path | None = sources.SHARED_DATA, scale: float = 1.0, per_team: int | None = None,
              log: Log = print) -> list[str]:
    """Load every demo competition that does not exist yet; return the slugs it loaded.

    `data_dir` holds the real MIRACL/Mr. TyDi files (None: samples and synthetic data only);
    `scale` shrinks the number of queries per phase and `per_team` caps each team's
    submissions per phase (tests use small ones)."""
    data_dir = data_dir if data_dir is not None and data_dir.is_dir() else None
    log(f"data: {data_dir or 'no shared data; shipped samples and synthetic data'}")
    users = demo_accounts_create()
    log(f"accounts: {', '.join(users)} (password {PASSWORD})")
    loaded = []
    for plan in COMPETITIONS:
        if Competition.objects.filter(slug=plan.slug).exists():
            log(f"{plan.slug}: already loaded, left as it is")
            continue
        started = time.monotonic()
        # A board's rank bands once per phase, when its runs are all in (not once per run).
        with transaction.atomic(), leaderboards_retested_once():
            competition = competition_load(data=plan.definition_data(now=timezone.now()), actor=users[ORGANIZER])
            teams = [_team_create(competition=competition, team=team, users=users) for team in TEAMS]
            for phase in competition.phases.order_by("position"):
                _phase_fill(plan=plan, phase=phase, teams=teams, users=users, data_dir=data_dir, scale=scale,
                            per_team=per_team or plan.per_team, log=log)
            _verification_ask(competition=competition, organizer=users[ORGANIZER], log=log)
        if plan.judging_phase:
            # After the commit: the release's re-scoring is queued then, and played here at once.
            demo_judging_cycle(phase=competition.phases.get(slug=plan.judging_phase), organizer=users[ORGANIZER],
                               seed=plan.seed, log=log)
            demo_assessment(phase=competition.phases.get(slug=plan.judging_phase), organizer=users[ORGANIZER],
                            assessors=[users[a] for a in ASSESSORS], seed=plan.seed, log=log)
        if plan.results_published:
            demo_results_publish(competition=competition, organizer=users[ORGANIZER], log=log)
        loaded.append(competition.slug)
        log(f"{competition.slug}: done in {time.monotonic() - started:.1f} s")
    return loaded


def _verification_ask(*, competition: Competition, organizer: User, log: Log) -> None:
    """The organizer asks a second engine to check the final phase's scores: the demo's
    worker runs it once it starts (submissions/verification.py), and its outcome shows on
    the phase's scoring page and in the audit log."""
    final = competition.phases.filter(is_final=True, submissions__isnull=False).first()
    if final is not None:
        verification_request(phase=final, actor=organizer, reason=Verification.Reason.ORGANIZER)
        log(f"{final}: verification by a second engine queued for the worker")


def _team_create(*, competition: Competition, team: TeamPlan, users: dict[str, User]) -> tuple[Team, TeamPlan]:
    # The demo's teams formed when the competition started, before its entry deadline.
    formed = competition.starts_at
    created = team_create(competition=competition, user=users[team.members[0]], name=team.name, now=formed)
    for member in team.members[1:]:
        team_join(invite_code=created.invite_code, user=users[member], now=formed)
    team_formed_backdate(team=created, at=formed)
    return created, team


def _subset_data(plan: CompetitionPlan, code: str, *, data_dir: Path | None, count: int) -> SubsetData:
    if plan.data == "miracl":
        return sources.miracl_subset(code, data_dir=data_dir, count=count, seed=plan.seed)
    if plan.data == "mrtydi":
        return sources.mrtydi_subset(code, data_dir=data_dir, count=count, seed=plan.seed)
    return sources.synthetic_subset(code, count=count, max_label=plan.max_label, seed=plan.seed)


def _phase_data(*, plan: CompetitionPlan, phase: Phase, data_dir: Path | None, scale: float) -> dict[str, SubsetData]:
    """{subset code: this phase's slice}, for the subsets the benchmark's split of this name covers."""
    piece = plan.phases[phase.slug]
    split = get_benchmark(phase.competition.benchmark).splits.get(phase.slug)
    codes = [c for c in phase.competition.subsets.values_list("code", flat=True) if split is None or c in split]
    count = max(4, round(plan.synthetic_count * scale))
    cap = max(2, round(piece.cap * scale))
    return {code: _subset_data(plan, code, data_dir=data_dir, count=count).part(piece.start, piece.stop, cap)
            for code in codes}


def _phase_fill(*, plan: CompetitionPlan, phase: Phase, teams: list, users: dict[str, User],
                data_dir: Path | None, scale: float, per_team: int, log: Log) -> None:
    """Topics and judgments for a phase, then (when it is open) baselines and team runs, scored
    and spread over the days the phase has been open (demo/timeline.py)."""
    organizer = users[ORGANIZER]
    since = timezone.now()
    stem = f"demo-{phase.competition.benchmark}-{phase.slug}"
    by_code = _phase_data(plan=plan, phase=phase, data_dir=data_dir, scale=scale)
    for code, piece in by_code.items():
        topics_import(phase=phase, subset=code, file=piece.topics_tsv(), name=f"topics.{stem}-{code}.tsv",
                      actor=organizer)
    qrels_release_create(phase=phase, files={code: piece.qrels_tsv() for code, piece in by_code.items()},
                         actor=organizer, names={code: f"qrels.{stem}-{code}.tsv" for code in by_code},
                         note="demo data")
    phase_setup_backdate(phase=phase, since=since, now=timezone.now())
    origins = sorted({piece.origin for piece in by_code.values()})
    log(f"{phase}: {len(by_code)} subsets, {sum(len(p.topics) for p in by_code.values())} queries "
        f"({', '.join(origins)})")
    if not phase.is_open():
        log(f"{phase}: opens {phase.opens_at:%Y-%m-%d %H:%M} UTC; no runs yet")
        return
    visible = {s.code for s in Viewer(users[LONER], phase.competition).subsets}
    if phase.is_systems:  # teams submit systems there: the baselines, then the example system (demo/systems.py)
        _baselines(phase=phase, by_code=by_code, plan=plan, organizer=organizer)
        team, team_plan = teams[0]
        demo_system_run(phase=phase, team=team, user=users[team_plan.members[0]],
                        by_code={c: p for c, p in by_code.items() if c in visible}, log=log)
        phase_timeline_spread(phase=phase, since=since, now=timezone.now())
        return
    per_team = min([per_team, *(n for n in (phase.daily_limit, phase.total_limit) if n)])
    entries = [(number, team, team_plan) for number in range(per_team) for team, team_plan in teams]
    made = iter(demo_runs(
        [RunSpec(tag, quality, spread, tag, str(phase), by_code, plan.depth) for _, tag, quality, spread in BASELINES]
        + [RunSpec(f"{team.slug}-{number + 1}", team_plan.quality + 0.05 * number, 0.08, team.slug, str(phase),
                   {c: p for c, p in by_code.items() if c in visible}, plan.depth)
           for number, team, team_plan in entries]))
    baselines = []
    for name, tag, _, _ in BASELINES:
        baselines.append(_scored(submission_create(phase=phase, team=None, user=organizer, files=_files(
            next(made), system=tag, phase=phase), method_name=name, is_baseline=True,
            metadata=_metadata(phase, name))))
    _scored(baseline_hybrid_create(phase=phase, baseline_a=baselines[0], baseline_b=baselines[1], alpha=0.5,
                                   user=organizer))
    for number, team, team_plan in entries:
        files = _files(next(made), system=f"{team.slug}-{number + 1}", phase=phase)
        submission = _scored(submission_create(phase=phase, team=team, user=users[team_plan.members[-1]],
                                               files=files, method_name=team_plan.methods[number],
                                               metadata=_metadata(phase, team_plan.methods[number]),
                                               release_consent=team_plan.name in RELEASING))
        if phase.ranking == Phase.Ranking.SELECTED and number == per_team - 1:
            submission_select_final(submission=submission, user=users[team_plan.members[0]], selected=True)
    phase_timeline_spread(phase=phase, since=since, now=timezone.now())
    log(f"{phase}: 3 baselines and {per_team * len(teams)} team submissions scored")


def _baselines(*, phase: Phase, by_code: dict, plan: CompetitionPlan, organizer: User) -> None:
    """The organizer's baselines alone (a systems phase takes no team runs)."""
    made = iter(demo_runs([RunSpec(tag, quality, spread, tag, str(phase), by_code, plan.depth)
                           for _, tag, quality, spread in BASELINES]))
    for name, tag, _, _ in BASELINES:
        _scored(submission_create(phase=phase, team=None, user=organizer, files=_files(next(made), system=tag,
                                                                                      phase=phase),
                                  method_name=name, is_baseline=True, metadata=_metadata(phase, name)))


def _metadata(phase: Phase, method: str) -> dict:
    """The method's run metadata, for the fields the phase's competition asks for."""
    asked = {field.name for field in metadata_fields(phase.competition)}
    values = dict(zip(METADATA_NAMES, METHOD_METADATA.get(method, ()), strict=False))  # () for a method without any
    return {name: value for name, value in values.items() if name in asked}


def _files(runs: dict[str, bytes], *, system: str, phase: Phase) -> list[tuple[ContentFile, str]]:
    return [(ContentFile(run, name=f"run.{system}.{code}.{phase.slug}.txt"), code) for code, run in runs.items()]


def _scored(submission):
    """Score right away, as a worker would: the demo's leaderboards are full before any worker runs."""
    submission_score(submission_id=submission.pk)
    submission.refresh_from_db()
    return submission
