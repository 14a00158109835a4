"""Submission writes: upload (teams and baselines), final selection, disqualification, re-scoring.

Every refusal is a `SubmissionRefused` with a code, raised before anything is written.
Scoring (the worker side) lives in `scoring.py`, limits in `quota.py`, fused baselines in `baselines.py`.
"""
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Max
from django.utils import timezone

from cupboard import events
from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.document_lists import current_document_lists
from cupboard.competitions.models import Phase, Subset
from cupboard.competitions.private_files import removed_on_error
from cupboard.competitions.run_metadata import MetadataError, metadata_clean, metadata_fields
from cupboard.competitions.viewer import Viewer
from cupboard.locking import locked
from cupboard.teams.models import Membership, Team
from evaluator.io.naming import subset_from_filename
from evaluator.records import Problem

from .errors import SubmissionRefused
from .events import RunsMoved, RunStandingChanged
from .models import MAX_PRIORITY, RescoreStep, RunFile, Submission, consent_fixed_at
from .quota import quota_check
from .runfiles import (
    SpooledFile,
    document_check,
    packed,
    read_run_file,
    read_topics_of,
    run_file_store,
    spool,
    spool_folder,
    wrong_language_hint,
)
from .scoring_kind import submission_enqueue
from .selectors import duplicate_submission
from .topic_fields import topic_fields_checked


def _refuse_outside_window(*, phase: Phase, now: datetime) -> None:
    if phase.is_open(now):
        return
    window = f"{phase.opens_at:%Y-%m-%d %H:%M} to {phase.closes_at:%Y-%m-%d %H:%M} UTC"
    if now < phase.opens_at:
        raise SubmissionRefused(f"{phase.name} is not open yet: it accepts submissions from {window}.",
                                code="phase_not_open")
    raise SubmissionRefused(f"{phase.name} is closed: it accepted submissions from {window}.", code="phase_closed")


def _resolve_subsets(*, known: list[Subset], files, only: Subset | None = None) -> tuple[list[Subset | None], list[Problem]]:
    """The subset of each file: chosen, or read from its name, or `only`, the competition's one
    subset (None where it cannot be told),
    and a problem for each file whose language is not told, unknown or given twice: the
    other files are still read, so one badly named file hides nothing else that is wrong. A
    hidden (not yet revealed) subset is not `known` to the uploader and is refused exactly
    like an unknown code, so the refusal gives nothing away."""
    by_code = {s.code: s for s in known}
    listed = _codes(known)
    chosen: list[Subset | None] = []
    problems = []
    for uploaded, code in files:
        name = getattr(uploaded, "name", "") or "run"
        code = (code or "").strip() or subset_from_filename(name, list(by_code))
        if code is None and only is not None:  # one collection: every run file is for it, whatever its name
            code = only.code
        problem = None
        if code is None:
            problem = Problem("subset_not_named", "cannot tell the language from the file name; choose it, or name "
                                                  f"the file after it (run.<code>.txt; the codes here: {listed}).", name)
        elif code not in by_code:
            problem = Problem("unknown_subset", f"there is no language {code!r} in this competition; its languages "
                                                f"are {listed}.", name)
        elif by_code[code] in chosen:
            problem = Problem("duplicate_subset", f"a second file for {code}; send one file per language.", name)
        problems += [problem] if problem else []
        chosen.append(None if problem else by_code[code])
    return chosen, problems


def _codes(subsets) -> str:
    """Subset codes as a refusal lists them: "ar, bn, sw"."""
    return ", ".join(sorted(s.code for s in subsets))


def _validate(*, phase: Phase, spooled: list[SpooledFile], subsets: list[Subset | None], known: list[Subset],
              refusals: list[Problem]) -> list:
    """Validate every file whose language is known (all of them, so the participant sees every
    problem at once, `refusals` of the files' names and languages first). The refusal counts
    the problems truly ("25+" where a file's list was cut short) and puts a wrong-language hint
    before the problems of a file whose ids are another language's."""
    refusals = list(refusals)
    problems: list[Problem] = []
    reports, truncated = [], False
    document_lists = current_document_lists(phase.competition)
    for copy, subset in zip(spooled, subsets, strict=True):
        if subset is None:
            continue  # its name or language is refused already
        topics = read_topics_of(phase=phase, subset=subset)
        if topics is None:
            with_topics = _codes(s.subset for s in phase.topic_sets.filter(subset__in=known).select_related("subset"))
            refusals.append(Problem("no_topics", f"{phase.name} has no topics for {subset.code}, so a run for it "
                                                 f"cannot be scored here; it takes runs for "
                                                 f"{with_topics or 'no language yet'}.", copy.name))
            continue
        _, report = read_run_file(source=copy.path, name=copy.name, competition=phase.competition, topics=topics,
                                  documents=document_check(document_lists.get(subset.pk),
                                                           refuse=phase.unknown_documents == "refuse"))
        hint = None
        if any(p.code == "unknown-qid" for p in report.errors):
            hint = wrong_language_hint(copy=copy, phase=phase, subset=subset, known=known, own_topics=topics)
        problems.extend([hint, *report.errors] if hint else report.errors)
        truncated = truncated or report.truncated
        reports.append(report)
    if refusals or problems:
        raise _refusal(refusals, problems, truncated=truncated)
    return reports


