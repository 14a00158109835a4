"""Reads about competitions that span relations. Everything that decides what a viewer
may see of a competition's subsets goes through here, so surprise languages stay hidden
in one place."""
from django.utils import timezone

from cupboard.competitions.models import Competition, Phase, QrelsFile, QrelsRelease, Subset


def is_competition_visible(competition: Competition, *, user) -> bool:
    """Published competitions are for everyone; a draft only for the organizers preparing it."""
    return competition.is_published or competition.is_organizer(user)


def visible_subsets(competition: Competition, *, now=None, user=None) -> list[Subset]:
    """Subsets whose group is revealed at `now`; organizers see all of them."""
    subsets = list(competition.subsets.select_related("group").order_by("position", "code"))
    if user is not None and competition.is_organizer(user):
        return subsets
    now = now or timezone.now()
    return [s for s in subsets if s.group.is_revealed(now)]


def phase_subsets(phase: Phase, subsets: list[Subset]) -> list[Subset]:
    """Those of `subsets` that `phase` has: the ones with topics in it (MIRACL's Test A has
    11 of the 18 languages). Columns, K.Avg / S.Avg / Avg and ranks count only these, so a
    language a phase never had neither divides its averages nor shows an empty column; a
    group with none of them has no average. A phase without any topics yet has them all."""
    with_topics = set(phase.topic_sets.values_list("subset_id", flat=True))
    return [s for s in subsets if s.pk in with_topics] if with_topics else list(subsets)


def current_qrels_release(phase: Phase) -> QrelsRelease | None:
    """The newest judgments of a phase, which scoring uses."""
    return phase.qrels_releases.order_by("-number").first()


def qrels_files(release: QrelsRelease) -> dict[str, QrelsFile]:
    """subset code -> its qrels file in a release."""
    return {f.subset.code: f for f in release.files.select_related("subset")}


def is_subset_visible(subset: Subset, *, now=None, user=None) -> bool:
    """One subset's visibility, by the same rule as `visible_subsets`."""
    if user is not None and subset.competition.is_organizer(user):
        return True
    return subset.group.is_revealed(now or timezone.now())


def hidden_group_notices(competition: Competition, *, now=None, user=None) -> list[dict]:
    """What a viewer may know of groups still hidden: how many subsets and when they are
    announced, nothing else (no code, name, or per-phase count)."""
    if user is not None and competition.is_organizer(user):
        return []
    now = now or timezone.now()
    notices = []
    for group in competition.groups.all():
        if group.is_revealed(now):
            continue
        kinds = list(group.subsets.values_list("kind", flat=True))
        if kinds:
            noun = _KIND_NOUNS.get(kinds[0], ("subset", "subsets"))[len(kinds) != 1]
            notices.append({"text": f"{len(kinds)} {group.name} {noun}", "reveal_at": group.reveal_at})
    return notices


_KIND_NOUNS = {Subset.Kind.LANGUAGE: ("language", "languages"), Subset.Kind.PAIR: ("language pair", "language pairs"),
               Subset.Kind.TEST_SET: ("test set", "test sets")}


def phase_downloads(competition: Competition, *, now=None, user=None) -> list[dict]:
    """Per phase, the topics and qrels files this viewer may download, for the detail page.

    Topics: subsets the viewer sees, once the phase has opened (organizers: always).
    Qrels: the current release's files once `Phase.qrels_are_public` (organizers: always)."""
    now = now or timezone.now()
    organizer = user is not None and competition.is_organizer(user)
    visible = {s.pk for s in visible_subsets(competition, now=now, user=user)}
    rows = []
    for phase in competition.phases.prefetch_related("topic_sets__subset", "qrels_releases__files__subset"):
        topics = sorted((t for t in phase.topic_sets.all() if t.subset_id in visible), key=lambda t: t.subset.position)
        if not organizer and now < phase.opens_at:
            topics = []
        release = max(phase.qrels_releases.all(), key=lambda r: r.number, default=None)
        qrels = []
        if release is not None and (organizer or phase.qrels_are_public(now)):
            qrels = sorted((f for f in release.files.all() if f.subset_id in visible), key=lambda f: f.subset.position)
        rows.append({"phase": phase, "topics": topics, "release": release, "qrels": qrels})
    return rows


