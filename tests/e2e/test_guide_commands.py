"""The guides' commands work as written. The participant's: the shell blocks of the demo
walk-through's upload step (docs/demo.md) and of docs/participants.md run, in order, in one folder, against
runserver and a real worker holding the Cup's dev phase as the demo has it (dates shifted to
now, the shipped sw and yo samples as topics and judgments). The only changes made to the text:
the server's address, the virtualenv's path, the samples' folder, and the token (set, not
`...`). The organizer's (docs/organizers.md: load the Cup, import the real MIRACL dev topics and
judgments) run on a fresh database with ../shared/data where it is (skipped without it)."""
from __future__ import annotations

import os
import re
import subprocess
import textwrap

import pytest

from tests.conftest import SHARED_DATA
from tests.e2e.stack import BIN, ROOT, Stack, free_port, wait_until

pytestmark = [pytest.mark.worker, pytest.mark.slow]

SETUP = """
from django.utils import timezone
from cupboard.accounts.services import api_token_create
from cupboard.competitions.services import competition_load, qrels_release_create
from cupboard.competitions.topic_files import topics_import
from cupboard.demo.plan import COMPETITIONS
from evaluator.samples import sample_path
from tests.factories import make_team, make_user

organizer = make_user("organizer")
cup = competition_load(data=COMPETITIONS[0].definition_data(now=timezone.now()), actor=organizer)
dev = cup.phases.get(slug="dev")
for code in ("sw", "yo"):
    topics_import(phase=dev, subset=code, file=sample_path("topics", code), name=f"topics.demo-miracl-dev-{code}.tsv")
qrels_release_create(phase=dev, files={code: sample_path("qrels", code) for code in ("sw", "yo")}, actor=organizer)
alice = make_user("alice")
make_team(cup, name="Lighthouse", members=[alice])  # the demo forms its teams before entry closes
print(api_token_create(user=alice))
"""


def guide(name: str) -> str:
    return (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")


def shell_blocks(text: str) -> list[str]:
    """The ```sh blocks, dedented (a block inside a list item is indented with it)."""
    return [textwrap.dedent(body) for _, body in re.findall(r"^( *)```sh\n(.*?)^\1```", text, flags=re.S | re.M)]


def participant_commands() -> list[str]:
    demo = [block for block in shell_blocks(guide("demo")) if "evaluator submit" in block]
    return demo + shell_blocks(guide("participants"))


def as_run_here(block: str, *, url: str) -> str:
    block = "\n".join(line for line in block.splitlines() if not line.startswith("export CUPBOARD_TOKEN="))
    return (block.replace("http://127.0.0.1:8000", url).replace(".venv/bin/", f"{BIN}/")
            .replace("S=evaluator/samples", f"S={ROOT}/evaluator/samples"))


def test_the_participant_commands_of_the_guides_run(tmp_path):
    blocks = participant_commands()
    assert len(blocks) >= 4 and any("validate" in b for b in blocks) and any("curl" in b for b in blocks)
    port = free_port()  # the site's address is in its answers (the topics files the client fetches)
    stack = Stack(tmp_path / "stack", CUPBOARD_SITE_URL=f"http://127.0.0.1:{port}")
    (tmp_path / "stack").mkdir()
    work = tmp_path / "participant"
    work.mkdir()
    with stack:
        stack.migrate()
        token = stack.manage("shell", "-c", SETUP).strip().splitlines()[-1]
        stack.start_server(port)
        stack.start_worker()
        env = {**os.environ, "CUPBOARD_TOKEN": token}
        for block in blocks:
            result = subprocess.run(["bash", "-euo", "pipefail", "-c", as_run_here(block, url=stack.url)], cwd=work,
                                    env=env, capture_output=True, text=True, timeout=300)
            assert result.returncode == 0, f"{block}\nexit {result.returncode}\n{result.stdout}\n{result.stderr}"
            if "evaluator submit" in block:
                assert "submission #1 scored" in result.stdout, result.stdout + result.stderr
            if "api/$ID/" in block:
                assert '"status": "scored"' in result.stdout.replace('"status":"scored"', '"status": "scored"')
        wait_until(lambda: stack.query("SELECT status, method_name FROM submissions_submission")
                   == [("scored", "my first run")], what="the guide's run to be stored once")
    assert (work / "topics.demo-miracl-dev-sw.tsv").read_text().startswith(
        (ROOT / "evaluator/samples/topics.miracl-v1.0-sw-dev.tsv").read_text().splitlines()[0])


@pytest.mark.shared_data
def test_the_organizer_commands_of_the_guide_run(tmp_path):
    [block] = [b for b in shell_blocks(guide("organizers")) if "import_qrels" in b]
    stack = Stack(tmp_path)
    stack.migrate()
    script = block.replace(".venv/bin/", f"{BIN}/").replace("../shared/data", str(SHARED_DATA))
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=ROOT, env=stack.env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, f"{block}\nexit {result.returncode}\n{result.stdout}\n{result.stderr}"
    languages = len(list((SHARED_DATA / "miracl-v1.0-dev").glob("topics.*")))
    assert stack.query("SELECT count(*) FROM competitions_topicset") == [(languages,)]
    assert stack.query("SELECT number, note FROM competitions_qrelsrelease") == [(1, "MIRACL v1.0 dev")]
    # "import_qrels ... then prints each file's SHA-256", as docs/organizers.md says: the stored file's
    digests = dict(stack.query("SELECT s.code, f.sha256 FROM competitions_qrelsfile f "
                               "JOIN competitions_subset s ON s.id = f.subset_id"))
    assert len(digests) == languages
    assert all(f"{code}: " in result.stdout and digest in result.stdout for code, digest in digests.items())
