"""docs/python.md runs as a notebook: its ```python cells, in order, in one namespace, from the
checkout's root, against runserver and a real Celery worker holding the Cup's dev phase as
the demo has it (the shipped sw and yo samples as its topics and judgments; the setup of
tests/e2e/test_guide_commands.py). The only change made to the text is the server's address;
the token is alice's, in $CUPBOARD_TOKEN as the page says. The board's values must equal the
local scores to the board's decimals, and what the page shows as output is what it computed."""
from __future__ import annotations

import contextlib
import re

import pytest

from tests.conftest import SHARED_DATA
from tests.e2e.stack import ROOT, Stack, free_port
from tests.e2e.test_guide_commands import SETUP, guide

pytestmark = [pytest.mark.worker, pytest.mark.slow]


def cells(text: str) -> list[tuple[str, str]]:
    """(code, the ```text output shown after it, or "") of each ```python cell, in order."""
    found = re.findall(r"^```python\n(.*?)^```\n(?:\n```text\n(.*?)^```\n)?", text, flags=re.S | re.M)
    return [(code, shown) for code, shown in found]


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    port = free_port()  # the site's own address is in its answers (a topics file's url)
    with Stack(tmp_path_factory.mktemp("e2e-notebook"), CUPBOARD_SITE_URL=f"http://127.0.0.1:{port}") as stack:
        stack.migrate()
        stack.token = stack.manage("shell", "-c", SETUP).strip().splitlines()[-1]
        stack.start_server(port)
        stack.start_worker()
        yield stack


def test_the_pages_cells_run_in_order_and_the_board_shows_the_local_scores(stack, monkeypatch):
    monkeypatch.setenv("CUPBOARD_TOKEN", stack.token)
    page = cells(guide("python"))
    assert len(page) >= 9, "the page's cells: score, connect, phases, topics, submit, refusal, board, mine, beside"
    namespace: dict = {}
    with contextlib.chdir(ROOT):
        for number, (code, _) in enumerate(page, start=1):
            code = code.replace("http://127.0.0.1:8000", stack.url)
            exec(compile(code, f"docs/python.md cell {number}", "exec"), namespace)

    local, scores, board, beside = (namespace[name] for name in ("local", "scores", "board", "beside"))
    assert len(beside) == 4 and (beside["board"] == beside["local"]).all(), beside
    decimals = board.attrs["rounded_to"]
    for code in ("sw", "yo"):
        assert scores.loc[code].to_dict() == {m: round(v, decimals) for m, v in local[code].aggregates.items()}
    assert scores.attrs["submission"]["status"] == "scored"
    assert "miracl-wsdm-cup" in set(namespace["cb"].competitions().slug)
    assert list(namespace["topics"].columns) == ["subset", "qid", "query"]
    assert stack.query("SELECT count(*) FROM submissions_submission WHERE method_name = 'not a run'") == [(0,)]
    zero_shot = namespace["cb"].leaderboard("miracl-wsdm-cup", "dev", meta={"training": "zero-shot"})
    trained = namespace["cb"].leaderboard("miracl-wsdm-cup", "dev", meta={"training": "miracl-train"})
    assert zero_shot.method.tolist() == ["BM25 from a notebook"] and trained.empty  # the page's filter
    assert zero_shot.attrs["filter"] == {"training": "zero-shot"} and zero_shot["meta:training"].tolist() == ["zero-shot"]

    shown = {code: out for code, out in page}
    said = {m: f"{v:.4f}" for m, v in local["sw"].aggregates.items()}
    assert f"{{'nDCG@10': {said['nDCG@10']}..., 'R@100': {said['R@100']}...}}" in shown[page[0][0]]
    refusal = namespace["refusal"]
    assert repr((refusal["file"], refusal["line"], refusal["code"])) in "".join(shown.values())
    rows = [f"{code} " + " ".join(f"{round(v, decimals):.{decimals}f}" for v in local[code].aggregates.values())
            for code in ("sw", "yo")]
    rows += ["0 miracl-wsdm-cup [dev, test-a, test-b]",
             f"0 1 BM25 from a notebook scored {namespace['mine']['nDCG@10 Avg']:.{decimals}f}"]
    rows += [f"{slug} {name}" for slug, name in namespace["cb"].phases("miracl-wsdm-cup")[["slug", "name"]].values]
    for row in rows:  # as shown, whatever the columns' padding
        assert any(row in " ".join(out.split()) for out in shown.values()), row


ALICE_TOKEN = """
from django.contrib.auth.models import User
from cupboard.accounts.services import api_token_create
print(api_token_create(user=User.objects.get(username="alice")))
"""


# The demo from the real files, as the other demo tests load it (tests/demo/): a quarter of the
# queries and one run per team and phase (`make demo` has two or three: more of the same to score).
DEMO = """
from pathlib import Path
from cupboard.demo.services import demo_load
demo_load(data_dir=Path({data!r}), scale=0.25, per_team=1, log=lambda line: None)
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo as `make demo` makes it from the real MIRACL files (a quarter of its queries, each
    phase's first ones: the samples' among them; one run per team and phase), served. On the
    shipped samples alone the Cup's Development phase holds half of the samples' 12 queries, so
    the page's runs are refused."""
    folder = tmp_path_factory.mktemp("e2e-notebook-demo")
    port = free_port()
    with Stack(folder, CUPBOARD_SITE_URL=f"http://127.0.0.1:{port}") as stack:
        stack.migrate()
        stack.manage("shell", "-c", DEMO.format(data=str(SHARED_DATA)), timeout=1200)
        stack.token = stack.manage("shell", "-c", ALICE_TOKEN).strip().splitlines()[-1]
        stack.start_server(port)
        stack.start_worker()
        yield stack


@pytest.mark.shared_data
def test_the_pages_cells_run_on_the_demo_as_written(demo, monkeypatch):
    """The page says to run it against the demo with alice's token: every cell runs there too,
    where her team has runs of its own on the board (issue 33: section 6 raised IndexError)."""
    monkeypatch.setenv("CUPBOARD_TOKEN", demo.token)
    namespace: dict = {}
    with contextlib.chdir(ROOT):
        for number, (code, _) in enumerate(cells(guide("python")), start=1):
            exec(compile(code.replace("http://127.0.0.1:8000", demo.url), f"docs/python.md cell {number}", "exec"),
                 namespace)
    mine, beside = namespace["mine"], namespace["beside"]
    assert mine["method_name"] == "BM25 from a notebook" and mine["status"] == "scored"
    assert len(beside) == 4 and beside["board"].notna().all(), beside
    assert "BM25 from a notebook" not in set(namespace["board"].method), "the demo's board keeps Lighthouse's best run"
