"""The definition's digest is derived from the rows (competitions/digest.py), so it is true
after every path that edits a competition: the loader, the organizer area's schedule, reveal
and board-rules forms, and the admin. After each, the organizer area's download loaded back
with `load_competition` is no change, and a file from before the edit says exactly what differs.

The personas' cup was made row by row, never loaded from a file: its download must load back
as well. Test-b is private until 30 days from now, the surprise group revealed in 10 days."""
import io
from datetime import timedelta

import pytest
import yaml
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from cupboard.competitions.changes import shown
from cupboard.competitions.definition import DEFINITIONS_DIR, EXAMPLES_DIR, definition_load, definition_values
from cupboard.competitions.digest import competition_digest, definition_digest
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load, competition_load_changes
from tests.admin_forms import admin_form_data
from tests.personas import personas  # noqa: F401

INSTANT = "%Y-%m-%d %H:%M:%S"
FILES = sorted(DEFINITIONS_DIR.glob("*.yaml")) + sorted(EXAMPLES_DIR.glob("*.yaml"))


def _download(personas) -> bytes:
    response = personas.client_for(personas.organizer).get(reverse("competitions:definition_download", args=["cup"]))
    assert response.status_code == 200
    return response.content


def _load(tmp_path, content: bytes, *options: str) -> str:
    path = tmp_path / "cup.yaml"
    path.write_bytes(content)
    out = io.StringIO()
    call_command("load_competition", str(path), *options, stdout=out)
    return out.getvalue()


def _bumped(content: bytes) -> bytes:
    data = yaml.safe_load(content)
    return yaml.safe_dump(data | {"version": data["version"] + 1}).encode()


def _loads_back_unchanged(personas, tmp_path, *, before: str) -> None:
    """The edit moved the digest, and the download after it loads back as no change."""
    cup = Competition.objects.get(slug="cup")
    assert competition_digest(cup) != before
    content = _download(personas)
    assert definition_digest(definition_values(definition_load(yaml.safe_load(content)))) == competition_digest(cup)
    assert _load(tmp_path, content).startswith("cup: nothing changed (definition version 1)")


@pytest.mark.django_db
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_it_is_the_same_from_a_file_and_from_the_rows_the_file_made(path):
    competition = competition_load(data=path)
    assert competition_digest(competition) == definition_digest(definition_values(definition_load(path)))


def test_a_competition_made_row_by_row_loads_back_as_no_change(personas, tmp_path):
    assert _load(tmp_path, _download(personas)).startswith("cup: nothing changed")


def _later(instant, **delta) -> str:
    return (instant + timedelta(**delta)).replace(microsecond=0).strftime(INSTANT)


@pytest.mark.parametrize(("form", "place", "posted"), [
    ("manage_schedule", "test-b", lambda cup: {"visibility": "private", "hidden_qrels": "on",
                                               "reveal_at": _later(cup.phases.get(slug="test-b").reveal_at, days=1)}),
    ("manage_group", "surprise", lambda cup: {"reveal_at": _later(cup.groups.get(name="surprise").reveal_at, days=2)}),
    ("manage_board_rules", "dev", lambda cup: {"freeze_at": _later(timezone.now(), days=2), "ladder": "on"}),
], ids=["schedule", "reveal", "board-rules"])
def test_an_edit_in_the_organizer_area(personas, tmp_path, form, place, posted):
    before = competition_digest(personas.competition)
    response = personas.client_for(personas.organizer).post(
        reverse(f"competitions:{form}", args=["cup", place]), posted(personas.competition) | {"confirm": "1"})
    assert response.status_code == 302
    _loads_back_unchanged(personas, tmp_path, before=before)


@pytest.mark.parametrize(("model", "find", "edit"), [
    ("competition", lambda cup: cup, {"title": "Renamed in the admin", "team_size_max": "4"}),
    ("phase", lambda cup: cup.phases.get(slug="test-b"), {"daily_limit": "7", "position": "9"}),
    ("subsetgroup", lambda cup: cup.groups.get(name="known"), {"label": "Known avg."}),
    ("subset", lambda cup: cup.subsets.get(code="te"), {"name": "Telugu (admin)"}),
])
def test_an_edit_in_the_admin(personas, admin_client, tmp_path, model, find, edit):
    before = competition_digest(personas.competition)
    url = reverse(f"admin:competitions_{model}_change", args=[find(personas.competition).pk])
    response = admin_client.post(url, admin_form_data(admin_client.get(url)) | edit)
    assert response.status_code == 302, response.context and response.context["adminform"].form.errors
    _loads_back_unchanged(personas, tmp_path, before=before)


def test_a_file_from_before_a_schedule_edit_says_exactly_that_difference(personas, tmp_path):
    old_file = _download(personas)
    test_b = personas.competition.phases.get(slug="test-b")
    was, later = test_b.reveal_at, (test_b.reveal_at + timedelta(days=1)).replace(microsecond=0)
    personas.client_for(personas.organizer).post(
        reverse("competitions:manage_schedule", args=["cup", "test-b"]),
        {"visibility": "private", "reveal_at": later.strftime(INSTANT), "hidden_qrels": "on", "confirm": "1"})

    with pytest.raises(CommandError) as refused:  # the same version, saying something else
        _load(tmp_path, old_file)
    assert str(refused.value).splitlines()[1:] == [
        "  version: cup is at version 1; raise version above it to change it",
        f"  phases.test-b.reveal_at: the competition has {shown(later)}, this file {shown(was)}"]

    printed = _load(tmp_path, _bumped(old_file), "--dry-run").splitlines()
    assert printed[1:] == [f"  * phases.test-b.reveal_at: {shown(later)} -> {shown(was)}"]
    assert Competition.objects.get(slug="cup").phases.get(slug="test-b").reveal_at == later  # a dry run


@pytest.mark.django_db
def test_a_file_without_a_start_keeps_the_competitions_and_loads_again_as_no_change():
    data = {k: v for k, v in yaml.safe_load((EXAMPLES_DIR / "ciral-like.yaml").read_text()).items() if k != "starts_at"}
    started = competition_load(data=data).starts_at
    assert competition_load_changes(data=data)[1] == []
    assert competition_load_changes(data=data | {"version": 2})[1] == []  # not "starts_at: ... -> none"
    assert Competition.objects.get().starts_at == started
