"""Leaderboards as one viewer may see them.

The rules (phase visibility, surprise subsets and their group averages, rounding, which
rows link to a submission) are the viewer's (competitions/viewer.py); this module applies
its answers to the stored rows. Pages, charts and exports render what `leaderboard_for`
returns and read nothing else. Nothing per query is ever read.

Decision on the overall average ("Avg") before a surprise reveal: for non-organizers it is
the mean over the revealed subsets only (with the competition's missing-subset rule);
otherwise the Avg itself would leak that hidden columns exist and how teams did on them.
Organizers always see the stored averages over every subset. Ranks shown always follow the
Avg column shown, so the order never contradicts the numbers (the stored ranks are the
same whenever the rows were refreshed after the last reveal).

Run metadata (competitions/run_metadata.py) is shown for the rows shown: a row's metadata is
that of its counted submission, as visible as the row itself. A filter (`?meta_<name>=value`)
keeps the rows whose counted submission carries the value, with the ranks of the whole
leaderboard; it never brings up another run of a team (a run the team did not put on the
board would have its scores published), and a leaderboard the viewer may not see is not
filtered at all: no rows, no counts. Only the official results, frozen at a reveal, list every
counted run (`every_run`), as a TREC overview does.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from cupboard.competitions.models import Competition, Phase, Subset
from cupboard.competitions.run_metadata import (
    PREFIX,
    MetadataField,
    filter_query,
    filters_from_query,
    matches,
    metadata_current,
    metadata_fields,
)
from cupboard.competitions.selectors import ALL, AVG_LABEL, averaged_groups, current_qrels_release, phase_subsets
from cupboard.competitions.viewer import Viewer
from cupboard.leaderboards.bands import bands_updating
from cupboard.leaderboards.every_run import other_run_rows
from cupboard.leaderboards.history import Seen, ranked_points, rows_at
from cupboard.leaderboards.ranking import order_key
from cupboard.leaderboards.rows import BoardRow, live_rows
from cupboard.leaderboards.staleness import rows_are_stale
from cupboard.leaderboards.standings import REVEALED_ALL, band_settings
from cupboard.submissions.steps import StepProgress, step_progress
from evaluator.rank_bands import Standing


@dataclass(frozen=True, slots=True)
class Column:
    """One column of scores: a subset (`is_average` False, key = its code) or an average
    (key = a group name, or "all" for Avg)."""

    key: str
    label: str
    title: str
    is_average: bool = False
    kind: str = "average"


@dataclass(frozen=True, slots=True)
class Entry:
    """One row as the viewer sees it; values already filtered and rounded for them."""

    rank: int | None
    team: str
    method: str
    is_baseline: bool
    is_own: bool
    url: str | None
    submitted_at: datetime
    qrels_version: int | None
    values: dict[str, dict[str, float]]
    averages: dict[str, dict[str, float | None]]
    metadata: dict = field(default_factory=dict)  # {name: stored value} of the fields shown as columns
    metadata_cells: tuple[str, ...] = ()  # the same in words, in column order ("" = not given)
    standings: dict[str, Standing] = field(default_factory=dict)  # by column key, primary metric only
    submission_id: int | None = None  # the counted run: the frozen snapshot keeps its per-query values
    board_row: bool = True  # False: another run of its team (unranked), listed only with `every_run` (every_run.py)

    def cell(self, column: Column, metric: str) -> float | None:
        source = self.averages if column.is_average else self.values
        return source.get(column.key, {}).get(metric)

    @property
    def overall(self) -> Standing | None:
        """Its standing on the Avg column, the one the table is ranked by."""
        return self.standings.get(ALL)


@dataclass(frozen=True, slots=True)
class Bands:
    """How the rank bands shown were tested, for the note under the table and the exports."""

    test: str
    correction: str
    alpha: float
    trials: int
    samples: int
    seed: int
    updating: bool = False  # runs scored since they were computed: these are the last bands, new ones coming

    @property
    def confidence(self) -> int:
        return round(100 * (1 - self.alpha))

    @property
    def test_name(self) -> str:
        return "paired t-test" if self.test == "t-test" else f"paired randomization test ({self.trials:,} trials)"

    @property
    def correction_name(self) -> str:
        return {"holm": "Holm-Bonferroni", "bonferroni": "Bonferroni", "none": "no"}[self.correction]

    def as_dict(self) -> dict:
        return {"test": self.test, "correction": self.correction, "alpha": self.alpha, "trials": self.trials,
                "bootstrap_samples": self.samples, "seed": self.seed, "averages": AVERAGES_TESTED,
                "updating": self.updating}


# How averages are tested, said on the page and in the JSON export.
AVERAGES_TESTED = ("averages over several subsets are tested on the per-query values of all their subsets "
                   "together (queries are the units, each subset weighing as in the average)")


@dataclass(frozen=True)
class Leaderboard:
    competition: Competition
    phase: Phase
    is_organizer: bool
    exists: bool = True
    visible: bool = False
    message: str = ""
    notices: list[str] = field(default_factory=list)
    subset_columns: list[Column] = field(default_factory=list)
    average_columns: list[Column] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    qrels_version: int | None = None
    mixed_qrels: bool = False
    rounded_to: int | None = None
    decimals: int = 3  # digits shown on the page and charts
    stale: bool = False  # refreshed before a group's reveal: its counted submissions may change
    as_of: datetime | None = None  # the rows as they stood then (leaderboards/history.py); None = now
    frozen_since: datetime | None = None  # the public board stands still at this instant (Phase.freeze_at)
    rescoring: StepProgress | None = None  # being re-scored: the rows are those from before (leaderboards/rescoring.py)
    metadata_columns: list[MetadataField] = field(default_factory=list)
    filter_fields: list[MetadataField] = field(default_factory=list)  # choice and yes/no fields
    filters: dict[str, str] = field(default_factory=dict)  # {name: value} applied to the entries
    every_run: bool = False  # one entry per counted run (the official results); ranks are still the teams' 
    unfiltered_count: int = 0  # rows before the filter (all of them visible to this viewer)

    @property
    def filter_query(self) -> str:
        """The filter as a query string, for links that must keep it (exports, metrics)."""
        return filter_query(self.filters)

    @property
    def filter_menus(self) -> list[tuple[MetadataField, list[tuple[str, str, bool]]]]:
        """Each filterable field with its (value, label, selected) options, for the filter form."""
        return [(f, [(value, label, self.filters.get(f.name) == value) for value, label in f.options])
                for f in self.filter_fields]

    @property
    def filter_text(self) -> str:
        """"Training data: Zero-shot; Run type: Automatic", for the notice above a filtered table."""
        by_name = {f.name: f for f in self.filter_fields}
        return "; ".join(f"{by_name[n].label}: {dict(by_name[n].options)[v]}" for n, v in self.filters.items())
    bands: Bands | None = None  # rank bands and intervals shown (None: not to this viewer, or none computed)

    @property
    def metrics(self) -> list[str]:
        return list(self.competition.metrics) or [self.competition.primary_metric]

    @property
    def primary_metric(self) -> str:
        return self.competition.primary_metric

    @property
    def columns(self) -> list[Column]:
        """Averages first: they are what people compare, and 18 language columns overflow a screen."""
        return self.average_columns + self.subset_columns

    def table(self, metric: str) -> list[tuple[Entry, list[tuple[Column, float | None, Standing | None]]]]:
        """Rows with their (column, value, standing) cells for `metric`, in the order of
        `columns`; standings (rank band, interval) are the primary metric's only."""
        columns, primary = self.columns, metric == self.primary_metric
        return [(entry, [(c, entry.cell(c, metric), entry.standings.get(c.key) if primary else None)
                         for c in columns]) for entry in self.entries]