def downloadable_qrels_file(phase: Phase, *, number: int, code: str, now=None, user=None) -> QrelsFile | None:
    """A qrels file this viewer may fetch, or None: unknown, hidden and not-yet-public look alike."""
    qrels_file = (QrelsFile.objects.select_related("subset__group", "subset__competition", "release")
                  .filter(release__phase=phase, release__number=number, subset__code=code).first())
    if qrels_file is None or not is_subset_visible(qrels_file.subset, now=now, user=user):
        return None
    if (user is not None and phase.competition.is_organizer(user)) or phase.qrels_are_public(now):
        return qrels_file
    return None


def downloadable_topic_set(phase: Phase, *, code: str, now=None, user=None):
    """A topics file this viewer may fetch, or None (same 404 for unknown and hidden)."""
    topic_set = phase.topic_sets.select_related("subset__group", "subset__competition").filter(subset__code=code).first()
    if topic_set is None or not is_subset_visible(topic_set.subset, now=now, user=user):
        return None
    if user is not None and phase.competition.is_organizer(user):
        return topic_set
    return topic_set if (now or timezone.now()) >= phase.opens_at else None


def commitments(competition: Competition, *, now=None, user=None) -> list[dict]:
    """Every hidden-qrels file's SHA-256, by phase and version, from the competition's start
    (organizers: always). Subsets still hidden show no code and sort by hash."""
    now = now or timezone.now()
    organizer = user is not None and competition.is_organizer(user)
    if not organizer and now < competition.starts_at:
        return []
    rows = []
    files = (QrelsFile.objects.filter(release__phase__competition=competition, release__phase__hidden_qrels=True)
             .select_related("release__phase", "subset__group"))
    for f in files:
        shown = organizer or f.subset.group.is_revealed(now)
        rows.append({"phase": f.release.phase, "release": f.release, "subset": f.subset if shown else None,
                     "sha256": f.sha256, "downloadable": organizer or (shown and f.release.phase.qrels_are_public(now))})
    rows.sort(key=lambda r: (r["phase"].position, -r["release"].number, r["subset"] is None,
                             r["subset"].position if r["subset"] else r["sha256"]))
    return rows


def organizer_overview(competition: Competition) -> list[dict]:
    """Per phase, what an organizer checks before and during it: each subset's topics and
    current judgments (counts and SHA-256, hidden subsets included) and how many
    submissions are in each state. For the organizer area only: it shows everything."""
    from django.db.models import Count

    subsets = list(competition.subsets.select_related("group").order_by("position", "code"))
    statuses: dict[int, dict[str, int]] = {}
    for phase_id, status, count in (competition.phases.filter(submissions__isnull=False)
                                    .values_list("pk", "submissions__status").annotate(n=Count("submissions"))
                                    .order_by("pk", "submissions__status")):
        statuses.setdefault(phase_id, {})[status] = count
    rows = []
    for phase in competition.phases.prefetch_related("topic_sets", "qrels_releases__files"):
        topics = {t.subset_id: t for t in phase.topic_sets.all()}
        release = max(phase.qrels_releases.all(), key=lambda r: r.number, default=None)
        qrels = {f.subset_id: f for f in release.files.all()} if release else {}
        rows.append({"phase": phase, "release": release, "statuses": statuses.get(phase.pk, {}),
                     "releases": sorted(phase.qrels_releases.all(), key=lambda r: -r.number),
                     "subsets": [{"subset": s, "topics": topics.get(s.pk), "qrels": qrels.get(s.pk)}
                                 for s in subsets]})
    return rows
