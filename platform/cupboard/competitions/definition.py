"""The versioned YAML file that defines a whole competition: its one schema, read and checked.

The dataclasses below are the only description of the file: `definition_read` checks a
loaded document against them (every problem with its key path, and the file and line when
read from a file, so an organizer fixes it in one go), `definition_dump` writes one back,
and the reference page `docs/definition.md` is generated from them
(`python manage.py definition_reference`). `definition_parse` turns a document into the
plain values `competition_load` in services.py applies: benchmark defaults filled in, keys
named as the models name them. Nothing here touches the database.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from django.utils.text import slugify

from cupboard.competitions.assessors import LabelDef
from cupboard.competitions.definition_lines import located
from cupboard.competitions.definition_metadata import MetadataFieldDef, run_metadata_specs  # the factories import it here
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Phase
from cupboard.competitions.pages import PAGES
from cupboard.competitions.topic_variants import FIELD as VARIANT_FIELD
from cupboard.competitions.topic_variants import TopicVariantDef
from evaluator import schema
from evaluator.definition import ScoringDef  # the keys that decide scoring, declared there
from evaluator.schema import Fail, key
from evaluator.yaml_bounded import yaml_bounded_load

SCHEMA_VERSION = 1
# One file per benchmark competition, e.g. DEFINITIONS_DIR / "miracl-wsdm-cup.yaml" (for `make demo`).
DEFINITIONS_DIR = Path(__file__).resolve().parent / "definitions"
EXAMPLES_DIR = DEFINITIONS_DIR / "examples"  # the reference page's examples, loaded by its test


def _tests() -> tuple[str, ...]:
    from evaluator.rank_bands import TESTS

    return tuple(TESTS)


def _corrections() -> tuple[str, ...]:
    from evaluator.significance import CORRECTIONS

    return tuple(CORRECTIONS)


@dataclass(frozen=True, kw_only=True)
class PhaseDef:
    """A stage with its own window, topics, judgments, limits and leaderboard."""

    slug: str = key(help="lowercase letters, digits and hyphens; in URLs and file names")
    name: str = key(help="shown on pages, e.g. Test B (final)")
    kind: str = key(Phase.Kind.RUNS.value, choices=lambda: tuple(Phase.Kind.values),
                    help="runs: teams upload runs; systems: teams upload an OCI image (docker save) that the "
                         "platform runs on the phase's topics, which no team ever sees (docs/systems.md)")
    opens_at: datetime = key(help="uploads accepted from here")
    closes_at: datetime = key(help="uploads refused from here; after `opens_at`")
    visibility: str = key(Phase.Visibility.LIVE.value, choices=lambda: tuple(Phase.Visibility.values),
                          help="live: scores shown as they come; private: leaderboard public from `reveal_at`; "
                               "hidden: never shown to participants")
    reveal_at: datetime | None = key(None, help="when a private leaderboard and hidden judgments become public; "
                                                "required for a private phase")
    before_reveal: str = key(Phase.BeforeReveal.OWN.value, choices=lambda: tuple(Phase.BeforeReveal.values),
                             help="what participants see of runs until `reveal_at`: everything; own (each team "
                                  "its own scores); status (only 'valid and scored')")
    hidden_qrels: bool = key(False, help="judgments never served until `reveal_at`; their SHA-256 are public "
                                         "from `starts_at`")
    per_query_visible: bool = key(True, help="participants may see their per-query values (with hidden_qrels: "
                                              "none before reveal_at, all from it, whatever this says)")
    daily_limit: int | None = key(None, minimum=0, help="uploads per team per UTC day", shown_default="no limit")
    total_limit: int | None = key(None, minimum=0, help="uploads per team in the phase", shown_default="no limit")
    is_final: bool = key(False, help="the phase that decides the competition")
    official_results: bool = key(False, help="at `reveal_at`, frozen official results, their verification by a "
                                             "second engine and a results page (tables, archive), as the final "
                                             "phase gets: each round of a campaign; needs `reveal_at`")
    ranking: str | None = key(None, choices=lambda: tuple(Phase.Ranking.values),
                              help="which run of a team counts: its best, its last, or the ones it selects",
                              shown_default="the top-level `ranking` on a final phase, else `best`")
    freeze_at: datetime | None = key(None, help="the public leaderboard stands still from this instant until "
                                                "`closes_at` (or a later `reveal_at`); each team still sees its own "
                                                "runs' scores, organizers the live board", shown_default="never")
    freeze_days: int | None = key(None, minimum=1, help="instead of `freeze_at`: freeze this many days before "
                                                        "`closes_at`", shown_default="never")
    unknown_documents: str = key(Phase.UnknownDocuments.REFUSE.value,
                                 choices=lambda: tuple(Phase.UnknownDocuments.values),
                                 help="where a subset has a document list (`manage.py load_documents`): a run naming "
                                      "a document outside it is refused at its line, or accepted with a warning")
    assessor_fields: list[str] | None = key(None, help="the fields of a topic (as its file names them: question, "
                                                       "narrative, description...) that assessors read beside its "
                                                       "query, in this order", shown_default="every field")
    residual_of: list[str] | None = key(None, help="slugs of earlier phases (rounds): the documents their current "
                                                   "judgments hold for a topic are removed from this phase's runs "
                                                   "before scoring, Judged@k and pools (a residual collection, as "
                                                   "TREC-COVID's rounds 2+)", shown_default="none")
    ladder: bool = key(False, help="The Ladder (Blum & Hardt 2015): a team's shown score changes only when a run "
                                   "beats its shown best by more than the standard error of their per-query "
                                   "differences; needs `ranking: best`")

    def check(self, fail: Fail) -> None:
        self._check_board(fail)
        if self.slug and slugify(self.slug) != self.slug:
            fail("slug", f"must be lowercase letters, digits and hyphens, not {self.slug!r}")
        if self.opens_at and self.closes_at and self.closes_at <= self.opens_at:
            fail("closes_at", "must be after opens_at")
        if self.visibility == Phase.Visibility.PRIVATE and self.reveal_at is None:
            fail("reveal_at", "a private phase needs the instant its leaderboard becomes public")
        if self.official_results and self.reveal_at is None:
            fail("reveal_at", "official results are frozen at the reveal: give the instant they are published")

    def _check_board(self, fail: Fail) -> None:
        if self.freeze_at is not None and self.freeze_days is not None:
            fail("freeze_days", "give freeze_at or freeze_days, not both")
        frozen = self.frozen_from()
        if frozen is not None and self.opens_at and self.closes_at and not self.opens_at < frozen < self.closes_at:
            fail("freeze_days" if self.freeze_days is not None else "freeze_at",
                 "the freeze must start after opens_at and before closes_at")
        if self.ladder and (self.ranking not in (None, Phase.Ranking.BEST) or (self.is_final and self.ranking is None)):
            fail("ladder", "the Ladder replaces a team's best: it needs ranking: best (set it on a final phase)")

    def frozen_from(self) -> datetime | None:
        """The instant the public leaderboard freezes, from either key."""
        if self.freeze_days is not None and self.closes_at:
            return self.closes_at - timedelta(days=self.freeze_days)
        return self.freeze_at


@dataclass(frozen=True, kw_only=True)
class SignificanceDef:
    """How leaderboards mark teams whose difference is not significant (rank bands,
    evaluator/rank_bands.py). Every key is optional."""

    test: str = key("randomization", choices=_tests, help="paired test on per-query values")
    correction: str = key("holm", choices=_corrections, help="for testing many pairs at once")
    alpha: float = key(0.05, help="significance level, between 0 and 1")

    def check(self, fail: Fail) -> None:
        if self.alpha is not None and not 0 < self.alpha < 1:
            fail("alpha", f"must be between 0 and 1, not {self.alpha!r}")


# The pages' names and titles are declared once, in pages.py; their keys here follow from them.
PagesDef = dataclasses.make_dataclass(
    "PagesDef", [(name, str | None, key(None, help=f"the {title} tab", shown_default="no tab"))
                 for name, title in PAGES.items()],
    frozen=True, kw_only=True,
    namespace={"__doc__": "The competition's own pages in Markdown (rendered safely: competitions/pages.py), "
                          "shown as tabs on its page in this order. Each is optional; a blank one is no tab."})


@dataclass(frozen=True, kw_only=True)
class Definition(ScoringDef):
    """A competition: what it scores, who runs it, its rules, subsets, groups and phases.
    Instants carry a UTC offset (`2023-01-19T23:59:59Z`): a deadline must not depend on the
    server's zone."""

    # The keys that decide what a run scores (benchmark, metrics, depths, groups, subsets...) and
    # their rules are the evaluator's ScoringDef, so its command line reads them as this does;
    # KEY_ORDER places them among this file's own keys.
    KEY_ORDER = ("schema", "version", "slug", "title", "description", "benchmark", "metrics", "primary_metric",
                 "relevance_level", "missing_subset", "ranking", "final_selection_max", "decimals", "max_run_depth",
                 "scoring_depth", "starts_at", "published", "organizers", "entry_deadline", "team_size_max", "pages",
                 "run_metadata", "topic_variants", "significance", "judging_labels", "groups", "subsets", "phases")

    schema: int = key(help=f"the format of this file; this cupboard reads {SCHEMA_VERSION}")
    version: int = key(minimum=1, help="this competition's definition version: loading a higher one updates "
                                       "it; the same version with other content is refused")
    slug: str = key(help="lowercase letters, digits and hyphens; in URLs")
    title: str = key(help="shown on every page")
    description: str = key("", help="Markdown, shown on the competition page (as its `pages`)")
    ranking: str = key(Phase.Ranking.SELECTED.value, choices=lambda: tuple(Phase.Ranking.values),
                       help="the final phases' default `ranking` (other phases rank by best)")
    final_selection_max: int = key(2, minimum=1, help="runs a team may select where `ranking: selected`")
    decimals: int = key(3, minimum=0, help="rounding of scores shown to participants")
    starts_at: datetime | None = key(None, help="public from here; hidden judgments' SHA-256 are committed",
                                     shown_default="when first loaded")
    published: bool = key(True, help="false: only its organizers see it")
    organizers: list[str] | None = key(None, help="usernames of existing accounts", shown_default="none")
    entry_deadline: datetime | None = key(None, help="no team created or joined from here on",
                                          shown_default="when the final phase opens")
    team_size_max: int = key(10, minimum=1, help="members a team may have")
    # PagesDef is made from PAGES at import, which mypy cannot follow.
    pages: PagesDef | None = key(None, help="Markdown pages, below", shown_default="none")  # type: ignore[valid-type]
    run_metadata: list[MetadataFieldDef] | None = key(None, help="questions asked of every submission, below",
                                                      shown_default="none")
    topic_variants: list[TopicVariantDef] | None = key(None, help="several topics files per subset (English and "
                                                                  "native queries), the default first; below",
                                                       shown_default="one topics file per subset")
    significance: SignificanceDef | None = key(None, help="rank bands on leaderboards, below",
                                               shown_default="randomization, holm, 0.05")
    judging_labels: list[LabelDef] | None = key(None, help="labels of judging in the browser, below",
                                                shown_default="0 not relevant, 1 relevant")
    phases: list[PhaseDef] = key(help="at least one, below")

    def check(self, fail: Fail) -> None:
        if self.schema is not None and self.schema != SCHEMA_VERSION:
            fail("schema", f"this cupboard reads schema {SCHEMA_VERSION}, not {self.schema}")
        if self.slug and slugify(self.slug) != self.slug:
            fail("slug", f"must be lowercase letters, digits and hyphens, not {self.slug!r}")
        super().check(fail)
        schema.unique(self.run_metadata, "run_metadata", "name", "field {!r} is defined twice", fail)
        self._check_variants(fail)
        schema.unique(self.judging_labels, "judging_labels", "value", "label {!r} is defined twice", fail)
        self._check_structure(fail)
        self._check_entry_deadline(fail)

    def _check_entry_deadline(self, fail: Fail) -> None:
        """Teams form before the deciding phase closes: a deadline after it would promise
        joining a competition whose last upload is already over."""
        phases = [p for p in self.phases or () if p is not None and p.closes_at is not None]
        closing = [p for p in phases if p.is_final] or phases
        if self.entry_deadline is None or not closing:
            return
        last = max(closing, key=lambda p: p.closes_at)
        if self.entry_deadline.replace(microsecond=0) > last.closes_at.replace(microsecond=0):  # forms drop them
            fail("entry_deadline", f"{self.entry_deadline:%Y-%m-%d %H:%M} UTC is after phase {last.slug!r} closes "
                                   f"({last.closes_at:%Y-%m-%d %H:%M} UTC): no team could submit after it; set it "
                                   "at or before that close")

    def _check_variants(self, fail: Fail) -> None:
        """Variant codes are unique and tell apart from subset codes in a file name; with two or
        more, `topics` is the run-metadata field that says which a run used (topic_variants.py)."""
        schema.unique(self.topic_variants, "topic_variants", "code", "variant {!r} is listed twice", fail)
        codes = {s["code"] for s in self.resolved_subsets()}
        for index, variant in enumerate(self.topic_variants or ()):
            if variant is not None and variant.code in codes:
                fail(f"topic_variants[{index}].code", f"{variant.code!r} is also a subset code: a file name "
                                                      "could not say which it means")
        if len(self.topic_variants or ()) > 1:
            for index, field in enumerate(self.run_metadata or ()):
                if field is not None and field.name == VARIANT_FIELD:
                    fail(f"run_metadata[{index}].name", f"{VARIANT_FIELD!r} is the field that says which of "
                                                        "topic_variants a run used; name yours otherwise")

    def _check_structure(self, fail: Fail) -> None:
        schema.unique(self.phases, "phases", "slug", "phase {!r} is defined twice", fail)
        self._check_residual(fail)
        if self.phases is not None and not self.phases:
            fail("phases", "at least one phase is required")

    def _check_residual(self, fail: Fail) -> None:
        """A residual phase removes what phases before it judged: never its own, a later one's or an unknown one's."""
        earlier: list[str] = []
        for index, phase in enumerate(self.phases or ()):
            if phase is None:
                continue
            for at, slug in enumerate(phase.residual_of or ()):
                if slug not in earlier:
                    fail(f"phases[{index}].residual_of[{at}]", f"{slug!r} is not a phase before {phase.slug!r}"
                                                               f" (earlier: {', '.join(earlier) or 'none'})")
            earlier.append(phase.slug)