def _refusal(refusals: list[Problem], problems: list[Problem], *, truncated: bool) -> SubmissionRefused:
    """One refusal for all that is wrong: led by the first file whose name or language is
    wrong (its code), else "N problems in the run files"; every problem listed."""
    count = sum(p.code != "wrong-language" for p in problems)
    total = f"{count}+ problems" if truncated else f"{count} problem{'s' if count != 1 else ''}"
    if not refusals:
        return SubmissionRefused(f"{total} in the run files; nothing was stored.", code="invalid_run",
                                 problems=problems)
    head = refusals[0]
    if len(refusals) == 1 and not problems:
        return SubmissionRefused(f"{head.file}: {head.message}", code=head.code)
    more = len(refusals) - 1 + count
    return SubmissionRefused(f"{head.file}: {head.message} And {more}{'+' if truncated else ''} more "
                             f"problem{'s' if more != 1 else ''} below; nothing was stored.", code=head.code,
                             problems=[*refusals, *problems])


def _check_submitter(*, phase: Phase, team: Team | None, user: AbstractBaseUser, is_baseline: bool,
                     now: datetime) -> None:
    if is_baseline:
        # Organizers add baselines to any phase at any time, outside every team and limit.
        if not Viewer(user, phase.competition, now).is_organizer:
            raise SubmissionRefused("Only organizers can add baselines.", code="not_organizer")
        return
    _refuse_outside_window(phase=phase, now=now)
    if phase.is_systems:
        raise SubmissionRefused(f"{phase.name} takes systems, not runs: upload your system's image on the phase's "
                                "Submit a system page, and the platform runs it on topics nobody sees.",
                                code="systems_phase")
    if team is None or team.competition_id != phase.competition_id or \
            not Membership.objects.filter(team=team, user=user).exists():
        raise SubmissionRefused("You are not in this team.", code="not_member")


@transaction.atomic
def _create_rows(*, phase: Phase, team: Team | None, user: AbstractBaseUser | None, is_baseline: bool, now: datetime,
                 fields: dict, files: list, stored: list[str], quota: bool = True) -> Submission:
    """The submission and its run files in one transaction, or the duplicate it repeats. Each
    stored file's name is appended to `stored` (see private_files.removed_on_error)."""
    # Lock the team row (or, for baselines, the phase row) until commit: concurrent
    # uploads of one team queue here, so the count below is exact and the cap holds.
    # The lock order is in cupboard/locking.py.
    if team is not None:
        locked(Team.objects).get(pk=team.pk)
    else:
        locked(Phase.objects).get(pk=phase.pk)
    duplicate = duplicate_submission(phase=phase, team=team, sha256s={copy.sha256 for copy, _, _ in files})
    if duplicate is not None:
        duplicate.is_repeat = True
        return duplicate
    if team is not None and quota:
        quota_check(phase=phase, team=team, now=now)
    siblings = Submission.objects.filter(phase=phase, team=team, is_baseline=is_baseline)
    number = (siblings.aggregate(n=Max("number"))["n"] or 0) + 1
    submission = Submission.objects.create(phase=phase, team=team, submitted_by=user, is_baseline=is_baseline,
                                           number=number, status=Submission.Status.QUEUED, queued_at=now,
                                           waiting_since=now, **fields)
    if team is not None:
        # Under the team lock, so the members recorded are those the quota counted.
        submission.members.set(Membership.objects.filter(team=team).values_list("user_id", flat=True))
    for copy, subset, report in files:
        run_file = RunFile(submission=submission, subset=subset, original_name=copy.name,
                           sha256=copy.sha256, size=copy.size, lines=report.lines, queries=report.queries)
        run_file_store(run_file, copy)
        stored.append(run_file.file.name)
        run_file.save()
    if is_baseline:
        audit_record(competition=phase.competition, actor=user, action=AuditEvent.Action.BASELINE_ADDED,
                     summary=f"Baseline {submission.method_name} added to {phase.name}",
                     details={**named("submission", submission.pk, str(submission)),
                              **named("phase", phase.slug, phase.name)}, is_public=True)
    submission_enqueue(submission_ids=[submission.pk])
    return submission


