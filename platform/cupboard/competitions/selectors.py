"""Reads about competitions that span relations. What a viewer may see is decided by
their `Viewer` (competitions/viewer.py); these functions only fetch what it allows."""
from collections import defaultdict

from cupboard.competitions.models import Competition, Phase, QrelsFile, QrelsRelease, Subset
from cupboard.competitions.topic_variants import default_variant, variants
from cupboard.competitions.topics_changes import SubsetChange
from cupboard.competitions.viewer import Viewer
from evaluator.benchmarks import ALL
from evaluator.definition import AVG_LABEL

# ALL keys the overall average (the "Avg" column) among the group averages and AVG_LABEL is its
# label, as in the evaluator, whose command line averages a definition's subsets the same way.


def subset_groups(subsets) -> dict[str, list[str]]:
    """{group name: [subset codes]} plus "all": the averages a row carries."""
    groups: dict[str, list[str]] = defaultdict(list)
    for subset in subsets:
        groups[subset.group.name].append(subset.code)
    groups[ALL] = [subset.code for subset in subsets]
    return dict(groups)


def averaged_groups(subsets, *, every) -> list:
    """The groups of `subsets` with an average column of their own (K.Avg, S.Avg), in order.
    None on a single-average board, where one group holds every subset of the competition
    (`every`: Mr. TyDi's `all`, subsets defined without groups): its average is Avg itself,
    and two columns would show it twice ("Avg | Avg")."""
    if len({subset.group_id for subset in every}) < 2:
        return []
    groups = {subset.group_id: subset.group for subset in subsets if subset.group.name != ALL}
    return sorted(groups.values(), key=lambda group: (group.position, group.name))


SUBSET_NOUNS = {Subset.Kind.LANGUAGE: "languages", Subset.Kind.PAIR: "language pairs",
                Subset.Kind.TEST_SET: "test sets"}


def ranking_rule(viewer: Viewer) -> dict:
    """What the leaderboards rank by, read from the definition (primary metric, subsets,
    groups) so the competition page says what the table does: a description written by hand
    said "MRR@10 on the in-domain set" of a board ranked by Avg over four test sets.
    Only the viewer's subsets and groups are described (a hidden group is not named)."""
    competition, subsets = viewer.competition, viewer.subsets
    nouns = list(dict.fromkeys(SUBSET_NOUNS.get(subset.kind, "subsets") for subset in subsets)) or ["subsets"]
    groups = averaged_groups(subsets, every=viewer.all_subsets)
    return {
        "metric": competition.primary_metric,
        "noun": " and ".join(nouns),
        "label": AVG_LABEL,
        "groups": [group.heading for group in groups],
        "reported": [metric for metric in competition.metrics if metric != competition.primary_metric],
    }


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


def earlier_judgments(phase: Phase) -> dict[str, list[QrelsFile]]:
    """subset code -> the current qrels files of the phases `phase.residual_of` names, in
    their order: what a residual phase removes from its runs (evaluator/residual.py). A named
    phase without judgments yet removes nothing."""
    found: dict[str, list[QrelsFile]] = {}
    for slug in phase.residual_of or ():
        earlier = phase.competition.phases.filter(slug=slug).first()
        release = current_qrels_release(earlier) if earlier is not None else None
        for code, qrels_file in sorted(qrels_files(release).items()) if release is not None else ():
            found.setdefault(code, []).append(qrels_file)
    return found


def phase_downloads(viewer: Viewer) -> list[dict]:
    """Per phase, the topics and qrels files this viewer may download, for the detail page:
    files of the subsets they see, topics once `sees_topics`, qrels once `sees_qrels`."""
    rows = []
    order = {v.code: index for index, v in enumerate(variants(viewer.competition))}
    for phase in viewer.competition.phases.prefetch_related("topic_sets__subset", "qrels_releases__files__subset"):
        topics = []
        if viewer.sees_topics(phase):
            topics = sorted((t for t in phase.topic_sets.all() if viewer.sees_subset(t.subset)),
                            key=lambda t: (t.subset.position, t.subset.code, order.get(t.variant, len(order))))
        release = max(phase.qrels_releases.all(), key=lambda r: r.number, default=None)
        qrels = []
        if release is not None and viewer.sees_qrels(phase):
            qrels = sorted((f for f in release.files.all() if viewer.sees_subset(f.subset)),
                           key=lambda f: f.subset.position)
        rows.append({"phase": phase, "topics": topics, "release": release, "qrels": qrels,
                     "by_subset": _by_subset(topics), "variants": len(order) > 1})
    return rows


