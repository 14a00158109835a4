"""Who sees what of one competition: every visibility rule of cupboard, in one object.

A `Viewer(user, competition, now)` answers, for one person at one instant: organizer or not,
whether the competition exists for them (a draft: only for its organizers), which subsets and
groups they see (surprise groups stay hidden until their reveal), what the hidden groups'
notice says, whether a phase's leaderboard, topics and judgments are open to them, which
submissions they may open and, per submission, whether its scores, per-query values and
charts may be shown; and how values are rounded for them. Views build one per request with
`viewer_for(request, competition)`; selectors, exports, charts, the API and templates ask it
and decide nothing themselves, so `git grep` finds each rule once, here.

What participants see of a phase before its reveal is the phase's `before_reveal`
(`Phase.BeforeReveal`): everything as it comes, their own scores only, or only whether a run
is valid and scored. Baselines follow the same rule as everyone's runs: under "own" and
"status" nobody but organizers sees their scores either. After the reveal (and always on a
live phase, which has no "before") everything is shown.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import overload

from django.utils import timezone

from cupboard.competitions.models import Competition, Phase, Subset, SubsetGroup

_KIND_NOUNS = {Subset.Kind.LANGUAGE: ("language", "languages"), Subset.Kind.PAIR: ("language pair", "language pairs"),
               Subset.Kind.TEST_SET: ("test set", "test sets")}


@dataclass(frozen=True, slots=True)
class HiddenGroup:
    """What anyone may know of a group still hidden: how many subsets, of what kind, and when."""

    name: str
    count: int
    noun: str
    reveal_at: datetime

    @property
    def text(self) -> str:
        """The one wording of the notice, on every page: "2 surprise languages"."""
        return f"{self.count} {self.name} {self.noun}"

    def __str__(self) -> str:
        return f"{self.text}, announced on {self.reveal_at:%Y-%m-%d %H:%M} UTC."


# What a Viewer knows of who the person is, the same at every instant (cached properties).
_PERSON = ("is_organizer", "team", "all_subsets")


class Viewer:
    """One person's view of one competition at `now` (see the module docstring)."""

    def __init__(self, user, competition: Competition, now: datetime | None = None):
        self.user = user
        self.competition = competition
        self.now = now or timezone.now()

    def at(self, instant: datetime) -> Viewer:
        """The same person at another instant, never later than their now (the future is
        nobody's to see): the leaderboard "as of" an instant and its history are seen by the
        rules of that instant. Who they are (organizer, team) is read once."""
        for name in _PERSON:
            getattr(self, name)  # read here once, not again by every instant's viewer
        return self.when(min(instant, self.now))

    def when(self, now: datetime) -> Viewer:
        """The same person at exactly `now`, keeping what was already read of who they are."""
        other = Viewer(self.user, self.competition, now)
        other.__dict__.update({name: self.__dict__[name] for name in _PERSON if name in self.__dict__})
        return other

    # --- who -------------------------------------------------------------------------------
    @cached_property
    def is_organizer(self) -> bool:
        """Staff organize everything; others only competitions they are listed on. Read once:
        through a prefetch of `organizers` when there is one (the list page), else one query."""
        user = self.user
        if user is None or not user.is_authenticated:
            return False
        return user.is_staff or any(o.pk == user.pk for o in self.competition.organizers.all())

    @cached_property
    def is_assessor(self) -> bool:
        """Named by the organizers to judge this competition's pools (competitions/assessors.py):
        they see the judging tasks given to them, nothing more of the judgments."""
        user = self.user
        if user is None or not user.is_authenticated:
            return False
        return self.competition.assessors.filter(pk=user.pk).exists()

    @cached_property
    def team(self):
        """The viewer's team in this competition, or None (read through the competition's
        `teams`: the teams app sits above this one and is not imported)."""
        if self.user is None or not self.user.is_authenticated:
            return None
        return self.competition.teams.filter(memberships__user=self.user).first()

    def is_member(self, team) -> bool:
        return team is not None and self.team is not None and self.team.pk == team.pk

    @property
    def sees_competition(self) -> bool:
        """Published competitions are for everyone; a draft, and everything in it (phases,
        teams, invites, submissions, files), only for the organizers preparing it."""
        return self.competition.is_published or self.is_organizer

    # --- subsets and groups ------------------------------------------------------------------
    @cached_property
    def all_subsets(self) -> list[Subset]:
        return list(self.competition.subsets.select_related("group").order_by("position", "code"))

    @cached_property
    def subsets(self) -> list[Subset]:
        """Subsets whose group is revealed at `now`; organizers see all of them."""
        if self.is_organizer:
            return self.all_subsets
        return [s for s in self.all_subsets if s.group.is_revealed(self.now)]

    @cached_property
    def _subset_ids(self) -> set[int]:
        return {s.pk for s in self.subsets}

    def sees_subset(self, subset: Subset) -> bool:
        return subset.pk in self._subset_ids

    def groups(self) -> list[dict]:
        """Visible groups with their visible subsets: [{"group", "subsets"}], in column order."""
        groups: dict[SubsetGroup, list[Subset]] = {}
        for subset in self.subsets:
            groups.setdefault(subset.group, []).append(subset)
        return [{"group": group, "subsets": members} for group, members in groups.items()]

    @cached_property
    def hidden_groups(self) -> list[HiddenGroup]:
        """Notices of the groups still hidden from this viewer (none for organizers), soonest first."""
        return self.hidden_groups_among(self.all_subsets)

    def hidden_groups_among(self, subsets: list[Subset]) -> list[HiddenGroup]:
        """The notices of the hidden groups among `subsets`: a phase's (`phase_subsets` of all
        of them), so a phase that never has a surprise language (MIRACL's Test A) says nothing
        of them. Counting a phase's hidden subsets tells no more than the competition page does."""
        if self.is_organizer:
            return []
        hidden: dict[SubsetGroup, list[Subset]] = {}
        for subset in subsets:
            if not subset.group.is_revealed(self.now):
                hidden.setdefault(subset.group, []).append(subset)
        notices = [HiddenGroup(name=group.name, count=len(members), reveal_at=group.reveal_at,
                               noun=_KIND_NOUNS.get(members[0].kind, ("subset", "subsets"))[len(members) != 1])
                   for group, members in hidden.items()]
        return sorted(notices, key=lambda n: (n.reveal_at, n.name))

    # --- phases ------------------------------------------------------------------------------
    def sees_leaderboard(self, phase: Phase) -> bool:
        """Organizers always; anyone else once the phase is revealed (a live phase always is)."""
        return self.is_organizer or phase.is_revealed(self.now)

    def sees_official_results(self, phase: Phase) -> bool:
        """The phase's frozen official results (leaderboards/snapshots.py), where they exist:
        only a final phase (or a round with `official_results`) with a reveal has them, seen by
        whoever sees its leaderboard."""
        return phase.has_official_results and phase.reveal_at is not None and self.sees_leaderboard(phase)

    @staticmethod
    def closed_message(phase: Phase) -> str:
        if phase.reveal_at is None:
            return "The leaderboard of this phase is not public."
        return f"The leaderboard of this phase is not public until {phase.reveal_at:%Y-%m-%d %H:%M} UTC."

    def frozen_since(self, phase: Phase) -> datetime | None:
        """The instant the leaderboard this viewer sees stands still at (`Phase.freeze_at`),
        while the phase is frozen; None when they see it live: organizers always, everyone
        after the thaw. A team's own runs keep their scores on its submission pages
        (`sees_scores` does not look at the freeze)."""
        if self.is_organizer or not phase.is_frozen(self.now):
            return None
        return phase.freeze_at

    def sees_standings(self, phase: Phase) -> bool:
        """Rank bands, tiers and intervals (leaderboards/standings.py): derived from per-query
        values of the phase's judgments (with a published resampling seed), so participants
        get them only where those judgments are public, as Judged@10 (`sees_judged`): a live
        phase's scores are public at once, its hidden judgments only from their reveal.
        Nobody but organizers ever gets other runs' per-query values themselves."""
        if self.is_organizer:
            return True
        return (self.sees_leaderboard(phase) and self.before_reveal(phase) == Phase.BeforeReveal.EVERYTHING
                and phase.qrels_are_public(self.now))

    def before_reveal(self, phase: Phase) -> str:
        """What this viewer sees of the phase's runs now: `everything` for organizers and after
        the reveal, else the phase's rule (`Phase.BeforeReveal`)."""
        if self.is_organizer or phase.is_revealed(self.now):
            return Phase.BeforeReveal.EVERYTHING
        return phase.before_reveal

    def sees_topics(self, phase: Phase) -> bool:
        """Organizers always; others once the phase opens, and never those of a systems phase
        (its teams' software reads them inside the sandbox: cupboard/systems/)."""
        return self.is_organizer or (not phase.is_systems and self.now >= phase.opens_at)

    def sees_qrels(self, phase: Phase) -> bool:
        return self.is_organizer or phase.qrels_are_public(self.now)

    def sees_commitments(self) -> bool:
        return self.is_organizer or self.now >= self.competition.starts_at

    # --- submissions -------------------------------------------------------------------------
    def sees_submission(self, submission) -> bool:
        """Baselines are public, a team's submission is for its members; organizers see all;
        nothing of a competition the viewer may not see."""
        if not self.sees_competition:
            return False
        return submission.is_baseline or self.is_organizer or self.is_member(submission.team)

    def sees_runs(self, submission) -> bool:
        """Its run files (those of subsets the viewer sees). A baseline's runs on a phase whose
        judgments are still hidden are the organizers': organizers make baselines knowing the
        judgments, and a run that scores well spells out relevant documents. The runs of a
        systems phase are the organizers' alone: a system writes them from the hidden topics,
        and any column (the run tag) could carry the queries out."""
        if not self.sees_submission(submission):
            return False
        if submission.phase.is_systems and not self.is_organizer:
            return False
        return not submission.is_baseline or self.is_organizer or submission.phase.qrels_are_public(self.now)

    def sees_scores(self, submission) -> bool:
        """Its scores (per subset and averages): of a submission they may open, by the phase's
        rule before its reveal, and of a run the Ladder shows (`ladder_hides`)."""
        if not self.sees_submission(submission) or self.ladder_hides(submission):
            return False
        rule = self.before_reveal(submission.phase)
        if rule == Phase.BeforeReveal.EVERYTHING:
            return True
        if rule == Phase.BeforeReveal.OWN:
            return not submission.is_baseline and self.is_member(submission.team)
        return False

    def ladder_holds(self, phase: Phase) -> bool:
        """The Ladder decides what this viewer sees of the team's runs: a phase ranked by best
        with `ladder`, its judgments still hidden, and the viewer no organizer. Once the
        judgments are public a team can score any run itself: nothing is left to hide."""
        return (not self.is_organizer and phase.ladder and phase.ranking == Phase.Ranking.BEST
                and not phase.qrels_are_public(self.now))

    def ladder_hides(self, submission) -> bool:
        """Under the Ladder (`ladder_holds`) a team sees what the Ladder releases and no more:
        the scores of the run its row shows, which the board shows everyone; any other run of
        theirs is "not better than your shown run", without a value. Its exact scores on the
        hidden judgments, run after run, are all Blum & Hardt's boosting attack needs to climb
        by submitting variations and keeping the luckiest; the Ladder exists to stop that."""
        if submission.is_baseline or not self.ladder_holds(submission.phase):
            return False
        return submission.pk not in self.ladder_shown(submission.phase)

    def ladder_shown(self, phase: Phase) -> dict[int, int]:
        """{submission id: number} of the run the viewer's team's row shows on `phase` (read
        once per phase; the leaderboards app is above this one: through the phase's rows)."""
        shown = self.__dict__.setdefault("_ladder_shown", {})
        if phase.pk not in shown:
            team = self.team
            rows = phase.leaderboard_rows.filter(team=team) if team is not None else phase.leaderboard_rows.none()
            shown[phase.pk] = dict(rows.values_list("submission_id", "submission__number"))
        return shown[phase.pk]

    def ladder_note(self, submission) -> str:
        """What a team is told of a run the Ladder hides ("" for any other)."""
        if not self.ladder_hides(submission):
            return ""
        numbers = sorted(self.ladder_shown(submission.phase).values())
        if not numbers:
            return "Not on the board yet: under the Ladder a run's scores show once the board shows it."
        return (f"Not better than your shown run #{numbers[0]}: under the Ladder a run's scores show only when it "
                "beats the shown run by more than the noise.")

    def phase_shows_per_query(self, phase: Phase) -> bool:
        """Participants may see per-query values, or figures derived from them, on this phase
        now: the one rule of the per-query table (`sees_per_query`), Compare
        (submissions/comparison.py) and the per-topic reports (`sees_topic_reports`). The
        phase shows everything now (`before_reveal`), its judgments are public, and it is set
        to show them (`per_query_visible`) or its judgments were hidden: a hidden-judgments
        phase sets `per_query_visible` false for while it runs, as per-query values would
        let a team probe the judgments; once they are revealed there is nothing left to
        probe, and TREC's per-topic figures come with the judgments."""
        return (self.before_reveal(phase) == Phase.BeforeReveal.EVERYTHING and phase.qrels_are_public(self.now)
                and (phase.per_query_visible or phase.hidden_qrels))

    def sees_per_query(self, submission) -> bool:
        """Per-query values of a submission: organizers; else the team, where the phase shows them."""
        if self.is_organizer:
            return True
        return not submission.is_baseline and self.sees_scores(submission) and \
            self.phase_shows_per_query(submission.phase)

    def sees_topic_reports(self, phase: Phase) -> bool:
        """Per-topic reports of the phase (submissions/topic_reports.py: each run's value per
        topic beside the best, median and worst of all the phase's runs). Organizers always.
        Others where the phase shows per-query values (`phase_shows_per_query`) and, as the
        best, median and worst are over every run, where they see the leaderboard and it is
        not frozen (the range would move with runs the frozen board does not show)."""
        if self.is_organizer:
            return True
        return self.phase_shows_per_query(phase) and self.sees_leaderboard(phase) and self.frozen_since(phase) is None

    def sees_topic_report(self, submission) -> bool:
        """One run's per-topic report: organizers, any run; a team, its own runs where the
        phase's reports are open to it (`sees_topic_reports`). A baseline's is the organizers'."""
        if self.is_organizer:
            return self.sees_competition
        return (not submission.is_baseline and self.is_member(submission.team)
                and self.sees_topic_reports(submission.phase))

    def sees_judged(self, submission) -> bool:
        """Its Judged@10 (judging/judged.py): organizers always; others on a submission whose
        scores they see, once the phase's judgments are public. Before that it would tell
        which of the documents a run retrieved are judged, which is part of the judgments."""
        if self.is_organizer:
            return True
        return self.sees_scores(submission) and submission.phase.qrels_are_public(self.now)

    # --- numbers -----------------------------------------------------------------------------
    @property
    def decimals(self) -> int:
        """Digits shown on pages and charts (everyone; organizers' data keeps full precision)."""
        return self.competition.decimals

    @property
    def rounded_to(self) -> int | None:
        """Rounding applied to the data itself: the competition's decimals, none for organizers."""
        return None if self.is_organizer else self.competition.decimals

    @overload
    def rounded(self, value: float) -> float: ...
    @overload
    def rounded(self, value: None) -> None: ...

    def rounded(self, value: float | None) -> float | None:
        return value if value is None or self.rounded_to is None else round(value, self.rounded_to)

    def rounded_table(self, scores: dict[str, dict[str, float | None]], metrics: list[str] | None = None,
                      keys: list[str] | None = None) -> dict:
        """{key: {metric: value}} rounded for this viewer (a leaderboard holds thousands); only
        `keys` (in their order, those present) and `metrics` when given: a board picks and
        rounds in this one pass, which is most of reading a 500-row board."""
        digits = self.rounded_to
        found = scores.items() if keys is None else [(key, scores[key]) for key in keys if key in scores]
        items: list[tuple[str, Iterable[tuple[str, float | None]]]]
        if metrics is None:
            items = [(key, by_metric.items()) for key, by_metric in found]
        else:
            items = [(key, [(m, by_metric[m]) for m in metrics if m in by_metric]) for key, by_metric in found]
        if digits is None:
            return {key: dict(pairs) for key, pairs in items}
        return {key: {metric: None if value is None else round(value, digits) for metric, value in pairs}
                for key, pairs in items}


def viewer_for(request, competition: Competition, now: datetime | None = None) -> Viewer:
    """The request's viewer of `competition`, built once per request and competition at the
    request's instant (`request_now`), or at `now` when given: the instant a query already
    used, so both agree on what is revealed (a viewer already built at another instant is
    moved to that one, never reused as is)."""
    cache = request.__dict__.setdefault("_cupboard_viewers", {})
    viewer = cache.get(competition.pk)
    if viewer is None:
        viewer = cache[competition.pk] = Viewer(request.user, competition, now or request_now(request))
    return viewer if now is None or now == viewer.now else viewer.when(now)


def request_now(request) -> datetime:
    """The instant of a request, read once: every viewer of one request sees by the same clock
    (a page listing several competitions cannot show one revealed by a later tick than another)."""
    return request.__dict__.setdefault("_cupboard_now", timezone.now())