def _columns(subsets: list[Subset], every: list[Subset]) -> tuple[list[Column], list[Column]]:
    """(subset columns, average columns) of the subsets shown; `every`: the competition's."""
    subset_columns = [Column(key=s.code, label=s.code, title=s.name, kind=s.kind) for s in subsets]
    average_columns = [Column(key=g.name, label=g.label, title=f"Average over {g.name}", is_average=True)
                       for g in averaged_groups(subsets, every=every)]
    average_columns.append(Column(key=ALL, label=AVG_LABEL, title="Average over every subset shown", is_average=True))
    return subset_columns, average_columns


def _visible_averages(row: BoardRow, *, codes: list[str], group_names: list[str], partial: bool,
                      missing: str) -> dict:
    """The row's averages the viewer sees, unrounded: its groups', and an Avg over the subsets
    they see (recomputed while a group is hidden from them)."""
    averages = {name: row.averages.get(name, {}) for name in group_names}
    if partial:
        from evaluator.aggregate import group_means

        values = {code: row.values[code] for code in codes if code in row.values}
        averages[ALL] = group_means(values, {ALL: codes}, missing=missing)[ALL]
    else:
        averages[ALL] = row.averages.get(ALL, {})
    return averages


def _standings(row: BoardRow, *, viewer: Viewer, keys: list[str], partial: bool) -> dict[str, Standing]:
    """The row's stored standings on the columns the viewer sees, intervals rounded for them;
    the Avg of a viewer who does not see every group is the one over the revealed subsets."""
    stored = dict(row.standings)
    if partial:
        stored[ALL] = stored.get(REVEALED_ALL, {})
    found = {}
    for key in keys:
        s = stored.get(key)
        if s:
            found[key] = Standing(low=s["low"], high=s["high"], tier=s["tier"],
                                  ci_low=viewer.rounded(s["ci"][0]), ci_high=viewer.rounded(s["ci"][1]))
    return found


