"""Writes that set a competition up: load its definition, release qrels (topics: topic_files.py).

Each service runs in one transaction and validates everything before it writes a file,
so bad input changes nothing. Publishing commitments and reveals lives in
`commitments.py`; reading published file names in `published_files.py`.
"""
from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Mapping
from pathlib import Path

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from cupboard import events
from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.changes import Change, definition_changes, definition_current, shown
from cupboard.competitions.commitments import competition_publish_due
from cupboard.competitions.definition import PHASE_BOARD_RULES, definition_load, definition_values
from cupboard.competitions.digest import competition_digest, definition_digest
from cupboard.competitions.errors import CompetitionError, DefinitionError
from cupboard.competitions.models import (
    Competition,
    Phase,
    QrelsFile,
    QrelsRelease,
    Subset,
    SubsetGroup,
    TopicSet,
)
from cupboard.competitions.private_files import removed_on_error
from cupboard.competitions.roles import participant_organizers
from cupboard.competitions.schedule import (
    PHASE_SCHEDULE_FIELDS,
    group_reveal_refusal,
    phase_schedule_refusal,
    subset_move_refusal,
)
from cupboard.competitions.topic_files import topics_import
from cupboard.competitions.topic_variants import default_variant, variants
from cupboard.competitions.uploads import FileSource, ids_listed, read_source, subset_of
from cupboard.locking import locked
from evaluator.records import Problem

from .events import DefinitionChanged, QrelsReleased


def competition_load(*, data: dict | str | Path, actor: User | None = None) -> Competition:
    """Create or update a competition from its versioned definition (a YAML path or its data).

    Loading the same definition again changes nothing; a higher `version` updates the
    competition in place; a lower one, or the same version with other content, is refused
    (code `stale-definition` / `version-not-bumped`, each difference named) so two copies of a
    file cannot fight. "The same" is by the digest derived from the rows (competitions/digest.py).
    An update's diff (competitions/changes.py) goes to the audit log, its dates, limits and
    metrics publicly, and to the teams (cupboard/flows/definition_changed.py)."""
    return competition_load_changes(data=data, actor=actor)[0]


def competition_load_changes(*, data: dict | str | Path, actor: User | None = None, dry_run: bool = False,
                             create_only: bool = False) -> tuple[Competition, list[Change] | None]:
    """`competition_load`, also returning its diff (None: created; []: nothing changed). With
    `dry_run`, the load runs and is rolled back: every check is the real one (a refusal raises
    as it would) and nothing is kept or sent (no mail: its messages leave only on commit).
    `create_only` refuses a slug that exists (code `slug-taken`), checked under the lock: the
    browser's "new competition" must never update someone else's."""
    with transaction.atomic():
        loaded = _load(data=data, actor=actor, create_only=create_only)
        if dry_run:
            transaction.set_rollback(True)
    return loaded


def _load(*, data: dict | str | Path, actor: User | None,
          create_only: bool = False) -> tuple[Competition, list[Change] | None]:
    definition = definition_values(definition_load(data))
    organizers = _organizers(definition["organizers"])
    with transaction.atomic():
        # Locked so two loads of the same slug apply one after the other.
        competition = locked(Competition.objects.filter(slug=definition["competition"]["slug"])).first()
        if competition is not None and create_only:
            raise DefinitionError([f"slug: a competition {competition.slug!r} exists already; choose another slug"],
                                  code="slug-taken", message="the slug is taken")
        if competition is not None:
            definition = _kept(definition, competition)
            if _same_version(competition, definition):
                return competition, []
            _refuse_participant_organizers(competition, organizers)
        fields = definition["competition"]
        created = competition is None
        if not created:
            _refuse_hiding_public(competition, definition, now=timezone.now())
        changes = None if competition is None else definition_changes(definition_current(competition), definition)
        competition = competition or Competition(slug=fields["slug"])
        old_default = default_variant(competition)
        for name, value in fields.items():
            if value is not None or name == "entry_deadline":  # no deadline: the final phase's opening
                setattr(competition, name, value)
        competition.scoring_depth = fields.get("scoring_depth")  # absent: derived (Competition.scored_depth)
        competition.topic_variants = fields.get("topic_variants", [])  # absent: one variant, "default"
        competition.save()
        competition.organizers.set(organizers)
        _apply_structure(competition, definition)
        _apply_variants(competition, old_default=old_default)
        audit_record(competition=competition, actor=actor, action=AuditEvent.Action.COMPETITION_LOADED,
                     summary=f"{'Created' if created else 'Updated'} from definition version {competition.config_version}",
                     details={"version": competition.config_version, "sha256": competition_digest(competition),
                              **({"changes": [c.line() for c in changes]} if changes else {})})
        if changes:
            _audit_public_changes(competition, changes, actor=actor)
            events.send(DefinitionChanged(competition=competition, changes=changes))  # cupboard/flows/definition_changed.py
    return competition, changes


