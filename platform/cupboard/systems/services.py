"""Systems writes: a team's image upload, an organizer's re-run and determinism check.

Every refusal is a `SubmissionRefused` with a code, raised before anything is written, as an
upload's are. An image is checked here only as far as a request may afford (its size, that it
is a tar holding an OCI or Docker image manifest); the runner unpacks it with every check of
images.py and tells the team if it refuses it.
"""
from __future__ import annotations

import hashlib
import tarfile
from datetime import datetime

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.files import File
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.bidi import isolate
from cupboard.competitions.models import Phase
from cupboard.competitions.private_files import removed_on_error
from cupboard.competitions.viewer import Viewer
from cupboard.locking import locked
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.quota import quota_check
from cupboard.submissions.runfiles import spool_folder
from cupboard.teams.models import Membership, Team

from .kind import executions_enqueue
from .models import Execution, System

CHUNK = 1024 * 1024


def system_upload(*, phase: Phase, team: Team | None, user: AbstractBaseUser, image, method_name: str,
                  description: str = "", release_consent: bool = False, as_organizers: bool = False) -> System:
    """Accept an image (an uploaded file) as the team's system and queue its execution, or
    refuse with a reason. Checks, in order: a systems phase, its window and the team (an
    organizers' system, `as_organizers`, skips both), the image, then under the team lock one
    system at a time and the phase's limits (the run it becomes counts as an upload)."""
    now = timezone.now()
    _check_uploader(phase=phase, team=team, user=user, as_organizers=as_organizers, now=now)
    team = None if as_organizers else team
    with spool_folder() as folder:
        path, sha256, size = _spooled(image, folder)
        _check_image(path, name=getattr(image, "name", "image.tar"))
        with removed_on_error() as stored:
            system = _create(phase=phase, team=team, user=user, now=now, path=path, sha256=sha256, size=size,
                             name=getattr(image, "name", "image.tar"), stored=stored,
                             fields={"method_name": method_name, "description": description,
                                     "release_consent": release_consent})
    return system


def _check_uploader(*, phase: Phase, team: Team | None, user, as_organizers: bool, now: datetime) -> None:
    if not phase.is_systems:
        raise SubmissionRefused(f"{phase.name} takes runs, not systems.", code="not_systems_phase")
    if as_organizers:
        if not Viewer(user, phase.competition, now).is_organizer:
            raise SubmissionRefused("Only organizers can add the organizers' systems.", code="not_organizer")
        return
    if not phase.is_open(now):
        window = f"{phase.opens_at:%Y-%m-%d %H:%M} to {phase.closes_at:%Y-%m-%d %H:%M} UTC"
        code = "phase_not_open" if now < phase.opens_at else "phase_closed"
        raise SubmissionRefused(f"{phase.name} accepts systems from {window} only.", code=code)
    if team is None or team.competition_id != phase.competition_id or \
            not Membership.objects.filter(team=team, user=user).exists():
        raise SubmissionRefused("You are not in this team.", code="not_member")


def _spooled(image, folder) -> tuple:
    """The upload copied to `folder`, hashed on the way; refused over the size limit."""
    limit = settings.CUPBOARD_SYSTEM_IMAGE_MAX_BYTES
    path = folder / "image.tar"
    digest, size = hashlib.sha256(), 0
    chunks = image.chunks(CHUNK) if hasattr(image, "chunks") else iter(lambda: image.read(CHUNK), b"")
    with open(path, "wb") as out:
        for chunk in chunks:
            size += len(chunk)
            if size > limit:
                raise SubmissionRefused(f"{getattr(image, 'name', 'the image')}: larger than the "
                                        f"{limit // 2 ** 20} MiB limit of an image.", code="too_large")
            digest.update(chunk)
            out.write(chunk)
    return path, digest.hexdigest(), size


