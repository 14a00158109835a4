"""Small factory functions for tests: real rows, sensible defaults, keyword arguments.

No factory library: each function is a few lines a reader can check. Dates default to
instants relative to `timezone.now()` at call time, so a test that moves the clock with
`time_machine` can reason about "before/after the reveal" without fixed calendars.

Default competition (`make_competition`), MIRACL-like:
    groups   known (K.Avg, visible) = sw, te;  surprise (S.Avg, reveal_at = now + 10 days) = yo
    phases   dev    open now-10d .. now+20d, live, qrels visible
             test-b open now-1d  .. now+20d, private until now+30d, hidden qrels, final
    teams    may form until now+20d (`entry_deadline`; without one, entry would have closed when
             test-b opened); tests of the entry deadline pass `entry_deadline=None` or an instant
"""
from __future__ import annotations

import hashlib
import itertools
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.core.files.base import ContentFile
from django.utils import timezone

from cupboard.accounts.lookalikes import name_key
from cupboard.competitions.models import Competition, Phase, QrelsFile, QrelsRelease, Subset, SubsetGroup, TopicSet
from cupboard.teams.models import Membership, Team

_serial = itertools.count(1)

LANGUAGE_NAMES = {"ar": "Arabic", "bn": "Bengali", "de": "German", "en": "English", "es": "Spanish",
                  "fa": "Persian", "fi": "Finnish", "fr": "French", "hi": "Hindi", "id": "Indonesian",
                  "ja": "Japanese", "ko": "Korean", "ru": "Russian", "sw": "Swahili", "te": "Telugu",
                  "th": "Thai", "yo": "Yoruba", "zh": "Chinese"}


def _next() -> int:
    return next(_serial)


def make_user(username: str | None = None, *, password: str = "password", is_staff: bool = False,
              is_superuser: bool = False, email: str | None = None) -> User:
    """A user who can log in with `password` (the test settings hash it cheaply)."""
    username = username or f"user{_next()}"
    return User.objects.create_user(username=username, password=password, email=email or f"{username}@example.org",
                                    is_staff=is_staff, is_superuser=is_superuser)


def make_phase(competition: Competition, *, slug: str | None = None, name: str | None = None,
               position: int | None = None, opens_at: datetime | None = None, closes_at: datetime | None = None,
               visibility: str = Phase.Visibility.LIVE, reveal_at: datetime | None = None,
               hidden_qrels: bool = False, per_query_visible: bool = True, daily_limit: int | None = None,
               total_limit: int | None = None, is_final: bool = False, ranking: str | None = None) -> Phase:
    """A phase open from yesterday for twenty days, live, unless told otherwise; ranked by
    each team's best run, or on a final phase by the runs it selects (as the YAML defaults)."""
    now = timezone.now()
    slug = slug or f"phase-{_next()}"
    if position is None:
        position = competition.phases.count()
    opens_at = opens_at or now - timedelta(days=1)
    return Phase.objects.create(
        competition=competition, slug=slug, name=name or slug, position=position, opens_at=opens_at,
        closes_at=closes_at or max(opens_at, now) + timedelta(days=20), visibility=visibility,
        reveal_at=reveal_at, hidden_qrels=hidden_qrels, per_query_visible=per_query_visible,
        daily_limit=daily_limit, total_limit=total_limit, is_final=is_final,
        ranking=ranking or (Phase.Ranking.SELECTED if is_final else Phase.Ranking.BEST))


def make_competition(*, slug: str | None = None, title: str | None = None, benchmark: str = "miracl",
                     organizers: list[User] = (), known: list[str] = ("sw", "te"), surprise: list[str] = ("yo",),
                     surprise_reveal_at: datetime | None = None, starts_at: datetime | None = None,
                     phases: bool = True, is_published: bool = True, **fields) -> Competition:
    """A competition with a known and a surprise group, their subsets, and (unless
    `phases=False`) the phases `dev` and `test-b` described in the module docstring."""
    now = timezone.now()
    slug = slug or f"cup-{_next()}"
    fields.setdefault("entry_deadline", now + timedelta(days=20))
    competition = Competition.objects.create(
        slug=slug, title=title or f"Cup {slug}", benchmark=benchmark, metrics=fields.pop("metrics", ["nDCG@10", "R@100"]),
        starts_at=starts_at or now - timedelta(days=10), is_published=is_published, **fields)
    competition.organizers.set(organizers)
    known_group = SubsetGroup.objects.create(competition=competition, name="known", label="K.Avg", position=0)
    position = itertools.count()
    for code in known:
        make_subset(competition, group=known_group, code=code, position=next(position))
    if surprise:
        surprise_group = SubsetGroup.objects.create(
            competition=competition, name="surprise", label="S.Avg", position=1,
            reveal_at=surprise_reveal_at or now + timedelta(days=10))
        for code in surprise:
            make_subset(competition, group=surprise_group, code=code, position=next(position))
    if phases:
        make_phase(competition, slug="dev", name="Development", position=0, opens_at=now - timedelta(days=10),
                   closes_at=now + timedelta(days=20))
        make_phase(competition, slug="test-b", name="Test B (final)", position=1, opens_at=now - timedelta(days=1),
                   closes_at=now + timedelta(days=20), visibility=Phase.Visibility.PRIVATE,
                   reveal_at=now + timedelta(days=30), hidden_qrels=True, per_query_visible=False,
                   daily_limit=5, is_final=True)
    return competition