def _notices(viewer: Viewer, phase: Phase, subsets: list[Subset]) -> list[str]:
    """`subsets`: all the phase has, hidden ones included (the viewer's notices say what is hidden)."""
    if not viewer.is_organizer:
        return [str(notice) for notice in viewer.hidden_groups_among(subsets)]
    now = viewer.now
    notices = [f"{s.code} ({s.group.label}) is shown to organizers only until {s.group.reveal_at:%Y-%m-%d %H:%M} UTC."
               for s in subsets if not s.group.is_revealed(now)]
    if not phase.is_revealed(now):
        notices.insert(0, "Only organizers see this leaderboard. " + viewer.closed_message(phase))
    return notices


def _entries(rows: list[BoardRow], *, phase: Phase, viewer: Viewer, subset_columns: list[Column],
             average_columns: list[Column], partial: bool, shown_fields: Sequence[MetadataField] = (),
             keep: Callable[[BoardRow], bool] = lambda row: True, with_standings: bool = True,
             metrics: list[str] | None = None, others: frozenset[int] = frozenset()) -> list[Entry]:
    """Rows filtered to the viewer's columns, ordered and ranked by the Avg they show, rounded;
    then only those `keep` accepts (the metadata filter), each with its rank among all; with
    their rank bands where the viewer sees them (live rows only: history keeps none). `others`:
    the rows that are a team's other runs, not its board row (`every_run`)."""
    competition, organizer = viewer.competition, viewer.is_organizer
    own_team = viewer.team.pk if not organizer and viewer.team is not None else None
    codes = [c.key for c in subset_columns]
    group_names = [c.key for c in average_columns if c.key != ALL]
    scored = []
    for row in rows:
        averages = _visible_averages(row, codes=codes, group_names=group_names, partial=partial,
                                     missing=competition.missing_subset)
        primary = averages[ALL].get(competition.primary_metric)
        scored.append((order_key(primary, row.submitted_at, row.submission_id), row, averages))
    scored.sort(key=lambda item: item[0])
    keys = codes + [c.key for c in average_columns] if with_standings and viewer.sees_standings(phase) else []
    entries, rank = [], 0
    for _, row, averages in scored:
        counts = not row.is_baseline and row.submission_id not in others
        rank += counts
        if not keep(row):
            continue
        is_own = own_team is not None and row.team_id == own_team
        entries.append(Entry(
            rank=rank if counts else None, team=row.team_name if row.team_id else "Baseline",
            method=row.method, is_baseline=row.is_baseline, is_own=is_own,
            url=row.submission_url if organizer or is_own or row.is_baseline else None,
            submitted_at=row.submitted_at, qrels_version=row.qrels_release_number,
            values=viewer.rounded_table(row.values, metrics, keys=codes),
            averages=viewer.rounded_table(averages, metrics),
            metadata=metadata_current(shown_fields, row.metadata),
            metadata_cells=tuple(f.display(row.metadata.get(f.name)) for f in shown_fields),
            standings=_standings(row, viewer=viewer, keys=keys, partial=partial) if keys else {},
            submission_id=row.submission_id, board_row=row.submission_id not in others))
    return entries


