"""Creating and editing a competition in the browser: fields or YAML, each through the loader
`load_competition` uses, its diff shown before it applies, problems at their field or line."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
import yaml
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from cupboard.audit.models import AuditEvent
from cupboard.competitions.definition import DEFINITIONS_DIR, EXAMPLES_DIR
from cupboard.competitions.definition_export import definition_yaml, yaml_text
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load
from tests.factories import make_user

pytestmark = pytest.mark.django_db
EXAMPLE = EXAMPLES_DIR / "ciral-like.yaml"


def client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


@pytest.fixture
def organizer():
    return make_user("organizer")


@pytest.fixture
def ciral(organizer):
    data = yaml.safe_load(EXAMPLE.read_text())
    now = timezone.now().replace(microsecond=0)
    data["starts_at"] = now - timedelta(days=1)
    data["phases"][0] |= {"opens_at": now - timedelta(days=1), "closes_at": now + timedelta(days=30)}
    data["phases"][1] |= {"opens_at": now + timedelta(days=10), "closes_at": now + timedelta(days=30),
                          "reveal_at": now + timedelta(days=40)}
    data["organizers"] = ["organizer"]
    return competition_load(data=data)


def fields_post(**values) -> dict:
    """The structured form's POST for a small generic competition; `values` override keys."""
    post = {"title": "Small generic", "slug": "small", "benchmark": "generic", "metrics": "nDCG@10, R@100",
            "max_run_depth": "100", "team_size_max": "4", "final_selection_max": "2",
            "groups-TOTAL_FORMS": "1", "groups-INITIAL_FORMS": "0",
            "subsets-TOTAL_FORMS": "2", "subsets-INITIAL_FORMS": "0",
            "subsets-0-code": "ha", "subsets-0-name": "Hausa", "subsets-1-code": "so", "subsets-1-name": "Somali",
            "phases-TOTAL_FORMS": "1", "phases-INITIAL_FORMS": "0", "phases-0-slug": "dev",
            "phases-0-name": "Development", "phases-0-opens_at": "2026-01-01 00:00", "phases-0-closes_at": "2027-12-31 23:59",
            "phases-0-visibility": "live", "page_overview": "Hello **teams**"}
    return post | values


def test_a_staff_member_creates_a_generic_competition_after_seeing_what_it_creates():
    staff = make_user("boss", is_staff=True)
    c = client(staff)
    assert c.get(reverse("competitions:create")).status_code == 200
    checked = c.post(reverse("competitions:create"), fields_post(check="1"))
    assert checked.status_code == 200 and checked.context["preview"]["creates"]
    assert not Competition.objects.exists()
    text = checked.context["preview"]["text"]
    assert yaml.safe_load(text)["organizers"] == ["boss"]  # the YAML shown is the one saved
    assert "<strong>teams</strong>" in checked.content.decode()  # the page as it will show
    saved = c.post(reverse("competitions:create"), {"confirm": "1", "definition": text})
    assert saved.status_code == 302 and saved.url == reverse("competitions:manage", args=["small"])
    small = Competition.objects.get(slug="small")
    assert (small.benchmark, small.metrics, small.primary_metric, small.is_published) == (
        "generic", ["nDCG@10", "R@100"], "nDCG@10", False)
    assert list(small.subsets.values_list("code", "group__label")) == [("ha", "Avg"), ("so", "Avg")]
    assert list(small.phases.values_list("slug", "visibility")) == [("dev", "live")]
    assert list(small.organizers.values_list("username", flat=True)) == ["boss"]
    assert small.pages == {"overview": "Hello **teams**"}


def test_creating_is_for_staff_and_accounts_with_the_permission(organizer):
    assert client(organizer).get(reverse("competitions:create")).status_code == 403
    assert client(organizer).post(reverse("competitions:create_yaml"), {"definition": EXAMPLE.read_text()}).status_code == 403
    organizer.user_permissions.add(Permission.objects.get(codename="add_competition"))
    assert client(organizer).get(reverse("competitions:create")).status_code == 200
    assert Client().get(reverse("competitions:create")).status_code == 302  # to log in


def test_a_new_competition_never_takes_an_existing_slug(ciral):
    staff = make_user("boss", is_staff=True)
    response = client(staff).post(reverse("competitions:create_yaml"), {"definition": EXAMPLE.read_text().replace(
        "version: 1", "version: 9")})
    assert response.status_code == 400 and response.context["refusal"]["code"] == "slug-taken"
    ciral.refresh_from_db()
    assert ciral.config_version == 1