def make_subset(competition: Competition, *, group: SubsetGroup | str = "known", code: str | None = None,
                name: str | None = None, kind: str = Subset.Kind.LANGUAGE, position: int = 0) -> Subset:
    if isinstance(group, str):
        group = competition.groups.get(name=group)
    code = code or f"x{_next()}"
    return Subset.objects.create(competition=competition, group=group, code=code,
                                 name=name or LANGUAGE_NAMES.get(code, code), kind=kind, position=position)


def make_team(competition: Competition, *, name: str | None = None, members: list[User] = ()) -> Team:
    """A team with its members (the first one counts as its creator)."""
    name = name or f"Team {_next()}"
    team = Team.objects.create(competition=competition, name=name, name_key=name_key(name),
                               slug=name.lower().replace(" ", "-"),
                               created_by=members[0] if members else None)
    for user in members:
        Membership.objects.create(competition=competition, team=team, user=user)
    return team


def _subset(phase: Phase, subset: Subset | str) -> Subset:
    return subset if isinstance(subset, Subset) else phase.competition.subsets.get(code=subset)


def make_topics(phase: Phase, subset: Subset | str, qids: list[str] | dict[str, str], *,
                variant: str = "default") -> TopicSet:
    """A topics file in MIRACL's layout (`qid<TAB>query`); `qids` may map qid -> query text."""
    subset = _subset(phase, subset)
    queries = qids if isinstance(qids, dict) else {str(q): f"query {q}" for q in qids}
    content = "".join(f"{qid}\t{text}\n" for qid, text in queries.items()).encode()
    which = "" if variant == "default" else f".{variant}"
    name = f"topics.{phase.competition.slug}-{subset.code}-{phase.slug}{which}.tsv"
    topic_set = TopicSet(phase=phase, subset=subset, original_name=name, query_count=len(queries),
                         sha256=hashlib.sha256(content).hexdigest(), variant=variant)
    topic_set.file.save(name, ContentFile(content), save=True)
    return topic_set


def qrels_text(judgments: dict[str, dict[str, int]]) -> bytes:
    """TREC qrels lines (`qid Q0 docid label`), tab-separated as MIRACL publishes them."""
    return "".join(f"{qid}\tQ0\t{docid}\t{label}\n"
                   for qid, docs in judgments.items() for docid, label in docs.items()).encode()


def make_qrels_release(phase: Phase, files: dict[str, dict[str, dict[str, int]]], *, number: int | None = None,
                       created_by: User | None = None, note: str = "") -> QrelsRelease:
    """A qrels release written straight to the database: {subset code: {qid: {docid: label}}}.

    It skips the validating service on purpose (fast, no evaluator needed); tests of
    `qrels_release_create` itself call the service."""
    if number is None:
        number = (phase.qrels_releases.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    release = QrelsRelease.objects.create(phase=phase, number=number, note=note, created_by=created_by)
    for code, judgments in files.items():
        content = qrels_text(judgments)
        name = f"qrels.{phase.competition.slug}-{code}-{phase.slug}.tsv"
        qrels_file = QrelsFile(release=release, subset=_subset(phase, code), original_name=name,
                               sha256=hashlib.sha256(content).hexdigest(), judged_queries=len(judgments),
                               judgments=sum(len(d) for d in judgments.values()))
        qrels_file.file.save(name, ContentFile(content), save=True)
    return release


def stored_private_files(containing: str) -> list[str]:
    """Files in private storage whose names contain `containing`: a test gives its files a
    name of their own, so tests running beside it (pytest -n) do not disturb the count."""
    from pathlib import Path

    from cupboard.competitions.models import private_storage

    return [str(p) for p in Path(private_storage().location).rglob(f"*{containing}*") if p.is_file()]


# Run metadata as a competition's YAML writes it (competitions/run_metadata.py), for tests.
RUN_METADATA = [
    {"name": "run_type", "label": "Run type", "type": "choice", "required": True,
     "choices": [{"value": "automatic", "label": "Automatic"}, {"value": "manual", "label": "Manual"}]},
    {"name": "zero_shot", "label": "Zero-shot", "type": "boolean", "required": True,
     "help": "No MIRACL training data used"},
    {"name": "model", "label": "Model", "type": "text"},
    {"name": "parameters_m", "label": "Parameters (M)", "type": "integer"},
    {"name": "code", "label": "Code", "type": "url", "leaderboard": False},
]


def set_run_metadata(competition: Competition, specs: list[dict] = RUN_METADATA) -> Competition:
    """Give `competition` these run-metadata fields, checked as the YAML's are."""
    from cupboard.competitions.definition import run_metadata_specs

    competition.run_metadata = run_metadata_specs(specs)
    competition.save(update_fields=["run_metadata"])
    return competition


def set_topic_variants(competition: Competition, variants: dict[str, str]) -> Competition:
    """Give `competition` these topic variants ({code: name}, the default first), moving its
    default topics to the first, as loading a YAML that declares them does."""
    competition.topic_variants = [{"code": code, "name": name} for code, name in variants.items()]
    competition.save(update_fields=["topic_variants"])
    TopicSet.objects.filter(phase__competition=competition, variant="default").update(variant=next(iter(variants)))
    return competition
