"""Storing a phase's topics: every file read and checked before any is stored, each upload a
numbered topics version that keeps the files it replaces, audited, and - once runs were
checked against the queries it changes - refused or followed by their re-scoring, as the
organizer chooses (topics_changes.py says what a change is; flows/topics_changed.py what follows).
"""
from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from pathlib import Path

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.db import transaction

from cupboard import events
from cupboard.audit.details import named
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from cupboard.competitions.errors import CompetitionError
from cupboard.competitions.models import Phase, Subset, TopicSet, TopicsFile, TopicsVersion
from cupboard.competitions.private_files import removed_on_error
from cupboard.competitions.topic_variants import DEFAULT, variants
from cupboard.competitions.topics_changes import REFUSE, RESCORE, TopicsChange, topics_change
from cupboard.competitions.uploads import FileSource, ids_listed, read_source, subset_of
from cupboard.competitions.viewer import Viewer
from cupboard.locking import locked

from .events import TopicsChanged

TopicsKey = str | tuple[str, str]  # a subset code (the default variant), or (subset code, variant code)


def topics_import(*, phase: Phase, subset: Subset | str, file: FileSource, name: str, variant: str | None = None,
                  actor: User | None = None, when_runs: str = REFUSE) -> TopicSet:
    """Store one subset's topics for a phase, as published (e.g. `topics.miracl-v1.0-sw-dev.tsv`),
    as one of the competition's topic variants (None: the default; topic_variants.py).

    `topics_import_files` with one file: a bad file raises CompetitionError `invalid-topics` with
    file:line problems and stores nothing; the same bytes again change nothing."""
    key = (subset_of(phase, subset).code, variant or "")
    return topics_import_files(phase=phase, files={key: file}, names={key: name}, actor=actor, when_runs=when_runs)[0]


def topics_preview(*, phase: Phase, files: Mapping[TopicsKey, FileSource], names: Mapping[TopicsKey, str]
                   ) -> TopicsChange:
    """What `topics_import_files` would do with these files (queries added, removed, changed per
    subset, and the runs it affects), with every check it makes; nothing is stored."""
    read = _topics_read(phase, files, names)
    with transaction.atomic():
        _refuse_different_ids(phase, {key: (name, topics) for key, (_, name, topics) in read.items()})
        return topics_change(phase, {key: (name, topics) for key, (_, name, topics) in read.items()})


def topics_import_files(*, phase: Phase, files: Mapping[TopicsKey, FileSource], names: Mapping[TopicsKey, str],
                        actor: User | None = None, when_runs: str = REFUSE) -> list[TopicSet]:
    """Store several subsets' topics at once ({subset code or (code, variant): file}), all or none,
    as the phase's next topics version (`TopicsVersion`; the files it replaces are kept).

    Every file is read before any is stored, so one bad file (CompetitionError
    `invalid-topics`, listing every file's problems) leaves the phase as it was, as an
    organizer uploading a release folder expects; the variants of a subset, given together or
    already stored, must hold the same query ids (`variant-ids-differ`). A change to queries
    that runs were checked and scored against is refused (`runs-exist`) unless `when_runs` is
    RESCORE: then they are scored again with the new topics after the commit, and the teams
    are told what changed (cupboard/flows/topics_changed.py). The same bytes again change nothing."""
    read = _topics_read(phase, files, names)
    with removed_on_error() as stored, transaction.atomic():
        given = {key: (name, topics) for key, (_, name, topics) in read.items()}
        _refuse_different_ids(phase, given)  # locks the phase's topic sets (2)
        locked(Phase.objects).get(pk=phase.pk)  # then the phase (3): version numbers without gaps
        current = {(t.subset_id, t.variant): t for t in TopicSet.objects.filter(phase=phase).select_related("subset")}
        new = {key: item for key, item in read.items()
               if (old := current.get((key[0].pk, key[1]))) is None or old.sha256 != _sha256(item[0])}
        if not new:
            return [current[subset.pk, variant] for subset, variant in read]
        change = topics_change(phase, {key: given[key] for key in new})
        if change.runs and when_runs != RESCORE:
            raise CompetitionError("runs-exist", f"no topics were stored: {change.runs} run(s) of {phase.name} were "
                                                 "checked and scored against the queries this changes; choose to "
                                                 "score them again with the new topics, or change the topics before "
                                                 "any run is submitted", problems=change.lines())
        version = TopicsVersion.objects.create(phase=phase, number=change.version, created_by=actor,
                                               changes=[f.as_dict() for f in change.files], rescored=bool(change.runs))
        lines = {(f.subset, f.variant): f.line() for f in change.files}
        for (subset, variant), (content, name, topics) in new.items():
            current[subset.pk, variant] = _topics_store(
                phase, subset, variant, version=version, content=content, name=name, count=len(topics), actor=actor,
                stored=stored, line=lines[subset.code, variant], runs=change.runs)
        if change.replaces:
            # The leaderboard's version, the teams' mail and, when chosen, the re-scoring: flows/topics_changed.py.
            events.send(TopicsChanged(phase=phase, version=version, actor=actor, rescore=bool(change.runs)))
        return [current[subset.pk, variant] for subset, variant in read]