def test_the_fields_come_prefilled_and_a_change_shows_its_diff_before_it_applies(ciral, organizer):
    c = client(organizer)
    url = reverse("competitions:definition", args=[ciral.slug])
    page = c.get(url)
    forms = page.context["forms"]
    assert forms.main["title"].value() == ciral.title and forms.main["metrics"].value() == "nDCG@20, R@100"
    assert [f["code"].value() for f in forms.rows["subsets"].forms][:4] == ["ha", "so", "sw", "yo"]
    test = forms.rows["phases"].forms[1]
    assert (test["slug"].value(), test["before_reveal"].value(), test["hidden_qrels"].value()) == ("test", "status", True)
    post = _as_posted(forms)
    post["phases-0-closes_at"] = "2030-01-01 00:00:00"
    checked = c.post(url, post | {"check": "1"})
    (change,) = checked.context["preview"]["changes"]
    assert (change.path, change.public) == ("phases.dev.closes_at", True)
    assert change.line().endswith(" -> 2030-01-01 00:00 UTC")
    assert Competition.objects.get().config_version == 1
    saved = c.post(url, {"confirm": "1", "definition": checked.context["preview"]["text"]})
    assert saved.status_code == 302
    ciral.refresh_from_db()
    assert ciral.config_version == 2 and ciral.phases.get(slug="dev").closes_at.year == 2030
    public = AuditEvent.objects.get(action=AuditEvent.Action.DEFINITION_CHANGED)
    assert public.is_public and "phases.dev.closes_at" in public.summary


def test_a_deadline_moved_in_the_browser_is_mailed_to_the_teams(ciral, organizer, settings,
                                                                 django_capture_on_commit_callbacks):
    """The browser's save is the loader's: its diff mails the teams as a new YAML version does."""
    from django.core import mail

    from tests.factories import make_team
    from tests.notifications.sending import send_recorded

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    make_team(ciral, name="Team A", members=[make_user("participant"), make_user("teammate")])
    c = client(organizer)
    url = reverse("competitions:definition", args=[ciral.slug])
    post = _as_posted(c.get(url).context["forms"]) | {"phases-0-closes_at": "2030-01-01 00:00", "check": "1"}
    text = c.post(url, post).context["preview"]["text"]
    with django_capture_on_commit_callbacks(execute=True):
        assert c.post(url, {"confirm": "1", "definition": text}).status_code == 302
    assert send_recorded()["sent"] == 2
    assert sorted(m.to[0] for m in mail.outbox) == ["participant@example.org", "teammate@example.org"]
    body = mail.outbox[0].body  # in words, not the YAML key path (issue 33, item 13)
    assert ": uploads close 2030-01-01 00:00 UTC (was " in body and "phases.dev.closes_at" not in body


def test_the_fields_saved_untouched_change_nothing(ciral, organizer):
    c = client(organizer)
    url = reverse("competitions:definition", args=[ciral.slug])
    checked = c.post(url, _as_posted(c.get(url).context["forms"]) | {"check": "1"})
    assert checked.status_code == 200 and checked.context["preview"]["changes"] == []


def test_a_problem_is_shown_at_its_field_and_nothing_changes(ciral, organizer):
    c = client(organizer)
    url = reverse("competitions:definition", args=[ciral.slug])
    post = _as_posted(c.get(url).context["forms"]) | {"metrics": "nDCG@20, Recal@100", "check": "1"}
    post["phases-1-closes_at"] = "2000-01-01 00:00"
    response = c.post(url, post)
    assert response.status_code == 400
    forms = response.context["forms"]
    assert "no metric called 'Recal'" in forms.main.errors["metrics"][0]
    assert forms.rows["phases"].forms[1].errors["closes_at"] == ["must be after opens_at"]
    assert Competition.objects.get().config_version == 1


def test_adding_a_row_needs_no_script(ciral, organizer):
    c = client(organizer)
    url = reverse("competitions:definition", args=[ciral.slug])
    forms = c.get(url).context["forms"]
    before = len(forms.rows["subsets"].forms)
    response = c.post(url, _as_posted(forms) | {"add": "subsets"})
    assert response.status_code == 200 and len(response.context["forms"].rows["subsets"].forms) == before + 1
    assert "preview" not in response.context


