"""A competition's own pages from its YAML (Markdown rendered safely), the generated How to submit
page, and the two archives: what they show, and that a surprise language stays out until its reveal."""
from __future__ import annotations

import io
import re
import zipfile
from datetime import timedelta

import pytest
import yaml
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.definition import DEFINITIONS_DIR, definition_parse
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Competition
from cupboard.competitions.pages import render_markdown
from cupboard.competitions.services import competition_load
from evaluator.io.runs import read_run
from tests.factories import make_topics, make_user
from tests.personas import client_for, personas  # noqa: F401

pytestmark = pytest.mark.django_db

QIDS = ["4017", "9215", "12003"]


@pytest.fixture
def cup(personas):
    competition = personas.competition
    competition.pages = {"rules": "1. **One** team per person.\n\n<script>alert('x')</script>\n\n"
                                  "[click](javascript:alert(1)) [MIRACL](https://example.org/miracl)"}
    competition.save()
    dev = competition.phases.get(slug="dev")
    for code in ("sw", "te", "yo"):
        make_topics(dev, code, QIDS if code == "sw" else [f"{code}-{q}" for q in QIDS])
    return personas


def zip_names(response) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


def test_a_page_renders_markdown_without_running_anything(cup):
    body = client_for(cup.participant).get(reverse("competitions:page", args=["cup", "rules"])).content.decode()
    assert "<strong>One</strong>" in body
    assert "<script>alert" not in body and "&lt;script&gt;" in body
    assert 'href="javascript:' not in body
    assert 'href="https://example.org/miracl"' in body
    assert client_for(cup.participant).get(reverse("competitions:page", args=["cup", "faq"])).status_code == 404


def test_the_competition_page_links_the_filled_pages_and_how_to_submit(cup):
    body = client_for(cup.anonymous).get(reverse("competitions:detail", args=["cup"])).content.decode()
    assert reverse("competitions:page", args=["cup", "rules"]) in body
    assert reverse("competitions:page", args=["cup", "faq"]) not in body
    assert reverse("competitions:how_to_submit", args=["cup"]) in body
    assert reverse("competitions:topics_archive", args=["cup", "dev"]) in body


def test_the_sign_up_link_brings_a_visitor_back_to_the_competition(cup):
    """Signing up from a competition's page lands on it again, as logging in does."""
    page = reverse("competitions:detail", args=["cup"])
    body = client_for(cup.anonymous).get(page).content.decode()
    assert f'{reverse("accounts:signup")}?next={page}"' in body
    client = client_for(cup.anonymous)
    response = client.post(f'{reverse("accounts:signup")}?next={page}',
                           {"username": "newcomer", "email": "newcomer@example.org",
                            "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"})
    assert response.status_code == 302 and response["Location"] == page


def test_how_to_submit_builds_the_example_and_command_from_the_phase(cup):
    body = client_for(cup.participant).get(reverse("competitions:how_to_submit", args=["cup"])).content.decode()
    assert "4017 Q0 1000#0 1 3.0 mine" in body and "9215 Q0 1010#0 1 3.0 mine" in body
    assert "--competition cup" in body and "--phase dev" in body
    assert "run.mine.sw.dev.txt run.mine.te.dev.txt" in body
    assert "--topics topics.cup-sw-dev.tsv topics.cup-te-dev.tsv" in body
    assert f"--server {settings.SITE_URL}" in body  # CUPBOARD_SITE_URL, not the Host asked
    assert "pip install" in body and "cupboard-eval submit" in body
    assert "Left for your team: no limit" in body  # dev has no limits
    # nDCG@10 and R@100 read no deeper than 100 (Competition.scored_depth)
    assert "Each query may list up to 1000 documents, of which the top 100 are scored;" in body