def phase_topic_files(viewer: Viewer, phase: Phase) -> list:
    """The topics files of one phase this viewer may download (every variant), in order."""
    return next((row["topics"] for row in phase_downloads(viewer) if row["phase"].pk == phase.pk), [])


def _by_subset(topics: list) -> list[dict]:
    """[{subset, query_count, topic_sets}] in order: a subset's variants side by side."""
    found: dict[int, dict] = {}
    for topic_set in topics:
        entry = found.setdefault(topic_set.subset_id, {"subset": topic_set.subset, "query_count": topic_set.query_count,
                                                       "topic_sets": []})
        entry["topic_sets"].append(topic_set)
    return list(found.values())


def downloadable_qrels_file(viewer: Viewer, phase: Phase, *, number: int, code: str) -> QrelsFile | None:
    """A qrels file this viewer may fetch, or None: unknown, hidden and not-yet-public look alike."""
    qrels_file = (QrelsFile.objects.select_related("subset__group", "subset__competition", "release")
                  .filter(release__phase=phase, release__number=number, subset__code=code).first())
    if qrels_file is None or not viewer.sees_subset(qrels_file.subset) or not viewer.sees_qrels(phase):
        return None
    return qrels_file


def downloadable_topic_set(viewer: Viewer, phase: Phase, *, code: str, variant: str | None = None):
    """A topics file this viewer may fetch (`variant` None: the default one), or None (same 404
    for unknown and hidden)."""
    topic_set = (phase.topic_sets.select_related("subset__group", "subset__competition")
                 .filter(subset__code=code, variant=variant or default_variant(viewer.competition)).first())
    if topic_set is None or not viewer.sees_subset(topic_set.subset) or not viewer.sees_topics(phase):
        return None
    return topic_set


def commitments(viewer: Viewer) -> list[dict]:
    """Every hidden-qrels file's SHA-256, by phase and version, from the competition's start
    (organizers: always). Subsets still hidden show no code and sort by hash."""
    if not viewer.sees_commitments():
        return []
    rows = []
    files = (QrelsFile.objects.filter(release__phase__competition=viewer.competition, release__phase__hidden_qrels=True)
             .select_related("release__phase", "subset__group"))
    for f in files:
        shown = viewer.sees_subset(f.subset)
        rows.append({"phase": f.release.phase, "release": f.release, "subset": f.subset if shown else None,
                     "sha256": f.sha256, "downloadable": shown and viewer.sees_qrels(f.release.phase)})
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
        order = {v.code: index for index, v in enumerate(variants(competition))}
        topics: dict[int, list] = defaultdict(list)  # a subset's files, one per topic variant
        for topic_set in sorted(phase.topic_sets.all(), key=lambda t: order.get(t.variant, len(order))):
            topics[topic_set.subset_id].append(topic_set)
        release = max(phase.qrels_releases.all(), key=lambda r: r.number, default=None)
        qrels = {f.subset_id: f for f in release.files.all()} if release else {}
        rows.append({"phase": phase, "release": release, "statuses": statuses.get(phase.pk, {}),
                     "releases": sorted(phase.qrels_releases.all(), key=lambda r: -r.number),
                     "variants": len(order) > 1,
                     "subsets": [{"subset": s, "topics": topics.get(s.pk, []), "qrels": qrels.get(s.pk)}
                                 for s in subsets]})
    return rows


def topics_history(phase: Phase) -> list[dict]:
    """Every recorded change of a phase's topics, newest first: [{version, lines, files}] with
    each change's lines (competitions/topics_changes.py) and the files it stored, replaced since
    or not (the organizer area lists them, each downloadable)."""
    versions = phase.topics_versions.select_related("created_by").prefetch_related("files__subset").order_by("-number")
    return [{"version": version, "lines": [SubsetChange(**change).line() for change in version.changes],
             "files": sorted(version.files.all(), key=lambda f: (f.subset.position, f.subset.code, f.variant))}
            for version in versions]