def _topics_read(phase: Phase, files: Mapping[TopicsKey, FileSource], names: Mapping[TopicsKey, str]
                 ) -> dict[tuple[Subset, str], tuple[bytes, str, dict[str, str]]]:
    """{(subset, variant): (bytes, name, {qid: query})} of every file, or CompetitionError
    `invalid-topics` naming each bad file's lines and problems (one file: its own error)."""
    if not files:
        raise CompetitionError("no-files", "a topics upload needs at least one file")
    errors: list[CompetitionError] = []
    read: dict[tuple[Subset, str], tuple[bytes, str, dict[str, str]]] = {}
    for given, file in files.items():
        subset, variant = _topics_key(phase, given)
        content, name = read_source(file), names[given]
        try:
            read[subset, variant] = content, name, _read_topics(content, name)
        except CompetitionError as error:
            errors.append(error)
    if len(files) == 1 and errors:
        raise errors[0]  # names the one file
    if errors:
        raise CompetitionError("invalid-topics", "no topics were stored",
                               problems=[problem for error in errors for problem in error.problems])
    return read


def _sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def _topics_key(phase: Phase, given: TopicsKey) -> tuple[Subset, str]:
    code, variant = (given, "") if isinstance(given, str) else given
    known = [v.code for v in variants(phase.competition)]
    if variant and variant not in known:
        raise CompetitionError("unknown-variant", f"{phase.competition.slug} has no topic variant {variant!r} "
                                                  f"(its variants: {', '.join(known)})")
    return subset_of(phase, code), variant or known[0]


def _refuse_different_ids(phase: Phase, new: dict[tuple[Subset, str], tuple[str, dict[str, str]]]) -> None:
    """The variants of a subset are one set of queries written several ways: a run is checked
    against one of them, so each new file is compared with the subset's other variants, given
    alongside or stored (not those it replaces)."""
    from cupboard.competitions.submitting import topic_ids

    subsets = {subset for subset, _ in new}
    others = locked(TopicSet.objects.filter(phase=phase, subset__in=subsets)).select_related("subset")
    compared = {(subset, variant): (name, set(topics)) for (subset, variant), (name, topics) in new.items()}
    for topic_set in others:
        if (topic_set.subset, topic_set.variant) not in compared:
            compared[topic_set.subset, topic_set.variant] = topic_set.original_name, set(topic_ids(topic_set))
    problems = []
    for subset in subsets:
        named = [item for (s, _), item in compared.items() if s == subset]
        (first, ids), rest = named[0], named[1:]
        problems += [_ids_differ(first, ids, name, other) for name, other in rest if other != ids]
    if problems:
        raise CompetitionError("variant-ids-differ", "no topics were stored: the variants of a subset must hold "
                                                     "the same query ids", problems=problems)


def _ids_differ(first: str, ids: set[str], second: str, other: set[str]) -> str:
    parts = [f"{len(qids)} only in {name} ({ids_listed(sorted(qids))})"
             for name, qids in ((first, ids - other), (second, other - ids)) if qids]
    return f"{first} and {second} hold different query ids: " + "; ".join(parts)


def _topics_store(phase: Phase, subset: Subset, variant: str, *, version: TopicsVersion, content: bytes, name: str,
                  count: int, actor: User | None, stored: list[str], line: str, runs: int) -> TopicSet:
    digest = _sha256(content)
    topic_set = TopicSet.objects.filter(phase=phase, subset=subset, variant=variant).first()  # locked by the caller
    replaced = topic_set is not None
    topic_set = topic_set or TopicSet(phase=phase, subset=subset, variant=variant)
    topic_set.original_name, topic_set.sha256, topic_set.query_count = name, digest, count
    topic_set.version = topic_set.version + 1 if replaced else 1  # this file's version: what downloads name
    topic_set.file.save(Path(name).name, ContentFile(content), save=False)  # the old file stays: its version's
    stored.append(topic_set.file.name)
    topic_set.save()
    TopicsFile.objects.create(version=version, subset=subset, variant=variant, file=topic_set.file.name,
                              original_name=name, sha256=digest, query_count=count)
    which = "" if variant == DEFAULT else f" ({variant})"
    rescored = f"; {runs} run(s) to be scored again" if replaced and runs else ""
    audit_record(competition=phase.competition, actor=actor, action=AuditEvent.Action.TOPICS_UPLOADED,
                 summary=f"Topics v{topic_set.version} of {phase.name}/{subset.code}{which}: {count} queries"
                         + (f" ({line.split(': ', 1)[1]}){rescored}" if replaced else ""),
                 details={**named("phase", phase.slug, phase.name), "subset": subset.code, "sha256": digest, "file": name,
                          "version": topic_set.version, "change": line, "change_number": version.number,
                          **({"variant": variant} if variant != DEFAULT else {})},
                 is_public=replaced and Viewer(None, phase.competition).sees_subset(subset))
    return topic_set


def _read_topics(content: bytes, name: str) -> dict[str, str]:
    from evaluator.io.topics import read_topics
    from evaluator.records import InputError

    try:
        return read_topics(io.BytesIO(content), name=name)
    except InputError as error:
        raise CompetitionError("invalid-topics", f"{name} is not a valid topics file",
                               problems=error.problems) from error
