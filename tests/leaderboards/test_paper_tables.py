"""The overview paper's tables from the frozen official results: LaTeX whose structure holds
(and which compiles where a TeX engine is installed), Markdown that parses as a table, marks
equal to the evaluator's own test run pair by pair, and nothing changed by a later re-scoring."""
import csv
import io
import json
import re
import shutil
import subprocess
from datetime import timedelta

import pytest
import time_machine

from cupboard.leaderboards.models import FrozenSnapshot
from cupboard.leaderboards.paper_tables import TableError, paper_table
from cupboard.leaderboards.releases import final_results_release_due
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.submissions.models import QueryScores
from evaluator.significance import adjusted, randomization_test
from tests.factories import make_team, make_user
from tests.leaderboards.test_rank_bands import scored_with_queries
from tests.waiting import PATIENCE

pytestmark = pytest.mark.django_db

NASTY = r"R&D %$#_{}~^\ Lab"


HOSTILE_TEAM = "<img src=x onerror=alert(1)> [Click](https://evil.example)"
HOSTILE_METHOD = '=HYPERLINK("https://evil.example") \\input{/etc/passwd} *www.evil.example*'


@pytest.fixture
def snapshot(cast):
    return _frozen(cast, NASTY, "hybrid_v2")


@pytest.fixture
def hostile(cast):
    """Test B frozen with a team and a method named to become markup, links and formulas."""
    return _frozen(cast, HOSTILE_TEAM, HOSTILE_METHOD)


@pytest.fixture
def two_measures(cast):
    """Test B frozen with R@100 scored too (half each run's nDCG@10), so every measure has values."""
    return _frozen(cast, "Team C", "hybrid", second_measure=True)


def _frozen(cast, name: str, method: str, *, second_measure: bool = False):
    """Test B frozen at its reveal: a strong team, one named `name`, one near the baselines."""
    cast.competition.run_metadata = [{"name": "training", "label": "Training", "type": "choice",
                                      "choices": [["zero-shot", "Zero-shot"], ["trained", "Trained"]]}]
    cast.competition.save()
    phase = cast.competition.phases.get(slug="test-b")
    team_c = make_team(cast.competition, name=name, members=[make_user()])
    strong = scored_with_queries(phase, team=cast.team_a, method="dense", levels={"sw": 0.8, "te": 0.8, "yo": 0.8}, seed=1)
    scored_with_queries(phase, team=team_c, method=method, levels={"sw": 0.6, "te": 0.4, "yo": 0.5}, seed=2)
    scored_with_queries(phase, team=cast.team_b, method="sparse", levels={"sw": 0.41, "te": 0.3, "yo": 0.3}, seed=3)
    scored_with_queries(phase, method="BM25", levels={"sw": 0.4, "te": 0.3, "yo": 0.3}, seed=4)
    scored_with_queries(phase, method="mDPR", levels={"sw": 0.5, "te": 0.5, "yo": 0.2}, seed=5)
    strong.metadata = {"training": "zero-shot"}
    strong.save()
    if second_measure:
        from cupboard.submissions.models import Score

        Score.objects.bulk_create([Score(submission=s.submission, subset=s.subset, metric="R@100", value=s.value / 2)
                                   for s in Score.objects.filter(submission__phase=phase, metric="nDCG@10")])
    leaderboard_refresh(phase=phase)
    with time_machine.travel(phase.reveal_at + timedelta(seconds=1), tick=False):
        final_results_release_due()
    return FrozenSnapshot.objects.get(phase=phase)


def _rows(tex: str) -> list[str]:
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    return [line for line in body.strip().splitlines()]


def _cells(line: str) -> list[str]:
    return re.split(r"(?<!\\)&", line.removesuffix(r" \\"))


def test_the_latex_is_booktabs_with_a_row_per_run_and_escaped_names(snapshot):
    data = json.loads(snapshot.json)
    for table in ("languages", "averages"):
        tex = paper_table(snapshot, table=table, fmt="tex", metadata=["training"])
        for env in ("table*", "tabular"):
            assert tex.count(rf"\begin{{{env}}}") == tex.count(rf"\end{{{env}}}") == 1
        assert [tex.count(rule) for rule in (r"\toprule", r"\midrule", r"\bottomrule")] == [1, 1, 1]
        assert tex.index(r"\toprule") < tex.index(r"\midrule") < tex.index(r"\bottomrule")
        rows = _rows(tex)
        assert len(rows) == len(data["rows"]) == 5
        header = tex.split(r"\toprule")[1].split(r"\midrule")[0].strip()
        spec = re.search(r"\\begin\{tabular\}\{([lr]+)\}", tex).group(1)
        assert all(len(_cells(line)) == len(_cells(header)) == len(spec) for line in rows)
        assert r"R\&D \%\$\#\_\{\}\textasciitilde{}\textasciicircum{}\textbackslash{} Lab" in tex
        assert r"hybrid\_v2" in tex and NASTY not in tex
        assert "zero-shot" in rows[0] and "Training" in header
        assert tex.count("{") == tex.count("}") + tex.count(r"\}") - tex.count(r"\{")