# --- reading and writing -------------------------------------------------------------------------
def definition_read(data: Any, *, source: str | Path | None = None, text: str | None = None) -> Definition:
    """The Definition a loaded YAML document holds, or DefinitionError listing every problem.
    With `source` (and the file's `text`), each problem names the file and line too."""
    problems: list[tuple[str, str]] = []
    if not isinstance(data, dict):
        problems.append(("", "the file must hold a mapping of keys"))
        definition = None
    else:
        definition = schema.read(Definition, data, "", lambda path, message: problems.append((path, message)))
    if problems or definition is None:
        raise DefinitionError(located(problems, source=source, text=text))
    return definition


def definition_dump(definition: Definition) -> dict:
    """The Definition as YAML data: the keys its file gave, so reading it back gives it again."""
    return schema.dump(definition)


def definition_load(source: dict | str | Path) -> Definition:
    """The Definition of a YAML file (its path) or of already loaded data."""
    if isinstance(source, dict):
        return definition_read(source)
    text = Path(source).read_text(encoding="utf-8")
    try:
        data = yaml_bounded_load(text)
    except yaml.YAMLError as error:
        raise DefinitionError([f"{Path(source).name}: {error}"], code=getattr(error, "code", "bad-yaml")) from error
    return definition_read(data, source=source, text=text)


