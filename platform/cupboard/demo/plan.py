"""What the demo holds, as data: people, teams, and the six competitions with their schedules.

Two MIRACL competitions show the two sides of surprise languages: the WSDM Cup in its
final two weeks (de and yo revealed yesterday, so S.Avg shows; test-B open, its
leaderboard private until after the deadline) and a dry run whose surprise languages are
still hidden and are revealed ten minutes after loading, so the beat task's leaderboard
refresh can be watched. The four other benchmarks keep their definitions' phase lengths
and close three weeks from now.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR, definition_dump, definition_read
from evaluator.schema import with_instants

PASSWORD = "demo-password-1"
ORGANIZER = "organizer"
ADMIN = "admin"
# Someone with no team yet: log in as her to create or join one.
LONER = "hana"
# The Cup's assessors (judging in the browser, demo/assessment.py): the first has a task half
# judged, to resume; the second judged the overlap of a finished round beside the first.
ASSESSORS = ("assessor", "assessor2")


@dataclass(frozen=True)
class TeamPlan:
    name: str
    members: tuple[str, ...]
    quality: float  # 0-1: how good its runs are (see demo.runs)
    methods: tuple[str, ...]  # method names of its 1st, 2nd, 3rd submission


TEAMS = (
    TeamPlan("Lighthouse", ("alice", "bob"), 0.70,
             ("mContriever zero-shot", "mContriever + BM25 hybrid", "Hybrid + mT5 reranker")),
    TeamPlan("Okapi", ("chen", "dana"), 0.60, ("BM25 tuned k1/b", "BM25 + RM3", "BM25 + RM3 + mDPR fusion")),
    TeamPlan("Polyglots", ("emil", "fatima"), 0.52,
             ("mDPR fine-tuned on MIRACL train", "mDPR + hard negatives", "mDPR + hard negatives v2")),
    TeamPlan("Tidepool", ("gus",), 0.40, ("SPLADE baseline", "SPLADE + query translation", "SPLADE v2")),
)
# Teams that tick "release this run in the results archive" on every run (the others do not).
RELEASING = ("Lighthouse", "Polyglots")
# Baselines the organizer adds to every phase: (name, run tag, quality, spread across subsets).
BASELINES = (("BM25", "bm25", 0.42, 0.15), ("mDPR", "mdpr", 0.46, 0.15))

# What each method says about itself, for competitions whose YAML asks for run metadata (the
# MIRACL Cup's run_metadata; a competition gets the fields it asks for, nothing else).
# Lighthouse and Tidepool never train on MIRACL's judgments: the Cup's "zero-shot" filter keeps them.
METHOD_METADATA = {
    "mContriever zero-shot": ("automatic", "zero-shot", False, "mContriever", 178),
    "mContriever + BM25 hybrid": ("automatic", "zero-shot", False, "mContriever", 178),
    "Hybrid + mT5 reranker": ("automatic", "zero-shot", False, "mT5 reranker", 580),
    "BM25 tuned k1/b": ("automatic", "miracl-train", False, "BM25", 0),
    "BM25 + RM3": ("automatic", "miracl-train", False, "BM25", 0),
    "BM25 + RM3 + mDPR fusion": ("automatic", "miracl-train", False, "mDPR", 178),
    "mDPR fine-tuned on MIRACL train": ("automatic", "miracl-train", False, "mDPR", 178),
    "mDPR + hard negatives": ("automatic", "miracl-train", False, "mDPR", 178),
    "mDPR + hard negatives v2": ("manual", "miracl-train", False, "mDPR", 178),
    "SPLADE baseline": ("automatic", "zero-shot", False, "SPLADE", 110),
    "SPLADE + query translation": ("automatic", "zero-shot", True, "SPLADE", 110),
    "SPLADE v2": ("manual", "zero-shot", True, "SPLADE", 110),
    "BM25": ("automatic", "zero-shot", False, "BM25", 0),
    "mDPR": ("automatic", "zero-shot", False, "mDPR", 178),
}
METADATA_NAMES = ("run_type", "training", "external_resources", "model", "parameters_m")


@dataclass(frozen=True)
class PhaseSlice:
    """Which share of each subset's queries a phase gets: [start, stop) of the topic list, at most `cap`."""

    start: float
    stop: float
    cap: int