def _check_image(path, *, name: str) -> None:
    """A tar that holds an image manifest (`docker save`: manifest.json; OCI: index.json)."""
    try:
        with tarfile.open(path) as tar:
            names = {member.name.removeprefix("./") for member in tar.getmembers()}
    except (tarfile.TarError, EOFError) as error:
        raise SubmissionRefused(f"{name}: not a tar file ({error}); send what `docker save` or `podman save` "
                                "writes.", code="not_an_image") from None
    if not names & {"manifest.json", "index.json"}:
        raise SubmissionRefused(f"{name}: a tar without manifest.json or index.json is no image; send what "
                                "`docker save IMAGE -o image.tar` writes.", code="not_an_image")


@transaction.atomic
def _create(*, phase: Phase, team: Team | None, user, now: datetime, path, sha256: str, size: int, name: str,
            stored: list[str], fields: dict) -> System:
    if team is not None:
        locked(Team.objects).get(pk=team.pk)  # 5 in cupboard/locking.py: the quota count is exact
        waiting = Execution.objects.filter(system__phase=phase, system__team=team, reason=Execution.Reason.UPLOAD,
                                           status__in=Execution.PENDING)
        if waiting.exists():
            raise SubmissionRefused("Your team's previous system is still waiting or running; upload the next "
                                    "one once it has finished.", code="system_pending")
        quota_check(phase=phase, team=team, now=now)
    else:
        locked(Phase.objects).get(pk=phase.pk)
    siblings = System.objects.filter(phase=phase, team=team)
    number = (siblings.aggregate(n=Max("number"))["n"] or 0) + 1
    system = System(phase=phase, team=team, submitted_by=user, number=number, sha256=sha256, size=size,
                    original_name=name[:255], **fields)
    with open(path, "rb") as handle:
        system.image.save(f"{sha256[:16]}.tar", File(handle), save=False)
    stored.append(system.image.name)
    system.save()
    if team is None:
        audit_record(competition=phase.competition, actor=user, action=AuditEvent.Action.BASELINE_ADDED,
                     summary=f"Organizers' system {isolate(system.method_name)} added to {phase.name}",
                     details={**named("phase", phase.slug, phase.name), "sha256": sha256}, is_public=True)
    _queue(system, reason=Execution.Reason.UPLOAD, user=user)
    return system


def _queue(system: System, *, reason: str, user, compared_with: Execution | None = None) -> Execution:
    execution = Execution.objects.create(system=system, reason=reason, requested_by=user,
                                         compared_with=compared_with, queued_at=timezone.now())
    executions_enqueue(execution_ids=[execution.pk])
    return execution


@transaction.atomic
def system_rerun(*, system: System, actor: AbstractBaseUser) -> Execution:
    """Run a system again on its phase's current topics (organizers; audited): its output is a
    new submission of the team, scored with the current judgments, counted in no limit."""
    _organizers_only(system, actor)
    execution = _queue(system, reason=Execution.Reason.RERUN, user=actor)
    _audit(system, actor, f"System {system} run again")
    return execution


@transaction.atomic
def system_determinism_check(*, system: System, actor: AbstractBaseUser) -> tuple[Execution, Execution]:
    """Run a system twice on the current topics and compare the SHA-256 of the two outputs
    (organizers; audited). Neither run becomes a submission."""
    _organizers_only(system, actor)
    first = _queue(system, reason=Execution.Reason.DETERMINISM, user=actor)
    second = _queue(system, reason=Execution.Reason.DETERMINISM, user=actor, compared_with=first)
    _audit(system, actor, f"Determinism check of {system}")
    return first, second


def _organizers_only(system: System, actor) -> None:
    if not Viewer(actor, system.phase.competition).is_organizer:
        raise SubmissionRefused("Only organizers can run a system again.", code="not_organizer")


def _audit(system: System, actor, summary: str) -> None:
    audit_record(competition=system.phase.competition, actor=actor, action=AuditEvent.Action.RESCORED,
                 summary=summary, details={**named("phase", system.phase.slug, system.phase.name),
                                           "system": system.pk, "sha256": system.sha256})