def test_a_yaml_problem_is_named_by_its_line_and_shown_under_it(ciral, organizer):
    text = definition_yaml(ciral, version=2).replace("name: Somali", "name: Somali\n  colour: blue")
    response = client(organizer).post(reverse("competitions:definition_yaml", args=[ciral.slug]), {"definition": text})
    assert response.status_code == 400
    line = text.splitlines().index("  colour: blue") + 1
    rows = response.context["refusal"]["problems"]
    assert [(r["file"], r["line"]) for r in rows] == [("definition.yaml", line)]
    assert rows[0]["message"].startswith("subsets[1].colour: unknown key")
    bad = [item for item in response.context["refusal"]["listing"] if item["problems"]]
    assert [item["number"] for item in bad] == [line]
    assert Competition.objects.get().config_version == 1


def test_text_that_is_not_yaml_is_named_by_its_line(ciral, organizer):
    text = "schema: 1\nversion: 2\ntitle: [unclosed\nslug: x\n"
    response = client(organizer).post(reverse("competitions:definition_yaml", args=[ciral.slug]), {"definition": text})
    assert response.status_code == 400
    (row,) = response.context["refusal"]["problems"]
    assert row["file"] == "definition.yaml" and row["line"] in (4, 5) and "not YAML" in row["message"]


@pytest.mark.parametrize(("body", "code", "message"), [
    ("x: " + "[" * 20_000 + "]" * 20_000, "yaml-too-deep", "nested more than 32 deep"),
    ("version: " + "7" * 5_000, "yaml-long-number", "a number of 5,000 characters"),
    ("version: 2\nopens: 2026-13-45", "bad-yaml", "month must be in 1..12"),
    ("pages:\n  rules: " + "x" * 10_000_000, "yaml-long-text", "a value of 10,000,000 characters"),
])
def test_a_deep_or_huge_value_is_refused_at_its_line_at_once(ciral, organizer, body, code, message):
    """Each was a 500 (RecursionError after minutes of CPU at 20,000 deep; int's digit limit; a
    date the constructor cannot build), for any organizer to send."""
    text = f"schema: 1\nslug: {ciral.slug}\n{body}\n"
    response = client(organizer).post(reverse("competitions:definition_yaml", args=[ciral.slug]), {"definition": text})
    assert response.status_code == 400 and response.context["refusal"]["code"] == code
    (row,) = response.context["refusal"]["problems"]
    assert row["line"] == text.count("\n", 0, text.index(body.splitlines()[-1])) + 1 and message in row["message"]
    assert Competition.objects.get().config_version == 1


def test_the_loaders_own_refusals_are_named_by_line_too(ciral, organizer):
    text = definition_yaml(ciral, version=2).replace("- organizer", "- nobody")
    response = client(organizer).post(reverse("competitions:definition_yaml", args=[ciral.slug]), {"definition": text})
    (row,) = response.context["refusal"]["problems"]
    assert row["line"] == text.splitlines().index("- nobody") + 1 and "no user named 'nobody'" in row["message"]


def test_a_downloaded_definition_loaded_back_as_a_file_changes_nothing(ciral, organizer):
    c = client(organizer)
    download = c.get(reverse("competitions:definition_download", args=[ciral.slug]))
    assert download.status_code == 200 and download["Content-Disposition"].endswith('ciral-like.v1.yaml"')
    assert c.head(reverse("competitions:definition_download", args=[ciral.slug])).status_code == 200
    upload = SimpleUploadedFile("ciral-like.v1.yaml", download.content)
    checked = c.post(reverse("competitions:definition_yaml", args=[ciral.slug]), {"file": upload})
    assert checked.status_code == 200 and checked.context["preview"]["changes"] == []
    assert "Nothing changes." in checked.content.decode()
    c.post(reverse("competitions:definition_yaml", args=[ciral.slug]),
           {"confirm": "1", "definition": checked.context["preview"]["text"]})
    ciral.refresh_from_db()
    assert ciral.config_version == 1 and AuditEvent.objects.filter(
        action=AuditEvent.Action.COMPETITION_LOADED).count() == 1


def test_an_edit_page_never_writes_another_competition(ciral, organizer):
    other = yaml.safe_load(definition_yaml(ciral, version=5))
    other["slug"] = "someone-elses"
    response = client(organizer).post(reverse("competitions:definition_yaml", args=[ciral.slug]),
                                      {"definition": yaml_text(other)})
    assert response.status_code == 400 and response.context["refusal"]["code"] == "other-competition"
    assert not Competition.objects.filter(slug="someone-elses").exists()


def test_the_markdown_preview_is_the_sites_sanitised_rendering(ciral, organizer):
    response = client(organizer).post(reverse("competitions:markdown_preview"),
                                      {"text": "# Rules\n<script>alert(1)</script> [x](javascript:alert(1))"})
    html = response.content.decode()
    assert response.status_code == 200 and "<h1>Rules</h1>" in html
    assert "&lt;script&gt;" in html and "<script" not in html and 'href="javascript' not in html
    assert client(make_user("nobody")).post(reverse("competitions:markdown_preview"), {"text": "x"}).status_code == 403