def leaderboard_for(*, phase: Phase, user=None, now: datetime | None = None, viewer: Viewer | None = None,
                    as_of: datetime | None = None, filters: dict[str, str] | None = None,
                    metrics: list[str] | None = None, every_run: bool = False,
                    baselines_only: bool = False) -> Leaderboard:
    """The leaderboard of `phase` as its `viewer` (or `user` at `now`) may see it; with
    `as_of`, as it stood at that instant and as the viewer would have seen it then; with
    `filters` ({name: value}, from `filters_from_query`), only the rows whose counted
    submission carries those run-metadata values; with `metrics`, the entries hold only those
    metrics' values (a page shows one metric: its board need not round the others); with
    `every_run` (not with `as_of`), every counted run of each team, not only its board row, as
    the official results list them (leaderboards/every_run.py); with `baselines_only`, the
    baselines' entries alone (unranked: what a submission's chart shows beside it, read
    without the teams' rows, which every scoring changes)."""
    viewer = viewer or Viewer(user, phase.competition, now)
    if as_of is not None:
        viewer = viewer.at(as_of)
    competition, organizer, now = phase.competition, viewer.is_organizer, viewer.now
    if not viewer.sees_competition:
        return Leaderboard(competition=competition, phase=phase, is_organizer=False, exists=False)
    if not viewer.sees_leaderboard(phase):
        return Leaderboard(competition=competition, phase=phase, is_organizer=False, decimals=viewer.decimals,
                           message=viewer.closed_message(phase))

    everything = phase_subsets(phase, viewer.all_subsets)  # one query for the phase's topics
    subsets = [s for s in everything if viewer.sees_subset(s)]
    notices = _notices(viewer, phase, everything)
    subset_columns, average_columns = _columns(subsets, viewer.all_subsets)
    fields = metadata_fields(competition)
    filters = filters_from_query(fields, {PREFIX + name: value for name, value in (filters or {}).items()})
    frozen = viewer.frozen_since(phase)
    live = as_of is None and frozen is None
    rescoring = step_progress(phase) if live else None
    if live and rescoring is not None:  # the rows from before the step, with the qrels version they were scored with
        rows = live_rows(phase, baselines_only=baselines_only)
        version = max((row.qrels_release_number or 0 for row in rows), default=0) or None
        notices.insert(0, _rescoring_notice(rescoring))
    elif live:
        rows = live_rows(phase, baselines_only=baselines_only)
        release = current_qrels_release(phase)
        version = release.number if release else None
    else:  # a past instant, or a frozen board: the rows as they stood then (history keeps no bands)
        rows = [row for row in rows_at(phase, frozen or now) if row.is_baseline or not baselines_only]
        version = max((row.qrels_release_number or 0 for row in rows), default=0) or None
    if frozen is not None:
        notices.insert(0, _frozen_notice(phase, frozen))
    others: list[BoardRow] = []
    if every_run and as_of is None:
        others = other_run_rows(phase, shown={row.submission_id for row in rows}, until=frozen)
        rows = rows + others
    entries = _entries(rows, phase=phase, viewer=viewer, with_standings=live, subset_columns=subset_columns, average_columns=average_columns,
                       partial=not organizer and bool(viewer.hidden_groups),
                       shown_fields=[f for f in fields if f.leaderboard],
                       keep=lambda row: matches(fields, filters, row.metadata), metrics=metrics,
                       others=frozenset(row.submission_id for row in others))
    refreshed_at = min((row.computed_at for row in rows), default=None)
    return Leaderboard(
        competition=competition, phase=phase, is_organizer=organizer, visible=True, notices=notices,
        subset_columns=subset_columns, average_columns=average_columns, entries=entries, qrels_version=version,
        mixed_qrels=any(row.qrels_release_number != version for row in rows),
        rounded_to=viewer.rounded_to, decimals=viewer.decimals,
        bands=_bands(phase, entries) if live else None, frozen_since=frozen, rescoring=rescoring,
        stale=rows_are_stale(refreshed_at, subsets, now),
        metadata_columns=[f for f in fields if f.leaderboard],
        filter_fields=[f for f in fields if f.leaderboard and f.filterable],
        filters=filters, unfiltered_count=len(rows), as_of=now if as_of is not None else None,
        every_run=every_run and as_of is None)


def _rescoring_notice(progress: StepProgress) -> str:
    return (f"This leaderboard is {progress}: it shows the scores from before until every run is scored again, "
            f"then switches to the new ones at once.")


