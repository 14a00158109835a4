"""Django's `{# ... #}` comment ends on its own line: one spread over two lines is printed as
text (the 404 page showed its note about tests/rules to every visitor). Longer notes use
{% comment %}."""
import re
from pathlib import Path

from django.conf import settings


def test_every_short_comment_closes_on_its_line():
    templates = [path for folder in settings.TEMPLATES[0]["DIRS"] for path in sorted(Path(folder).rglob("*.html"))]
    assert len(templates) > 50
    unclosed = [f"{path.name}:{number}" for path in templates
                for number, line in enumerate(path.read_text().splitlines(), start=1)
                if re.search(r"\{#(?!.*#\})", line)]
    assert not unclosed, unclosed