def test_how_to_submit_shows_the_limits_left_today(cup):
    test_b = cup.competition.phases.get(slug="test-b")  # 5 a day
    make_topics(test_b, "sw", QIDS)
    body = client_for(cup.participant).get(reverse("competitions:how_to_submit", args=["cup"])).content.decode()
    assert "Left for your team: 5 today." in body
    anonymous = client_for(cup.anonymous).get(reverse("competitions:how_to_submit", args=["cup"])).content.decode()
    assert "Left for your team" not in anonymous and "Log in" in anonymous


def test_surprise_languages_stay_out_of_the_guide_and_archives_until_their_reveal(cup, time_machine):
    urls = [reverse("competitions:how_to_submit", args=["cup"]),
            reverse("competitions:topics_archive", args=["cup", "dev"]),
            reverse("competitions:sample_submission", args=["cup", "dev"])]
    for persona in (cup.anonymous, cup.participant, cup.outsider):
        guide, topics, sample = (client_for(persona).get(url) for url in urls)
        assert "run.mine.yo" not in guide.content.decode() and "yo-4017" not in guide.content.decode()
        assert sorted(zip_names(topics)) == ["topics.cup-sw-dev.tsv", "topics.cup-te-dev.tsv"]
        assert sorted(zip_names(sample)) == ["run.sample.sw.dev.txt", "run.sample.te.dev.txt"]
    organizer = zip_names(client_for(cup.organizer).get(urls[2]))
    assert "run.sample.yo.dev.txt" in organizer
    time_machine.move_to(timezone.now() + timedelta(days=11))  # after the surprise group's reveal
    assert "run.sample.yo.dev.txt" in zip_names(client_for(cup.participant).get(urls[2]))


def test_the_sample_submission_holds_valid_runs_for_every_topic(cup, tmp_path):
    files = zip_names(client_for(cup.participant).get(reverse("competitions:sample_submission", args=["cup", "dev"])))
    path = tmp_path / "run.sample.sw.dev.txt"
    path.write_text(files["run.sample.sw.dev.txt"])
    run, report = read_run(str(path), topics={q: "" for q in QIDS}, docid_pattern=r"[0-9]+#[0-9]+", max_depth=100)
    assert run is not None and not report.errors, report.errors
    assert sorted(set(run.qids)) == sorted(QIDS)


def test_an_unpublished_competition_shows_nothing_to_non_organizers(cup):
    draft = cup.other_competition
    draft.is_published, draft.pages = False, {"overview": "Secret plans."}
    draft.save()
    for name, args in (("competitions:page", [draft.slug, "overview"]), ("competitions:how_to_submit", [draft.slug]),
                       ("competitions:topics_archive", [draft.slug, "dev"])):
        assert client_for(cup.participant).get(reverse(name, args=args)).status_code == 404
    assert b"Secret plans." in client_for(cup.other_organizer).get(
        reverse("competitions:page", args=[draft.slug, "overview"])).content


def test_the_definition_reads_pages_and_names_a_wrong_key():
    data = yaml.safe_load((DEFINITIONS_DIR / "miracl-wsdm-cup.yaml").read_text())
    assert set(definition_parse(data)["competition"]["pages"]) == {"overview", "rules", "data", "evaluation", "faq"}
    data["pages"] = {"rulez": "x", "faq": 3}
    with pytest.raises(DefinitionError) as error:
        definition_parse(data)
    assert "pages.rulez: unknown key; did you mean 'rules'?" in error.value.problems
    assert any(p.startswith("pages.faq: must be text") for p in error.value.problems)


def test_the_cup_pages_never_name_a_surprise_language():
    pages = yaml.safe_load((DEFINITIONS_DIR / "miracl-wsdm-cup.yaml").read_text())["pages"]
    html = " ".join(str(render_markdown(text)) for text in pages.values()).lower()
    assert not re.findall(r"\b(de|yo|german|yoruba)\b", html)