def _frozen_notice(phase: Phase, since: datetime) -> str:
    return (f"This leaderboard is frozen since {since:%Y-%m-%d %H:%M} UTC: it shows runs scored until then, and "
            f"everything again from {phase.thaws_at():%Y-%m-%d %H:%M} UTC. Each team still sees its own later "
            f"runs' scores on its submissions page.")


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A team's rank and primary value (the Avg column) on the leaderboard after one change."""

    at: datetime
    team: str
    rank: int
    value: float | None


@dataclass(frozen=True)
class History:
    """A phase's leaderboard over time as one viewer may see it: the instants at which the
    leaderboard was theirs to see, each by the rules of that instant, and the points where what
    they saw of a team (its value, its rank) changed, plus each team's last at the latest instant
    (leaderboards/history.py `ranked_points`)."""

    phase: Phase
    visible: bool
    message: str = ""
    metric: str = ""
    decimals: int = 3
    points: list[HistoryPoint] = field(default_factory=list)
    instants: list[datetime] = field(default_factory=list)  # oldest first

    def changes(self, latest: int) -> list[dict]:
        """The `latest` instants, newest first, each with what moved then: [{"at", "moves":
        [{"team", "value", "rank", "before": the team's previous {"value", "rank"}, None as it entered}]}].
        Teams whose value and rank stayed are left out; a bare list of instants said nothing."""
        last: dict[str, HistoryPoint] = {}
        moves: dict[datetime, list[dict]] = {}
        for point in sorted(self.points, key=lambda p: p.at):  # stable: each instant in rank order
            before = last.get(point.team)
            if before is None or (before.value, before.rank) != (point.value, point.rank):
                moves.setdefault(point.at, []).append({
                    "team": point.team, "value": point.value, "rank": point.rank,
                    "before": before and {"value": before.value, "rank": before.rank}})
            last[point.team] = point
        return [{"at": at, "moves": moves.get(at, [])} for at in reversed(self.instants[-latest:])]


def history_for(*, phase: Phase, viewer: Viewer) -> History:
    """Every change of the phase's ranked rows up to the viewer's now, as they saw it then:
    nothing from before a private leaderboard's reveal (for non-organizers), no column of
    a group hidden then, values rounded for them. One read of the phase's history; each
    change measured once (`ranked_points`)."""
    if not viewer.sees_leaderboard(phase):
        return History(phase=phase, visible=False, message=viewer.closed_message(phase))
    competition = phase.competition
    primary, missing = competition.primary_metric, competition.missing_subset
    everything = phase_subsets(phase, viewer.all_subsets)  # one query, not one per instant

    def seen_at(instant: datetime) -> Seen | None:
        then = viewer.at(instant)
        if not then.sees_leaderboard(phase):
            return None
        codes = [s.code for s in everything if then.sees_subset(s)]
        partial = not then.is_organizer and bool(then.hidden_groups)

        def measure(row: BoardRow) -> tuple[tuple, float | None]:
            value = _visible_averages(row, codes=codes, group_names=[], partial=partial, missing=missing)[ALL].get(primary)
            return order_key(value, row.submitted_at, row.submission_id), then.rounded(value)
        return Seen(rules=(tuple(codes), partial), measure=measure)

    instants, points = ranked_points(phase, viewer.frozen_since(phase) or viewer.now, seen_at)
    return History(phase=phase, visible=True, metric=primary, decimals=viewer.decimals, instants=instants,
                   points=[HistoryPoint(at=at, team=team, rank=rank, value=value) for at, team, rank, value in points])


def _bands(phase: Phase, entries: list[Entry]) -> Bands | None:
    """How the bands were tested, and whether new ones are being computed, when there are any to show."""
    if not any(e.standings for e in entries):
        return None
    s = band_settings(phase.competition)
    return Bands(test=s.test, correction=s.correction, alpha=s.alpha, trials=s.trials, samples=s.samples, seed=s.seed,
                 updating=bands_updating(phase))


@dataclass(frozen=True, slots=True)
class PhaseBoard:
    """A phase on the competition's leaderboards page, as the viewer may see it."""

    phase: Phase
    visible: bool
    message: str


def phase_boards(viewer: Viewer) -> list[PhaseBoard] | None:
    """Each phase of the viewer's competition with whether they may see its leaderboard;
    None when they may not see the competition."""
    if not viewer.sees_competition:
        return None
    return [PhaseBoard(phase=phase, visible=viewer.sees_leaderboard(phase),
                       message="" if viewer.sees_leaderboard(phase) else viewer.closed_message(phase))
            for phase in viewer.competition.phases.order_by("position")]