def submission_create(*, phase: Phase, team: Team | None, user: AbstractBaseUser, files: list, method_name: str,
                      description: str = "", paper_url: str = "", code_url: str = "",
                      is_baseline: bool = False, metadata: dict | None = None,
                      release_consent: bool = False, judging_priority: int | None = None,
                      topic_fields: list[str] | None = None) -> Submission:
    """Accept a set of run files (one per subset) as a queued submission, or refuse with a reason.

    `files` is a non-empty list of (uploaded file, subset code or None); the fields come checked
    by a form (UploadForm, ApiUploadForm: a method name, http(s) links). `metadata` holds the
    competition's run-metadata values ({name: value}), checked here again so no caller stores
    a value the fields refuse (baselines may leave required ones empty); `judging_priority` (1
    first) and `topic_fields` (of the phase's topics: topic_fields.py) are what the team says of
    the run (issue 34). Checks run in this
    order: window, team membership, metadata, subsets, validation, then the quota under a lock.
    Re-sending the same files while the first submission is pending or scored returns that
    submission, marked `is_repeat` (its method name and details stay those first given).
    """
    now = timezone.now()
    _check_submitter(phase=phase, team=team, user=user, is_baseline=is_baseline, now=now)
    team = None if is_baseline else team
    metadata = _checked_metadata(phase=phase, metadata=metadata or {}, is_baseline=is_baseline)
    topic_fields = topic_fields_checked(phase, topic_fields)
    if judging_priority is not None and not 1 <= judging_priority <= MAX_PRIORITY:
        raise SubmissionRefused(f"A judging priority is 1 (judge first) to {MAX_PRIORITY}, not {judging_priority}.",
                                code="bad-priority")
    return _accept(phase=phase, team=team, user=user, is_baseline=is_baseline, now=now, files=files,
                   fields={"method_name": method_name, "description": description, "paper_url": paper_url,
                           "code_url": code_url, "metadata": metadata, "release_consent": release_consent,
                           "judging_priority": judging_priority, "topic_fields": topic_fields})


def submission_from_system(*, phase: Phase, team: Team | None, user: AbstractBaseUser | None, files: list,
                           method_name: str, description: str = "", release_consent: bool = False) -> Submission:
    """The run files a team's system wrote (cupboard/systems/) as the team's submission: named,
    read, validated and stored by the very code an upload goes through, refused with the same
    `SubmissionRefused`. Its window, membership and quota were checked when the image was
    uploaded: the platform runs it later, perhaps after the phase closed. The languages are
    those the submitter sees now, as for an upload."""
    now = timezone.now()
    return _accept(phase=phase, team=team, user=user, is_baseline=team is None, now=now, files=files, quota=False,
                   fields={"method_name": method_name, "description": description, "metadata": {},
                           "release_consent": release_consent})


def _accept(*, phase: Phase, team: Team | None, user: AbstractBaseUser | None, is_baseline: bool, now: datetime,
            files: list, fields: dict, quota: bool = True) -> Submission:
    """Name, read and validate every file, then store the submission (or the one it repeats)."""
    known = Viewer(user, phase.competition, now).subsets
    # a competition of one collection (not one whose other subsets are hidden from this uploader)
    only = known[0] if len(known) == 1 and phase.competition.subsets.count() == 1 else None
    subsets, naming = _resolve_subsets(known=known, files=files, only=only)
    with spool_folder() as folder:
        spooled = [spool(uploaded, name=uploaded.name, folder=folder, index=i)
                   for i, (uploaded, _) in enumerate(files, start=1)]
        reports = _validate(phase=phase, spooled=spooled, subsets=subsets, known=known, refusals=naming)
        spooled = [packed(copy) for copy in spooled]  # gzipped now: no lock is held yet
        with removed_on_error() as stored:
            submission = _create_rows(phase=phase, team=team, user=user, is_baseline=is_baseline, now=now,
                                      fields=fields, files=list(zip(spooled, subsets, reports, strict=True)),
                                      stored=stored, quota=quota)
    return submission