# Phase keys stored only when set (definition_values), with the model's value when absent:
# `competition_load` applies these defaults, so a new version without them clears them.
PHASE_BOARD_RULES = {"freeze_at": None, "freeze_days": None, "ladder": False}


def definition_parse(data: Any, *, source: str | Path | None = None, text: str | None = None) -> dict:
    """A checked document as the values `competition_load` applies: {"competition": {model
    fields}, "organizers": [...], "groups": [...], "subsets": [...], "phases": [...]}.
    Groups, subsets and metrics default to the benchmark's, so a benchmark's file stays short."""
    return definition_values(definition_read(data, source=source, text=text))


def definition_values(definition: Definition) -> dict:
    """The values `competition_load` applies. The diff and the digest (competitions/digest.py)
    compare them with the rows' `changes.definition_current`: keep the two shapes alike."""
    d = definition
    competition = {
        "slug": d.slug, "title": d.title, "description": d.description, "benchmark": d.benchmark,
        "config_version": d.version, "metrics": d.resolved_metrics(), "primary_metric": d.resolved_primary_metric(),
        "relevance_level": d.resolved_relevance_level(),
        "missing_subset": d.missing_subset, "final_selection_max": d.final_selection_max, "decimals": d.decimals,
        "max_run_depth": d.max_run_depth, "starts_at": d.starts_at, "is_published": d.published,
        # Only when set (the rows give None when it is not: the diff and the digest read both as absent).
        **({"scoring_depth": d.scoring_depth} if d.scoring_depth is not None else {}),
        "entry_deadline": d.entry_deadline, "team_size_max": d.team_size_max,
        "pages": {name: text for name in PAGES if (text := getattr(d.pages, name, None)) and text.strip()},
        "run_metadata": run_metadata_specs(d.run_metadata or []),
        # Only when set, as changes.definition_current gives it.
        **({"topic_variants": [{"code": v.code, "name": v.name.strip()} for v in d.topic_variants]}
           if d.topic_variants else {}),
        "significance": dataclasses.asdict(d.significance or SignificanceDef()),
        # Only when set, as changes.definition_current gives them.
        **({"judging_labels": [dataclasses.asdict(label) for label in d.judging_labels]} if d.judging_labels else {}),
    }
    phases = []
    for position, phase in enumerate(d.phases):
        values = {k.name: getattr(phase, k.name) for k in schema.keys(PhaseDef) if k.name not in PHASE_BOARD_RULES}
        values["ranking"] = phase.ranking or (d.ranking if phase.is_final else Phase.Ranking.BEST)
        # Only when set, as changes.definition_current gives them.
        values |= {name: value for name, value in (("freeze_at", phase.frozen_from()), ("ladder", phase.ladder))
                   if value != PHASE_BOARD_RULES[name]}
        phases.append({"slug": phase.slug, "name": phase.name, "position": position} | values)
    return {"competition": competition, "organizers": list(d.organizers or []), "groups": d.resolved_groups(),
            "subsets": d.resolved_subsets(), "phases": phases}
