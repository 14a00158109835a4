"""The audit log shows details as `key: value` text, not a Python dict; a SHA-256 is cut for
the eye with the whole value in the title."""
from django.urls import reverse

from cupboard.audit.details import readable_details
from cupboard.audit.models import AuditEvent
from cupboard.audit.services import audit_record
from tests.personas import client_for, personas  # noqa: F401

SHA = "ab" * 32


def test_details_read_as_key_value_text():
    rows = readable_details({"team": 3, "day": None, "files": [{"subset": "sw", "sha256": SHA}], "hidden_qrels": True})
    assert [(r["key"], r["text"]) for r in rows] == [
        ("team", "id 3"), ("day", "–"), ("files", f"subset: sw, sha256: {SHA[:12]}…"), ("hidden qrels", "yes")]
    assert SHA in rows[2]["full"]


def test_the_log_page_shows_no_python_dicts(personas):  # noqa: F811
    audit_record(competition=personas.competition, actor=personas.organizer, action=AuditEvent.Action.LIMIT_GRANTED,
                 summary="+2", details={"team": 1, "phase": 2, "extra": 2, "day": None, "sha256": SHA})
    page = client_for(personas.organizer).get(reverse("audit:log", args=[personas.competition.slug])).content.decode()
    assert "extra: 2" in page and "day: –" in page and f"sha256: {SHA[:12]}…" in page and f'title="{SHA}"' in page
    assert "{&#x27;" not in page and "{'" not in page