def _checked_metadata(*, phase: Phase, metadata: dict, is_baseline: bool) -> dict:
    try:
        return metadata_clean(metadata_fields(phase.competition), metadata, required=not is_baseline)
    except MetadataError as error:
        raise SubmissionRefused(f"Run metadata: {error}; nothing was stored.", code="invalid_metadata") from None


@transaction.atomic
def submission_select_final(*, submission: Submission, user: AbstractBaseUser, selected: bool) -> Submission:
    """Mark (or unmark) a submission as one of the team's final picks, before the phase closes."""
    team = submission.team
    if team is None or not Membership.objects.filter(team=team, user=user).exists():
        raise SubmissionRefused("Only the team's members can choose its final submissions.", code="not_member")
    phase = submission.phase
    if timezone.now() >= phase.closes_at:
        raise SubmissionRefused(f"{phase.name} is closed; the final choice can no longer change.",
                                code="phase_closed")
    if selected and (submission.disqualified or submission.status in
                     (Submission.Status.REJECTED, Submission.Status.FAILED)):
        raise SubmissionRefused("A rejected, failed or disqualified submission cannot count.", code="not_selectable")
    # Lock the team row: two members choosing at once must not exceed the maximum together.
    locked(Team.objects).get(pk=team.pk)
    limit = phase.competition.final_selection_max
    others = Submission.objects.filter(phase=phase, team=team, selected_for_final=True).exclude(pk=submission.pk)
    if selected and others.count() >= limit:
        raise SubmissionRefused(f"Your team already chose {limit} submission(s); unselect one first.",
                                code="selection_full")
    Submission.objects.filter(pk=submission.pk).update(selected_for_final=selected)
    submission.selected_for_final = selected
    # Only this team's counted submission can change: its row, after commit (cupboard/flows/run_standing.py).
    events.send(RunStandingChanged(submission=submission))
    return submission


def submission_release_consent(*, submission: Submission, user: AbstractBaseUser, consent: bool) -> Submission:
    """Give or withdraw the team's consent to this run being in the results archive; a member's
    choice, until the phase's reveal (`consent_fixed_at`), then fixed for good."""
    team = submission.team
    if team is None or not Membership.objects.filter(team=team, user=user).exists():
        raise SubmissionRefused("Only the team's members can choose whether its run is released.", code="not_member")
    fixed_at = consent_fixed_at(submission.phase)
    if timezone.now() >= fixed_at:
        raise SubmissionRefused(f"The results of {submission.phase.name} were revealed on {fixed_at:%Y-%m-%d %H:%M} "
                                f"UTC; whether this run is released can no longer change.", code="consent_fixed")
    Submission.objects.filter(pk=submission.pk).update(release_consent=consent)
    submission.release_consent = consent
    return submission


@transaction.atomic
def submission_disqualify(*, submission: Submission, actor: AbstractBaseUser, reason: str) -> Submission:
    """Take a submission off the leaderboard (organizers only; audited once). Its scores are kept."""
    competition = submission.phase.competition
    if not Viewer(actor, competition).is_organizer:
        raise SubmissionRefused("Only organizers can disqualify a submission.", code="not_organizer")
    if not reason.strip():
        raise SubmissionRefused("Say why the submission is disqualified.", code="no_reason")
    stored = reason.strip()[:200]
    # Sent again (a retried request, a second click): nothing changes and nothing is audited twice.
    if not Submission.objects.filter(pk=submission.pk).exclude(disqualified=True, disqualified_reason=stored) \
            .update(disqualified=True, disqualified_reason=stored):
        submission.refresh_from_db()
        return submission
    submission.disqualified, submission.disqualified_reason = True, stored
    audit_record(competition=competition, actor=actor, action=AuditEvent.Action.DISQUALIFIED,
                 summary=_disqualified_summary(submission, reason.strip()),
                 details={**named("submission", submission.pk, str(submission)),
                          **named("phase", submission.phase.slug, submission.phase.name), "reason": reason.strip()},
                 is_public=True)
    # Only its team's row (or the baseline's own) can change: that row, after commit (cupboard/flows/run_standing.py).
    events.send(RunStandingChanged(submission=submission))
    return submission


def _public_sees_board(phase: Phase) -> bool:
    """Whether everyone sees the phase's board live now: what a public audit line may say of
    its runs (a private or frozen board must not tell anyone which team ran what, or how
    many runs it holds; the organizers' details say it all)."""
    public = Viewer(None, phase.competition)
    return public.sees_leaderboard(phase) and public.frozen_since(phase) is None