@pytest.mark.skipif(not (shutil.which("pdflatex") or shutil.which("tectonic")), reason="no TeX engine installed")
def test_the_latex_compiles(snapshot, tmp_path):
    tables = "\n".join(paper_table(snapshot, table=t, fmt="tex", metadata=["training"]) for t in ("languages", "averages"))
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n"
                                        f"\\begin{{document}}\n{tables}\n\\end{{document}}\n")
    engine = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error"] if shutil.which("pdflatex") else ["tectonic"]
    subprocess.run([*engine, "paper.tex"], cwd=tmp_path, check=True, capture_output=True, timeout=PATIENCE)
    assert (tmp_path / "paper.pdf").exists()


def _md_rows(text: str) -> list[list[str]]:
    """The text of each cell of each row of the one table in `text`, as a CommonMark + tables
    parser reads it (escapes undone, emphasis markers gone)."""
    markdown_it = pytest.importorskip("markdown_it")
    tokens = markdown_it.MarkdownIt("commonmark").enable("table").parse(text)
    assert [t.type for t in tokens].count("table_open") == 1
    rows: list[list[str]] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append([])
        elif token.type == "inline" and token.level > 3:  # a cell's text, not the caption or the notes
            rows[-1].append("".join(child.content for child in token.children))
    return rows


def test_the_markdown_parses_as_one_table_with_a_row_per_run(snapshot):
    data = json.loads(snapshot.json)
    rows = _md_rows(paper_table(snapshot, table="averages", fmt="md", metadata=[]))
    header, *body = rows
    assert header[:5] == ["Rank", "Band", "Tier", "Team", "Run"] and header[-1] == "Avg"
    assert len(body) == len(data["rows"]) and all(len(row) == len(header) for row in body)
    assert any(row[3] == NASTY for row in body)
    assert body[0][1] == data["rows"][0]["standings"]["Avg"]["band"]


def _independent_marks(snapshot) -> dict[tuple[str, str], set[int]]:
    """{(team, column): {baseline k}} with the evaluator's two-run test, pair by pair, Holm over the teams."""
    data, payload = json.loads(snapshot.json), json.loads(snapshot.per_query)
    s = payload["significance"]
    rows = [r["values"] for r in payload["rows"]]
    codes = ["sw", "te", "yo"]
    queries = {code: sorted({q for r in rows for q in r.get(code, {})}) for code in codes}
    columns = {code: [code] for code in codes} | payload["columns"]
    baselines = [i for i, r in enumerate(data["rows"]) if r["baseline"]]
    teams = [i for i in range(len(rows)) if i not in baselines]
    found: dict[tuple[str, str], set[int]] = {}
    for key, members in columns.items():
        n = sum(len(queries[c]) for c in members)
        values = [{f"{c}/{q}": row[c][q] * n / (len(members) * len(queries[c])) for c in members for q in queries[c]}
                  for row in rows]
        for k, b in enumerate(baselines):
            tests = [randomization_test(values[i], values[b], trials=s["trials"], seed=s["seed"]) for i in teams]
            p = adjusted([t.p_value for t in tests], s["correction"])
            for i, test, p_value in zip(teams, tests, p, strict=True):
                if p_value < s["alpha"] and test.mean_difference > 0:
                    found.setdefault((data["rows"][i]["team"], key), set()).add(k)
    return found


def _table_marks(snapshot) -> dict[tuple[str, str], set[int]]:
    marks = {"†": 0, "‡": 1}
    found: dict[tuple[str, str], set[int]] = {}
    for table in ("languages", "averages"):
        header, *body = _md_rows(paper_table(snapshot, table=table, fmt="md", metadata=[]))
        for cells in body:
            team = cells[header.index("Team")]
            for heading, cell in zip(header, cells, strict=True):
                if heading in ("sw", "te", "yo", "K.Avg", "S.Avg", "Avg") and any(m in cell for m in marks):
                    found[(team, heading)] = {marks[m] for m in cell if m in marks}
    return found


def test_the_marks_equal_the_evaluator_s_test_pair_by_pair(snapshot):
    assert snapshot.marks.marks  # kept by the beat task at the freeze: pages only read them
    expected = _independent_marks(snapshot)
    assert expected[("Team A", "Avg")] == {0, 1} and ("Team B", "Avg") not in expected  # the data means something
    assert _table_marks(snapshot) == expected
    text = paper_table(snapshot, table="languages", fmt="md", metadata=[])
    assert "† mDPR, ‡ BM25" in text and "paired randomization test (10,000 trials, seed 0)" in text
    assert "Holm-Bonferroni correction" in text