def _kept(definition: dict, competition: Competition) -> dict:
    """The definition as it applies to `competition`: a file without `starts_at` keeps its start."""
    if definition["competition"]["starts_at"] is not None:
        return definition
    return definition | {"competition": definition["competition"] | {"starts_at": competition.starts_at}}


def _same_version(competition: Competition, definition: dict) -> bool:
    """True when the definition is the competition's version and says what it holds now (its
    digest, derived from the rows: true after any edit, competitions/digest.py); refused when it
    is that version or an older one and says something else, each difference named."""
    version = definition["competition"]["config_version"]
    if competition.config_version == version and competition_digest(competition) == definition_digest(definition):
        return True
    if competition.config_version < version:
        return False
    same = competition.config_version == version
    differences = [f"{c.path}: the competition has {shown(c.old)}, this file {shown(c.new)}"
                   for c in definition_changes(definition_current(competition), definition)] if same else []
    raise DefinitionError([f"version: {competition.slug} is at version {competition.config_version}; "
                           f"raise version above it to change it", *differences],
                          code="version-not-bumped" if same else "stale-definition",
                          message="the competition already has this or a newer definition")


def _audit_public_changes(competition: Competition, changes: list[Change], *, actor: User | None) -> None:
    """The dates, limits and metrics a version moved, for everyone (the organizers' entry has them all)."""
    public = [c for c in changes if c.public]
    if public:
        audit_record(competition=competition, actor=actor, action=AuditEvent.Action.DEFINITION_CHANGED,
                     is_public=True, summary=f"Definition version {competition.config_version}: "
                                             + "; ".join(c.line() for c in public),
                     details={"version": competition.config_version, "changes": [c.line() for c in public]})


def _organizers(usernames: list[str]) -> list[User]:
    users = {u.username: u for u in User.objects.filter(username__in=usernames)}
    missing = [f"organizers[{i}]: no user named {name!r}" for i, name in enumerate(usernames) if name not in users]
    if missing:
        raise DefinitionError(missing)
    return [users[name] for name in usernames]


def _refuse_participant_organizers(competition: Competition, organizers: list[User]) -> None:
    """A member of one of its teams never becomes its organizer (competitions/roles.py); the
    competition row is locked, so a team join at this moment waits and is then refused."""
    problems = participant_organizers(competition, organizers)
    if problems:
        raise DefinitionError(problems, code="organizer-in-team", message="an organizer would also be a participant")


def _refuse_hiding_public(competition: Competition, definition: dict, *, now) -> None:
    """A new version may not hide what is public (competitions/schedule.py): a revealed
    group, a shown leaderboard, downloadable judgments, or hashes committed at the start."""
    problems = []
    starts_at = definition["competition"]["starts_at"]
    if starts_at is not None and competition.starts_at <= now < starts_at:
        problems.append("starts_at: the competition has started (hidden judgments' SHA-256 are public); "
                        "it cannot start later")
    if competition.is_published and competition.starts_at <= now and not definition["competition"]["is_published"]:
        problems.append("published: the competition is public and has started; it cannot be unpublished")
    groups = {g.name: g for g in competition.groups.all()}
    for index, spec in enumerate(definition["groups"]):
        group = groups.get(spec["name"])
        refusal = group and group_reveal_refusal(group, reveal_at=spec["reveal_at"], now=now)
        if refusal:
            problems.append(f"groups[{index}].reveal_at: {refusal.message}")
    reveals = {spec["name"]: spec["reveal_at"] for spec in definition["groups"]}
    subsets = {s.code: s for s in competition.subsets.select_related("group")}
    for index, spec in enumerate(definition["subsets"]):
        subset, reveal_at = subsets.get(spec["code"]), reveals.get(spec["group"])
        if subset is None or subset.group.name == spec["group"]:
            continue  # new, or staying in its group
        refusal = subset_move_refusal(subset, to_revealed=reveal_at is None or reveal_at <= now, now=now)
        if refusal:
            problems.append(f"subsets[{index}].group: {refusal.message}")
    phases = {p.slug: p for p in competition.phases.all()}
    for index, spec in enumerate(definition["phases"]):
        phase = phases.get(spec["slug"])
        refusal = phase and phase_schedule_refusal(
            phase, wanted={name: spec[name] for name in PHASE_SCHEDULE_FIELDS}, now=now)
        if refusal:
            problems.append(f"phases[{index}]: {refusal.message}")
    if problems:
        raise DefinitionError(problems, code="hides-public", message="the new version would hide what is public")


