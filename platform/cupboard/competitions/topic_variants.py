"""Topic variants: several topics files for one subset of a phase, e.g. a cross-language task's
English queries and the same queries in the documents' language (CIRAL, NeuCLIR).

A competition declares its variants once, in its YAML's `topic_variants` (`TopicVariantDef`,
stored as plain data on `Competition.topic_variants`); the first is the default. A competition
that declares none has one variant, `default`, which is what every `TopicSet` of it holds, so
a competition without the key works as before. The variants of a subset are the same queries
written another way: they share their query ids (the import refuses files whose ids differ,
services.py), so a run is validated and scored the same whichever it used.

With more than one variant, every submission says which it used: the run-metadata field
`topics` (`variant_field`), a required choice among the variants, is added to the
competition's own fields (run_metadata.metadata_fields), so the upload form, the API,
`evaluator submit --meta topics=en`, the run's page, leaderboards and exports ask, store,
show and filter it as any other field.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from evaluator.schema import Fail, key

DEFAULT = "default"  # the one variant of a competition that declares none
DEFAULT_NAME = "Topics"
FIELD = "topics"  # the run-metadata field that says which variant a run used


@dataclass(frozen=True, kw_only=True)
class TopicVariantDef:
    """One way the topics of every subset are written, e.g. `{code: en, name: English queries}`.
    The first listed is the default: what an import takes a file for when neither its name nor
    `--variant` says otherwise, and what How to submit's example command uses. With two or more,
    each submission says which it used (the run-metadata field `topics`)."""

    code: str = key(help="lowercase letters, digits and hyphens, at most 40; in download addresses, "
                         "`--meta topics=CODE` and file names (topics.ciral-ha-test.native.tsv)")
    name: str = key(help="shown on pages and forms, e.g. Native-language queries")

    def check(self, fail: Fail) -> None:
        from django.utils.text import slugify

        if self.code is not None and (slugify(self.code) != self.code or len(self.code) > 40):
            fail("code", f"must be lowercase letters, digits and hyphens (at most 40), not {self.code!r}")
        if self.name is not None and not self.name.strip():
            fail("name", f"must be text, not {self.name!r}")


@dataclass(frozen=True, slots=True)
class Variant:
    code: str
    name: str


def variants(competition) -> list[Variant]:
    """The competition's variants, the default first; `default` alone when it declares none."""
    declared = [Variant(v["code"], v["name"]) for v in getattr(competition, "topic_variants", None) or ()]
    return declared or [Variant(DEFAULT, DEFAULT_NAME)]


def default_variant(competition) -> str:
    return variants(competition)[0].code


def variant_field(competition) -> dict | None:
    """The run-metadata field (as `Competition.run_metadata` stores one) asking which variant a
    run used; None with a single variant, where there is nothing to ask."""
    found = variants(competition)
    if len(found) < 2:
        return None
    return {"name": FIELD, "label": "Topics used", "type": "choice", "required": True,
            "help": "Which topics your run answered: the variants share their query ids.",
            "choices": [[v.code, v.name] for v in found], "leaderboard": True}


def variant_from_filename(name: str, codes: Collection[str]) -> str | None:
    """The one variant code a file name carries between non-alphanumeric characters
    (`topics.ciral-v1.0-ha-test-a.native.tsv` -> native), or None when none or several do."""
    from evaluator.io.naming import subset_from_filename

    return subset_from_filename(Path(name).name, codes) if codes else None


def one_per_subset(topic_sets: Iterable, competition) -> dict:
    """{subset id: topic set}: of a subset's variants the default, else the first declared. The
    variants share their query ids, so validation and scoring read any one; reading the same
    one keeps what a page or a pool shows steady."""
    topic_sets = list(topic_sets)
    if len({t.subset_id for t in topic_sets}) == len(topic_sets):
        return {t.subset_id: t for t in topic_sets}  # one each: no need to read the competition's order
    order = {v.code: index for index, v in enumerate(variants(competition))}
    chosen: dict = {}
    for topic_set in sorted(topic_sets, key=lambda t: order.get(t.variant, len(order))):
        chosen.setdefault(topic_set.subset_id, topic_set)
    return chosen