def test_it_invites_to_form_a_team_only_until_the_entry_deadline(personas):
    competition, newcomer = personas.competition, make_user("newcomer")
    url = reverse("competitions:detail", args=[competition.slug])
    competition.entry_deadline = timezone.now() + timedelta(days=1)
    competition.save()
    page = client_for(newcomer).get(url).content.decode()
    assert "create a team</a>" in page and "UTC</time>.</p>" in page  # no space before the full stop

    competition.entry_deadline = timezone.now() - timedelta(minutes=1)
    competition.save()
    for visitor in (newcomer, personas.anonymous):
        page = client_for(visitor).get(url).content.decode()
        assert "create a team</a>" not in page and "sign up</a>" not in page
        assert "no new team can be created or joined" in page
    assert "if you are in a team already" in page  # the anonymous visitor may be in one
    assert "Your team:" in client_for(personas.participant).get(url).content.decode()


def test_the_competition_page_says_what_its_boards_rank_by(db):
    """From the definition: DuReader's description once claimed "MRR@10 on the in-domain set"
    while its table ranked by Avg over four test sets."""
    competition_load(data=DEFINITIONS_DIR / "dureader-retrieval.yaml")
    body = client_for(None).get(reverse("competitions:detail", args=["dureader-retrieval"])).content.decode()
    rule = re.search(r'<p id="ranking">(.*?)</p>', body, re.S).group(1)
    assert re.sub(r"<[^>]+>", "", rule) == (
        "Leaderboards rank teams by Avg, the mean MRR@10 over a phase's test sets and language pairs; each group's "
        "own mean is shown too: In-domain, Out of domain (OOD.Avg), Cross-lingual. Also reported: R@1, R@50.")
    assert "in-domain set" not in body.split('id="ranking"')[0].lower().replace("an in-domain test set", "")


def test_the_ranking_rule_names_only_the_groups_a_viewer_sees(cup):
    rule = _ranking_text(client_for(cup.anonymous))
    assert "Known (K.Avg)" in rule and "S.Avg" not in rule and "urprise" not in rule
    assert "Surprise (S.Avg)" in _ranking_text(client_for(cup.organizer))


def _ranking_text(client) -> str:
    body = client.get(reverse("competitions:detail", args=["cup"])).content.decode()
    return re.sub(r"<[^>]+>", "", re.search(r'<p id="ranking">(.*?)</p>', body, re.S).group(1))


@pytest.mark.parametrize(("definition", "heading"), [("lareqa.yaml", "XQuAD-R"), ("clirmatrix.yaml", "From ar (ar.Avg)"),
                                                     ("clirmatrix.yaml", "Mixed (M.Avg)"),
                                                     ("miracl-wsdm-cup.yaml", "Known (K.Avg)")])
def test_a_group_is_named_once_and_well(db, definition, heading):
    """Not "Xquad-r (XQuAD-R)" nor "From-ar (ar.Avg)"."""
    competition = competition_load(data=DEFINITIONS_DIR / definition)
    body = client_for(None).get(reverse("competitions:detail", args=[competition.slug])).content.decode()
    assert f"<p><strong>{heading}</strong>:" in body
    assert "Xquad-r" not in body and "From-ar" not in body


def test_the_description_is_markdown_and_its_wrapped_lines_one_paragraph(db):
    """A YAML block's lines are wrapped for the file, not for the page: DuReader's sentence was
    broken after "two" (linebreaks made every newline a <br>). Markdown as the pages: raw HTML stays text."""
    competition_load(data=DEFINITIONS_DIR / "dureader-retrieval.yaml")
    Competition.objects.filter(slug="dureader-retrieval").update(
        description="Passages from **Baidu**: an in-domain test set, two\nout-of-domain ones.\n\n<script>x()</script>")
    body = client_for(None).get(reverse("competitions:detail", args=["dureader-retrieval"])).content.decode()
    description = re.search(r'<div class="card description">(.*?)</div>', body, re.S).group(1)
    assert "<br" not in description and "two\nout-of-domain ones." in description
    assert "<strong>Baidu</strong>" in description and "<script>" not in description
    assert description.count("<p>") == 2
