"""Every link between the README and the guides in docs/ leads somewhere: the file exists and,
when the link names a heading (`deployment.md#how-a-leaderboard-is-served`), the file has that
heading, as GitHub makes its anchor. Guides move and headings change; a dead link is found here."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(markdown: str) -> set[str]:
    """GitHub's anchors of the headings (lower case, punctuation dropped, spaces as hyphens) and
    the ones written out (`<a id="depth"></a>`)."""
    headings = re.findall(r"^#+ (.+)$", markdown, flags=re.M)
    written = re.findall(r"<a (?:id|name)=\"([^\"]+)\"", markdown)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in headings} | set(written)


def dead_links(page: Path) -> list[str]:
    dead = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # another site
        path, _, anchor = target.partition("#")
        destination = page.parent / path if path else page
        if not destination.exists():
            dead.append(f"{page.name}: {target}: no such file")
        elif anchor and anchor not in anchors(destination.read_text(encoding="utf-8")):
            dead.append(f"{page.name}: {target}: no such heading")
    return dead


def test_every_link_of_the_readme_and_the_guides_leads_somewhere():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    assert len(pages) >= 8
    assert [problem for page in pages for problem in dead_links(page)] == []


def test_a_dead_link_is_found(tmp_path):
    (tmp_path / "a.md").write_text('# A page\n\n<a id="here"></a>[ok](#a-page) [ok](#here) [gone](b.md) '
                                   "[moved](a.md#old-heading)\n")
    assert dead_links(tmp_path / "a.md") == ["a.md: b.md: no such file", "a.md: a.md#old-heading: no such heading"]