def test_the_tables_stay_as_frozen_after_a_re_scoring(snapshot):
    before = paper_table(snapshot, table="averages", fmt="tex", metadata=[])
    QueryScores.objects.update(values={"nDCG@10": {"q0": 1.0}})
    leaderboard_refresh(phase=snapshot.phase)
    assert paper_table(FrozenSnapshot.objects.get(pk=snapshot.pk), table="averages", fmt="tex", metadata=[]) == before


def test_an_unknown_table_format_or_field_is_refused_by_name(snapshot):
    for kwargs, said in [({"table": "teams", "fmt": "md", "metadata": []}, "no table 'teams'"),
                         ({"table": "averages", "fmt": "docx", "metadata": []}, "no format 'docx'"),
                         ({"table": "averages", "fmt": "md", "metadata": ["size"]}, "no run metadata field size")]:
        with pytest.raises(TableError, match=said):
            paper_table(snapshot, **kwargs)


def test_participants_words_stay_text_in_every_export(hostile, client):
    """A team's name and a run's method are the participants' own: no table, file or page made
    of them may carry their markup, links or formulas (the Markdown table carried an <img> and
    a link the organizer then published)."""
    markdown_it = pytest.importorskip("markdown_it")
    for table in ("languages", "averages"):
        text = paper_table(hostile, table=table, fmt="md", metadata=[])
        html = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
        assert "<img" not in html and "<a " not in html and "<em>" not in html
        assert "https://" not in text and "www.evil" not in text  # a linkifying renderer finds no link
        header, *body = _md_rows(text)
        assert [row[header.index("Team")] for row in body].count(HOSTILE_TEAM) == 1
        assert [row[header.index("Run")] for row in body].count(HOSTILE_METHOD) == 1
        tex = paper_table(hostile, table=table, fmt="tex", metadata=[])
        assert r"\textbackslash{}input\{/etc/passwd\}" in tex and r"\input" not in tex.replace(r"\textbackslash{}input", "")
        assert r"\textless{}img src=x onerror=alert(1)\textgreater{}" in tex
    assert "<img" not in hostile.json and {HOSTILE_TEAM, HOSTILE_METHOD} <= {
        value for row in json.loads(hostile.json)["rows"] for value in (row["team"], row["method"])}
    assert f"'{HOSTILE_METHOD}" in list(csv.reader(io.StringIO(hostile.csv)))[2] + list(csv.reader(io.StringIO(hostile.csv)))[3]
    slug = hostile.phase.competition.slug
    with time_machine.travel(hostile.phase.reveal_at + timedelta(seconds=2), tick=False):
        for address in (f"/c/{slug}/test-b/leaderboard.json", f"/c/{slug}/test-b/official.json"):
            answer = client.get(address)
            assert answer.status_code == 200 and b"<img" not in answer.content
            assert HOSTILE_TEAM in [row["team"] for row in answer.json()["rows"]]
        for address in (f"/c/{slug}/test-b/leaderboard/", f"/c/{slug}/test-b/results/"):
            page = client.get(address)
            assert page.status_code == 200, address
            assert "<img src=x" not in page.content.decode() and "&lt;img src=x onerror=alert(1)&gt;" in page.content.decode()


def test_the_measures_table_lists_every_measure_of_every_row_on_avg(two_measures):
    snapshot = two_measures
    """As a TREC overview's appendix (issue 34): a column per measure the phase declares."""
    data = json.loads(snapshot.json)
    rows = _md_rows(paper_table(snapshot, table="measures", fmt="md", metadata=[]))
    header, *body = rows
    assert header[-len(data["metrics"]):] == data["metrics"] and len(body) == len(data["rows"])
    decimals = data["rounded_to"] or 3
    for row, frozen in zip(body, data["rows"], strict=True):
        for name, cell in zip(data["metrics"], row[-len(data["metrics"]):], strict=True):
            assert cell == f"{frozen['averages']['Avg'][name]:.{decimals}f}"
    text = paper_table(snapshot, table="measures", fmt="md", metadata=[])
    assert "Every measure on Avg" in text and "per language" not in text


def test_a_chosen_measure_makes_the_languages_table(two_measures):
    snapshot = two_measures
    data = json.loads(snapshot.json)
    other = next(m for m in data["metrics"] if m != data["primary_metric"])
    text = paper_table(snapshot, table="languages", fmt="md", metadata=[], metric=other)
    header, *body = _md_rows(text)
    code = data["subsets"][0]["code"]
    column = header.index(code)
    assert [row[column] for row in body] == [f"{r['values'][code][other]:.{data['rounded_to'] or 3}f}"
                                             for r in data["rows"]]
    assert text.startswith(f"**{other.replace('@', chr(92) + '@')} per language")
    assert "Marks:" not in text and "they test the primary measure, nDCG@10" in text
    with pytest.raises(TableError, match="no measure 'MAP@7'"):
        paper_table(snapshot, table="languages", fmt="md", metadata=[], metric="MAP@7")