def _as_posted(forms) -> dict:
    """What a browser posts for the forms as shown (every field's current value)."""
    post: dict = {}
    for form in [forms.main, *(f for rows in forms.rows.values() for f in [rows.management_form, *rows.forms])]:
        for field in form:
            value = field.value()
            if getattr(field.field.widget, "input_type", "") == "checkbox":
                if value:
                    post[field.html_name] = "on"
            elif value is not None:
                post[field.html_name] = value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "strftime") else value
    return {k: v for k, v in post.items() if not re.match(r".*-DELETE$", k)}


def test_topic_variants_are_a_list_of_lines_on_the_form(ciral, organizer):
    c = client(organizer)
    url = reverse("competitions:definition", args=[ciral.slug])
    post = _as_posted(c.get(url).context["forms"]) | {"check": "1",
                                                      "topic_variants": "en: English queries\r\nnative: Native queries"}
    checked = c.post(url, post)
    assert [change.path for change in checked.context["preview"]["changes"]] == ["topic_variants"]
    c.post(url, {"confirm": "1", "definition": checked.context["preview"]["text"]})
    ciral.refresh_from_db()
    assert ciral.topic_variants == [{"code": "en", "name": "English queries"}, {"code": "native", "name": "Native queries"}]
    again = c.get(url).context["forms"].main["topic_variants"].value()
    assert again == "en: English queries\nnative: Native queries"
    bad = c.post(url, _as_posted(c.get(url).context["forms"]) | {"check": "1", "topic_variants": "ha: Hausa"})
    assert "also a subset code" in bad.context["forms"].main.errors["topic_variants"][0]


def test_topics_of_each_variant_are_uploaded_by_their_names(ciral, organizer):
    ciral.topic_variants = [{"code": "en", "name": "English"}, {"code": "native", "name": "Native"}]
    ciral.save()
    url = reverse("competitions:manage_topics", args=[ciral.slug, "dev"])
    files = [SimpleUploadedFile(f"topics.ha.{variant}.tsv", f"1\tquery {variant}\n2\tother {variant}\n".encode())
             for variant in ("en", "native")]
    response = client(organizer).post(url, {"files": files}, follow=True)
    assert response.status_code == 200
    stored = {t.variant: t for t in ciral.phases.get(slug="dev").topic_sets.all()}
    assert sorted(stored) == ["en", "native"]
    assert f"ha (native): 2 queries, SHA-256 {stored['native'].sha256}" in response.content.decode()
    differ = SimpleUploadedFile("topics.so.native.tsv", b"1\tq\n"), SimpleUploadedFile("topics.so.en.tsv", b"9\tq\n")
    refused = client(organizer).post(url, {"files": list(differ)})
    assert refused.status_code == 400 and refused.context["refusal"]["code"] == "variant-ids-differ"


@pytest.mark.parametrize("path", sorted(DEFINITIONS_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_a_benchmarks_competition_shows_its_subsets_as_rows_and_saves_untouched_as_no_change(organizer, path):
    data = yaml.safe_load(path.read_text()) | {"organizers": ["organizer"]}
    competition = competition_load(data=data)
    c = client(organizer)
    url = reverse("competitions:definition", args=[competition.slug])
    forms = c.get(url).context["forms"]
    shown = [f["code"].value() for f in forms.rows["subsets"].forms if f["code"].value()]
    assert shown == list(competition.subsets.values_list("code", flat=True)) and len(shown) > 1
    checked = c.post(url, _as_posted(forms) | {"check": "1"})
    assert checked.status_code == 200 and checked.context["preview"]["changes"] == []


def test_yaml_aliases_and_a_huge_text_are_refused_before_reading(ciral, organizer):
    url = reverse("competitions:definition_yaml", args=[ciral.slug])
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b]\n"
    response = client(organizer).post(url, {"definition": bomb})
    assert response.status_code == 400 and response.context["refusal"]["code"] == "yaml-alias"
    assert response.context["refusal"]["problems"][0]["line"] == 2
    huge = SimpleUploadedFile("big.yaml", b"# " + b"x" * 1_000_001)
    response = client(organizer).post(url, {"file": huge})
    assert response.status_code == 400 and response.context["refusal"]["code"] == "too-long"
    assert response.context["refusal"]["problems"][0]["line"] == 1  # where the text passes the bound