def _apply_structure(competition: Competition, definition: dict) -> None:
    groups = {}
    for position, spec in enumerate(definition["groups"]):
        groups[spec["name"]], _ = SubsetGroup.objects.update_or_create(
            competition=competition, name=spec["name"],
            defaults={"label": spec["label"], "reveal_at": spec["reveal_at"], "position": position})
    for position, spec in enumerate(definition["subsets"]):
        Subset.objects.update_or_create(
            competition=competition, code=spec["code"],
            defaults={"name": spec["name"], "kind": spec["kind"], "group": groups[spec["group"]], "position": position})
    for spec in definition["phases"]:
        values = PHASE_BOARD_RULES | {k: v for k, v in spec.items() if k != "slug"}
        values.pop("freeze_days")
        Phase.objects.update_or_create(competition=competition, slug=spec["slug"], defaults=values)
    _drop_missing(competition.phases.exclude(slug__in=[p["slug"] for p in definition["phases"]]), "phases")
    _drop_missing(competition.subsets.exclude(code__in=[s["code"] for s in definition["subsets"]]), "subsets")
    _drop_missing(competition.groups.exclude(name__in=list(groups)), "groups")


def _apply_variants(competition: Competition, *, old_default: str) -> None:
    """The default variant's topics stay the default's when a version renames it (e.g. a competition
    declaring `topic_variants` for the first time: its `default` topics become the first
    variant's); topics of a variant no longer listed are refused as any data is."""
    codes = [v.code for v in variants(competition)]
    topic_sets = TopicSet.objects.filter(phase__competition=competition)
    if old_default not in codes:  # renamed, not reordered: a listed variant keeps its topics
        topic_sets.filter(variant=old_default).update(variant=codes[0])
    orphans = topic_sets.exclude(variant__in=codes).select_related("phase", "subset")
    if orphans:
        raise DefinitionError([f"topic_variants: {t} is no longer listed but holds topics; remove them in the admin"
                               for t in orphans], code="removal-refused")


def _drop_missing(queryset, key: str) -> None:
    """Delete what a new version no longer lists, unless data hangs on it: silently
    cascading away submissions or judgments would be worse than refusing."""
    in_use = [str(obj) for obj in queryset if _has_data(obj)]
    if in_use:
        raise DefinitionError([f"{key}: {name} is no longer listed but holds data; remove it in the admin"
                               for name in in_use], code="removal-refused")
    queryset.delete()


def _has_data(obj) -> bool:
    if isinstance(obj, Phase):
        return obj.submissions.exists() or obj.topic_sets.exists() or obj.qrels_releases.exists()
    if isinstance(obj, Subset):
        return obj.topic_sets.exists() or obj.qrels_files.exists()
    return obj.subsets.exists()