@dataclass(frozen=True)
class CompetitionPlan:
    definition: str  # file in competitions/definitions
    data: str  # "miracl", "mrtydi" or "synthetic" (see demo.data)
    phases: dict[str, PhaseSlice]
    seed: int  # of its synthetic data; one per competition, so none shares judgments with another
    depth: int = 100  # run depth of generated runs
    synthetic_count: int = 24  # queries per subset when there is no real data
    max_label: int = 1
    per_team: int = 2  # submissions per team in each open phase (fewer where the phase's limit says so)
    last_deadline_in: timedelta = timedelta(days=14)
    overrides: dict = field(default_factory=dict)  # top-level keys replacing the file's
    surprise_in: timedelta | None = None  # reveal the surprise group this long after loading
    judging_phase: str | None = None  # play the judging cycle on this phase (demo/judging.py)
    results_published: bool = False  # its final phase ends and is revealed at the load (demo/results.py)
    extra_phases: tuple[dict, ...] = ()  # phases added after the file's, as YAML data

    @property
    def path(self) -> Path:
        return DEFINITIONS_DIR / self.definition

    def definition_data(self, *, now: datetime) -> dict:
        """The YAML file's data, with every instant shifted so its last deadline falls
        `last_deadline_in` from now (whole days, so times of day stay as written)."""
        data = yaml.safe_load(self.path.read_text(encoding="utf-8"))
        data.update(self.overrides, organizers=[ORGANIZER])
        data["phases"] = [*data["phases"], *self.extra_phases]
        definition = definition_read(data)
        latest = max(phase.closes_at for phase in definition.phases)
        shift = timedelta(days=(now + self.last_deadline_in - latest).days)
        data = definition_dump(with_instants(definition, lambda instant: instant + shift))
        if self.surprise_in is not None:
            reveal = now.replace(microsecond=0) + self.surprise_in
            for group in data.get("groups", []):
                if group.get("reveal_at"):
                    group["reveal_at"] = reveal
            for phase in data["phases"]:
                if phase.get("is_final"):
                    phase["opens_at"] = reveal
        return data

    @property
    def slug(self) -> str:
        return self.overrides.get("slug") or yaml.safe_load(self.path.read_text(encoding="utf-8"))["slug"]


_MIRACL_PHASES = {"dev": PhaseSlice(0.0, 0.5, 120), "test-a": PhaseSlice(0.5, 0.75, 80),
                  "test-b": PhaseSlice(0.75, 1.0, 80)}
COMPETITIONS = (
    CompetitionPlan("miracl-wsdm-cup.yaml", "miracl", _MIRACL_PHASES, seed=1, per_team=3, judging_phase="dev"),
    CompetitionPlan("miracl-wsdm-cup.yaml", "miracl",
                    {"dev": PhaseSlice(0.0, 0.5, 30), "test-a": PhaseSlice(0.5, 0.75, 20),
                     "test-b": PhaseSlice(0.75, 1.0, 20)}, seed=2,
                    overrides={"slug": "miracl-dry-run",
                               "title": "MIRACL dry run: a surprise reveal",
                               "description": "A rehearsal of the WSDM Cup on a slice of the MIRACL dev queries. "
                                              "Two surprise languages are announced ten minutes after the demo "
                                              "was loaded; the leaderboards gain their columns and S.Avg then.",
                               # Teams may still form in the rehearsal (hana's), a day before it ends.
                               "entry_deadline": "2023-01-23T00:00:00Z"},
                    surprise_in=timedelta(minutes=10)),
    CompetitionPlan("mrtydi.yaml", "mrtydi", {"test": PhaseSlice(0.0, 1.0, 100)}, seed=3,
                    last_deadline_in=timedelta(days=21)),
    CompetitionPlan("dureader-retrieval.yaml", "synthetic",
                    {"dev": PhaseSlice(0.0, 0.5, 100), "test": PhaseSlice(0.5, 1.0, 100)}, seed=4,
                    depth=50, synthetic_count=60, last_deadline_in=timedelta(days=21), results_published=True),
    CompetitionPlan("clirmatrix.yaml", "synthetic", {"test": PhaseSlice(0.0, 1.0, 100)}, seed=5,
                    depth=20, synthetic_count=12, max_label=6, last_deadline_in=timedelta(days=21)),
    # With a blind round (a systems phase, cupboard/systems/): teams submit images, the example
    # BM25 system runs on its topics (demo/systems.py). Its topics are the other half of the queries.
    CompetitionPlan("lareqa.yaml", "synthetic", {"test": PhaseSlice(0.0, 0.5, 100), "blind": PhaseSlice(0.5, 1.0, 100)},
                    seed=6, depth=50, synthetic_count=20, last_deadline_in=timedelta(days=21),
                    extra_phases=({"slug": "blind", "name": "Blind round (systems)", "kind": "systems",
                                   "opens_at": "2026-11-01T00:00:00Z", "closes_at": "2027-03-31T23:59:59Z",
                                   "daily_limit": 3},)),
)
