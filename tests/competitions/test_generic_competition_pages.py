"""A competition on a collection of its organizers' own (`benchmark: generic`) is shown as
itself: its pages name no "Benchmark generic", and the How-to-submit example and the sample
submission use its own document ids (read from judgments the viewer may download), never
MIRACL's ARTICLE#PASSAGE ids. A named benchmark keeps its name and its ids."""
from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.urls import reverse

from cupboard.competitions.definition import EXAMPLES_DIR
from cupboard.competitions.services import competition_load
from evaluator.io.runs import read_run
from tests.factories import make_qrels_release, make_topics
from tests.personas import client_for, personas  # noqa: F401

pytestmark = pytest.mark.django_db

QIDS = ["h1", "h2", "h3"]


@pytest.fixture
def ciral():
    competition = competition_load(data=EXAMPLES_DIR / "ciral-like.yaml")
    dev = competition.phases.get(slug="dev")  # open now: 2026-11-01 to 2027-01-31
    for code in ("ha", "so", "sw", "yo"):
        make_topics(dev, code, [f"{code}-{q}" for q in QIDS])
    return competition


def _judge(competition):
    dev = competition.phases.get(slug="dev")
    make_qrels_release(dev, {code: {f"{code}-{q}": {f"{code}_doc_{n}{q}": n % 2 for n in range(5)} for q in QIDS}
                             for code in ("ha", "so", "sw", "yo")})


def _sample(client, slug: str) -> dict[str, str]:
    answer = client.get(reverse("competitions:sample_submission", args=[slug, "dev"]))
    archive = zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content if answer.streaming else [answer.content])))
    return {name: archive.read(name).decode() for name in archive.namelist()}


def _docids(text: str) -> set[str]:
    return {line.split()[2] for line in text.splitlines() if line.strip()}


def test_its_pages_name_no_generic_benchmark(ciral, personas):
    client = client_for(None)
    detail = client.get(reverse("competitions:detail", args=[ciral.slug])).content.decode()
    listing = client.get(reverse("competitions:list")).content.decode()
    assert "Benchmark" not in detail and "generic" not in detail
    assert "nDCG@20" in detail  # the line still says what it scores
    card = listing[listing.index(ciral.title):]
    assert "generic" not in card[:card.index("</div>")]
    cup = client.get(reverse("competitions:detail", args=[personas.competition.slug])).content.decode()
    assert "Benchmark <strong>miracl</strong>" in cup


def test_the_examples_use_the_collections_own_document_ids(ciral, tmp_path):
    _judge(ciral)
    client = client_for(None)
    guide = client.get(reverse("competitions:how_to_submit", args=[ciral.slug])).content.decode()
    example = re.search(r'<pre class="example-run">(.*?)</pre>', guide, re.S).group(1)
    assert _docids(example) <= {f"ha_doc_{n}{q}" for n in range(5) for q in QIDS}, example
    files = _sample(client, ciral.slug)
    assert sorted(files) == [f"run.sample.{code}.dev.txt" for code in ("ha", "so", "sw", "yo")]
    for name, text in files.items():
        code = name.split(".")[2]
        assert _docids(text) <= {f"{code}_doc_{n}{q}" for n in range(5) for q in QIDS}
        path = tmp_path / name
        path.write_text(text)
        run, report = read_run(str(path), topics={f"{code}-{q}": "" for q in QIDS}, docid_pattern=None)
        assert not report.errors and len(set(run.qids)) == len(QIDS)  # valid: no document twice in a query


def test_without_judgments_to_read_the_ids_are_plain_not_miracls(ciral):
    text = "".join(_sample(client_for(None), ciral.slug).values())
    assert not re.search(r"\d+#\d+", text)
    assert _docids(text) <= {f"doc{n}" for n in range(1, 21)}


def test_a_named_benchmarks_examples_keep_its_docid_rule(personas):
    dev = personas.competition.phases.get(slug="dev")
    make_topics(dev, "sw", ["4017", "9215"])
    make_qrels_release(dev, {"sw": {"4017": {"judged-but-not-miracl": 1}}})
    text = "".join(_sample(client_for(personas.participant), personas.competition.slug).values())
    assert _docids(text) and all(re.fullmatch(r"\d+#\d+", docid) for docid in _docids(text))


def test_how_to_submit_names_files_with_the_competitions_own_codes(ciral):
    guide = client_for(None).get(reverse("competitions:how_to_submit", args=[ciral.slug])).content.decode()
    assert "carry the language between dots, e.g. <code>run.mine.ha.dev.txt</code>" in guide  # not MIRACL's sw