def _disqualified_summary(submission: Submission, reason: str) -> str:
    """The public line: the run and the reason where everyone sees the board, else only that
    a run of the phase was disqualified."""
    phase = submission.phase
    if _public_sees_board(phase):
        return f"Disqualified {submission} in {phase.name}: {reason}"
    return f"A submission in {phase.name} was disqualified"


@transaction.atomic
def phase_rescore(*, phase: Phase, actor: AbstractBaseUser | None, reason: str = "") -> int:
    """Score every scored submission of a phase again (new judgments, new topics); audited.
    Submissions still waiting in the queue (perhaps for these very judgments) get a fresh
    nudge. Returns how many scored submissions were queued again.

    All of them are one step (`RescoreStep`): the phase's board, history, exports and mails
    keep the scores from before until the last of them is finished, then switch at once
    (leaderboards/rescoring.py). A step still open is superseded by this one: its runs are
    among this one's, and the board still shows what stood before it."""
    now = timezone.now()
    # The phase row first (cupboard/locking.py): a refresh of this phase waits for the re-score, not in between.
    row = locked(Phase.objects).get(pk=phase.pk)
    waiting = Submission.objects.filter(phase=phase, status=Submission.Status.QUEUED).update(queued_at=now)
    scored = Submission.objects.filter(phase=phase, status=Submission.Status.SCORED)
    count = scored.update(status=Submission.Status.QUEUED, attempts=0, progress=0, queued_at=now, waiting_since=now,
                          status_reason="")
    pending = Submission.objects.filter(phase=phase, status__in=Submission.PENDING)
    ids = list(pending.filter(status=Submission.Status.QUEUED).values_list("pk", flat=True))
    step = _step_open(phase=phase, ids=list(pending.values_list("pk", flat=True)), reason=reason, now=now)
    # A new leaderboard version: the cached boards (keyed on it, leaderboards/cache.py) now say
    # "being re-scored, 0 of N" over the same rows. Saved, not updated: the phase's post_save
    # drops the board states this process keeps (leaderboards/apps.py), so its visitors see it at once.
    row.leaderboard_version, row.leaderboard_changed_at = F("leaderboard_version") + 1, now
    row.save(update_fields=["leaderboard_version", "leaderboard_changed_at"])
    audit_record(competition=phase.competition, actor=actor, action=AuditEvent.Action.RESCORED,
                 summary=(f"{count} scored submission(s) of {phase.name} queued for scoring again"
                          + (f", {waiting} waiting one(s) nudged" if waiting else "")) if _public_sees_board(phase)
                 else f"The submissions of {phase.name} queued for scoring again",
                 details={**named("phase", phase.pk, phase.name), "rescored": count, "nudged": waiting,
                          "step": step.number if step else None, **({"reason": reason} if reason else {})},
                 is_public=True)
    submission_enqueue(submission_ids=ids)
    return count


def _step_open(*, phase: Phase, ids: list[int], reason: str, now: datetime) -> RescoreStep | None:
    """The step of this re-score (under the phase lock), after closing an open one as superseded;
    none when nothing is scored again (the board has nothing to wait for)."""
    superseded = RescoreStep.objects.filter(phase=phase, closed_at__isnull=True)
    superseded.update(closed_at=now, outcome=RescoreStep.Outcome.SUPERSEDED)
    if not ids:
        return None
    number = (RescoreStep.objects.filter(phase=phase).aggregate(n=Max("number"))["n"] or 0) + 1
    return RescoreStep.objects.create(phase=phase, number=number, reason=reason[:200], submission_ids=ids,
                                      total=len(ids), opened_at=now)


def submissions_move(*, source: Team, target: Team) -> set:
    """Give the source team's submissions to the target, numbered after the target's own, per
    phase (a team merge: teams/services.py, through cupboard/flows/team_changed.py). Final
    choices beyond the competition's maximum are dropped (the target's kept first). Returns the
    phases whose leaderboards changed."""
    limit = target.competition.final_selection_max
    phases = set()
    for submission in Submission.objects.filter(team=source).select_related("phase").order_by("phase", "number"):
        theirs = Submission.objects.filter(phase=submission.phase, team=target)
        number = (theirs.aggregate(n=Max("number"))["n"] or 0) + 1
        selected = submission.selected_for_final and theirs.filter(selected_for_final=True).count() < limit
        Submission.objects.filter(pk=submission.pk).update(team=target, number=number, selected_for_final=selected)
        phases.add(submission.phase)
    if phases:  # their leaderboards, after the merge commits (cupboard/flows/team_changed.py)
        events.send(RunsMoved(phases=sorted(phases, key=lambda phase: phase.pk)))
    return phases