def qrels_release_create(*, phase: Phase, files: Mapping[str, FileSource], actor: User | None,
                         note: str = "", names: dict[str, str] | None = None,
                         progress: Callable[[str, int, int], None] | None = None,
                         warn: Callable[[str], None] | None = None) -> QrelsRelease:
    """Release a new version of a phase's judgments: {subset code: file}.

    Every file is validated with evaluator.io.qrels.read_qrels before anything is stored
    (CompetitionError `invalid-qrels` lists every problem). Subsets not given are carried
    forward from the previous release unchanged. A release identical to the current one is
    not a new version: the current one is returned. `names` gives each file's published
    name; `progress(code, done, total)` is called as files pass validation, `warn(message)`
    once per file whose judged queries include some with no topic in the phase (stored
    anyway: it is the organizers' call, but they hear of it). When the phase already has scored
    or queued submissions, `phase_rescore` (re-)scores them after the commit."""
    from evaluator.io.qrels import read_qrels
    from evaluator.records import InputError

    if not files:
        raise CompetitionError("no-files", "a qrels release needs at least one file")
    names = names or {}
    checked: dict[str, tuple] = {}
    problems: list[Problem] = []
    for done, (code, file) in enumerate(files.items(), start=1):
        subset = subset_of(phase, code)
        content = read_source(file)
        name = names.get(code) or Path(getattr(file, "name", None) or f"qrels.{phase.slug}-{code}.tsv").name
        try:
            qrels = read_qrels(io.BytesIO(content), name=name)
        except InputError as error:
            problems.extend(error.problems)
            continue
        checked[code] = (subset, content, name, qrels)
        untopiced = _judged_without_topics(phase, subset, qrels, name=name)
        if untopiced and warn is not None:
            warn(untopiced)
        if progress is not None:
            progress(code, done, len(files))
    if problems:
        raise CompetitionError("invalid-qrels", "the qrels were not released", problems=problems)
    with removed_on_error() as stored, transaction.atomic():
        # The phase row is the lock that keeps release numbers gap-free under concurrent uploads.
        phase = locked(Phase.objects.select_related("competition")).get(pk=phase.pk)
        previous = phase.qrels_releases.order_by("-number").first()
        carried = {f.subset.code: f for f in previous.files.select_related("subset")} if previous else {}
        digests = {code: hashlib.sha256(item[1]).hexdigest() for code, item in checked.items()}
        if previous and all(code in carried and carried[code].sha256 == digest for code, digest in digests.items()):
            return previous
        release = QrelsRelease.objects.create(phase=phase, number=(previous.number + 1) if previous else 1,
                                              note=note, created_by=actor)
        for code, (subset, content, name, qrels) in checked.items():
            qrels_file = QrelsFile(release=release, subset=subset, original_name=name, sha256=digests[code],
                                   judged_queries=len(qrels.judgments), judgments=len(qrels))
            qrels_file.file.save(name, ContentFile(content), save=False)
            stored.append(qrels_file.file.name)
            qrels_file.save()
        for code, old in carried.items():
            if code not in checked:
                # Same stored file, same hash: an unchanged subset keeps its commitment.
                QrelsFile.objects.create(release=release, subset=old.subset, file=old.file.name,
                                         original_name=old.original_name, sha256=old.sha256,
                                         judged_queries=old.judged_queries, judgments=old.judgments)
        audit_record(competition=phase.competition, actor=actor, action=AuditEvent.Action.QRELS_UPLOADED,
                     summary=f"Qrels v{release.number} of {phase.name}: {len(checked)} new file(s)"
                             + (f" ({note})" if note else ""),
                     details={**named("phase", phase.slug, phase.name), "release": release.number, "release_id": release.pk,
                              "files": {code: digests[code] for code in sorted(checked)}})
        competition_publish_due(competition=phase.competition)
        # The standings before the re-scoring, the leaderboard's version and the re-scoring
        # after the commit: cupboard/flows/qrels_released.py.
        events.send(QrelsReleased(phase=phase, release=release, actor=actor, uploaded=sorted(checked), previous=previous))
    return release



def _judged_without_topics(phase: Phase, subset: Subset, qrels, *, name: str) -> str | None:
    """The warning for a qrels file judging queries that have no topic in the phase (a typo
    in a qid, topics of another phase), or None when every judged query has one."""
    from cupboard.competitions.submitting import topic_ids

    topic_sets = list(TopicSet.objects.filter(phase=phase, subset=subset))
    if not topic_sets:
        return (f"{name}: {phase.slug} has no {subset.code} topics yet, so none of its {len(qrels.judgments)} "
                "judged queries has one (stored anyway; once its topics are uploaded, only the judged queries "
                "among them count).")
    topics = {qid for topic_set in topic_sets for qid in topic_ids(topic_set)}
    missing = [qid for qid in qrels.judgments if qid not in topics]
    if not missing:
        return None
    shown = ids_listed(missing)
    return (f"{name}: {len(missing)} judged quer{'y has' if len(missing) == 1 else 'ies have'} no topic in "
            f"{phase.slug} {subset.code} (stored anyway; they count in no score while they have no topic): "
            f"{shown}.")


def converted_data_import(*, phase: Phase, subset: Subset | str, topics: dict[str, str], qrels,
                          source_name: str, actor: User | None = None) -> tuple[TopicSet, QrelsRelease]:
    """Store topics and judgments read by a benchmark's converter (CLIRMatrix JSON lines,
    LAReQA SQuAD files: `Benchmark.converters`) as TREC files, so everything downstream
    (downloads, scoring, commitments) sees one format. One transaction for both."""
    code = subset_of(phase, subset).code
    stem = Path(source_name).name.split(".")[0]
    with transaction.atomic():
        topic_set = topics_import(phase=phase, subset=code, file=_topics_tsv(topics),
                                  name=f"topics.{stem}-{code}.tsv", actor=actor)
        release = qrels_release_create(phase=phase, files={code: _qrels_tsv(qrels.judgments)}, actor=actor,
                                       names={code: f"qrels.{stem}-{code}.tsv"}, note=f"converted from {source_name}")
    return topic_set, release


def _topics_tsv(topics: dict[str, str]) -> bytes:
    # Tabs and line ends inside a query would break the TSV; they carry no meaning there.
    return "".join(f"{qid}\t{' '.join(text.split())}\n" for qid, text in topics.items()).encode()


def _qrels_tsv(judgments: dict[str, dict[str, int]]) -> bytes:
    return "".join(f"{qid}\tQ0\t{docid}\t{label}\n"
                   for qid, docs in judgments.items() for docid, label in docs.items()).encode()
