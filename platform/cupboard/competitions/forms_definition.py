"""The competition's definition as structured fields: the main keys, its pages, and rows of
groups, subsets and phases (add a row, tick one to remove it).

These forms only gather values: every field is optional here, and the YAML data they make
(`DefinitionForms.definition`) is checked by the loader alone, whose problems come back next
to their field (`DefinitionForms.show_problems`), so no rule is written twice. Keys the form
does not show (run metadata, significance, a phase's freeze, ...) are kept from the definition
it was filled from. Field names are stable (tests and other tools fill them): the main keys
by their YAML names, `page_<name>`, and rows as `groups-N-<key>`, `subsets-N-<key>`,
`phases-N-<key>` (N from 0), with `<prefix>-N-DELETE` to remove one.
"""
from __future__ import annotations

from datetime import datetime

from django import forms

from cupboard.competitions.definition_export import instant_text
from cupboard.competitions.models import Phase
from cupboard.competitions.pages import PAGES

INSTANT_HINT = "UTC, e.g. 2027-01-31 23:59"


def _instant(help_text: str = "", label: str | None = None) -> forms.DateTimeField:
    return forms.DateTimeField(required=False, label=label, help_text=help_text or INSTANT_HINT,
                               widget=forms.DateTimeInput(attrs={"placeholder": "2027-01-31 23:59"},
                                                          format="%Y-%m-%d %H:%M:%S"))


def _number(label: str | None = None, help_text: str = "") -> forms.IntegerField:
    return forms.IntegerField(required=False, label=label, help_text=help_text)


def _benchmarks() -> list[tuple[str, str]]:
    from evaluator.benchmarks import BENCHMARKS

    names = sorted(BENCHMARKS, key=lambda name: (name != "generic", name))
    return [(name, "generic (a collection of your own)" if name == "generic" else name) for name in names]


def measures_known() -> list[dict]:
    """The measure registry (evaluator/measures.py), for the form's list of what `metrics` takes."""
    from evaluator.measures import MEASURES

    return [{"name": m.name, "about": m.about, "cutoff": m.cutoff} for m in MEASURES.values()]


class DefinitionForm(forms.Form):
    """The competition's own keys (YAML names) and its pages (`page_<name>`)."""

    title = forms.CharField(required=False, max_length=200)
    slug = forms.CharField(required=False, help_text="Lowercase letters, digits and hyphens; in every address. "
                                                     "It cannot change once created.")
    benchmark = forms.ChoiceField(required=False, choices=_benchmarks)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    metrics = forms.CharField(required=False, help_text="Comma-separated measures, e.g. nDCG@10, R@100 (the list "
                                                        "below); empty: the benchmark's.")
    primary_metric = forms.CharField(required=False, help_text="Ranks the teams; one of the metrics. Empty: the "
                                                               "first of them.")
    relevance_level = _number(help_text="Labels at or above it are relevant. Empty: the benchmark's, else 1.")
    max_run_depth = _number(help_text="Documents per query a run may hold.")
    scoring_depth = _number(help_text="Documents per query scored (trec_eval -M). Empty: from the metrics.")
    team_size_max = _number(help_text="Members a team may have.")
    final_selection_max = _number(help_text="Runs a team may select for a final phase ranked by selection.")
    starts_at = _instant("UTC. Public from here. Empty: when first saved.")
    entry_deadline = _instant("UTC. No team is created or joined from here on. Empty: when the final phase opens.")
    published = forms.BooleanField(required=False, label="Published (others see it from its start)")
    topic_variants = forms.CharField(
        required=False, label="Topic variants", widget=forms.Textarea(attrs={"rows": 2, "placeholder": "en: English queries"}),
        help_text="Several topics files per subset (e.g. English and native queries): one a line, CODE: NAME, the "
                  "default first. Empty: one topics file per subset.")

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        for name, title in PAGES.items():
            self.fields[f"page_{name}"] = forms.CharField(
                required=False, label=f"{title} page", widget=forms.Textarea(attrs={"rows": 6, "data-preview": ""}),
                help_text="Markdown; shown as a tab of the competition page. Empty: no tab.")
        if editing:
            self.fields["slug"].disabled = True

    def sections(self) -> list[tuple[str, list]]:
        """The fields under their headings, as the page shows them."""
        return [(legend, [self[name] for name in names]) for legend, names in SECTIONS.items()]

    def pages(self) -> list:
        return [self[f"page_{name}"] for name in PAGES]


SECTIONS = {"The competition": ("title", "slug", "benchmark", "description", "published", "starts_at",
                                "entry_deadline"),
            "Scoring": ("metrics", "primary_metric", "relevance_level", "max_run_depth", "scoring_depth"),
            "Limits": ("team_size_max", "final_selection_max"),
            "Topics": ("topic_variants",)}


class GroupForm(forms.Form):
    name = forms.CharField(required=False, help_text="As subsets name it, e.g. known.")
    label = forms.CharField(required=False, help_text="Its average column, e.g. K.Avg.")
    reveal_at = _instant("UTC. Its subsets are hidden until then. Empty: visible.")


class SubsetForm(forms.Form):
    code = forms.CharField(required=False, help_text="As file names give it, e.g. sw.")
    name = forms.CharField(required=False, help_text="e.g. Swahili.")
    group = forms.CharField(required=False, help_text="A group's name. Empty with no groups: one average, Avg.")


class PhaseForm(forms.Form):
    slug = forms.CharField(required=False, help_text="e.g. dev.")
    name = forms.CharField(required=False, help_text="e.g. Development.")
    opens_at = _instant()
    closes_at = _instant()
    visibility = forms.ChoiceField(required=False, choices=Phase.Visibility.choices, initial=Phase.Visibility.LIVE,
                                   help_text="live: scores shown as they come; private: public from the reveal; "
                                             "hidden: never shown.")
    reveal_at = _instant("UTC. When a private board and hidden judgments become public.")
    before_reveal = forms.ChoiceField(
        required=False, choices=[("", "default (own)")] + list(Phase.BeforeReveal.choices),
        help_text="What teams see of their runs until the reveal: everything, their own scores, or only 'scored'.")
    hidden_qrels = forms.BooleanField(required=False, label="Judgments hidden until the reveal")
    daily_limit = _number(help_text="Uploads per team per UTC day. Empty: no limit.")
    total_limit = _number(help_text="Uploads per team in the phase. Empty: no limit.")
    is_final = forms.BooleanField(required=False, label="The final phase")
    ranking = forms.ChoiceField(required=False, choices=[("", "default")] + list(Phase.Ranking.choices),
                                help_text="Which run of a team counts. Default: selected on a final phase, else best.")


GroupFormSet = forms.formset_factory(GroupForm, extra=1, can_delete=True)
SubsetFormSet = forms.formset_factory(SubsetForm, extra=1, can_delete=True)
PhaseFormSet = forms.formset_factory(PhaseForm, extra=1, can_delete=True)
ROWS = {"groups": (GroupFormSet, "name"), "subsets": (SubsetFormSet, "code"), "phases": (PhaseFormSet, "slug")}


class DefinitionForms:
    """The main form and the three row sets, filled from definition data or bound to a POST."""

    def __init__(self, post=None, *, base: dict, editing: bool):
        self.base = base
        # Initial values even when bound: a disabled field (the slug of an edit) takes its value from them.
        self.main = DefinitionForm(post, initial=_main_initial(base), editing=editing)
        self.rows = {prefix: formset(post, prefix=prefix, initial=None if post is not None else
                                     [_row_initial(item, formset.form) for item in base.get(prefix) or ()])
                     for prefix, (formset, _) in ROWS.items()}
        self._positions: dict[str, list[int]] = {}

    @classmethod
    def with_row_added(cls, post, *, prefix: str, base: dict, editing: bool) -> DefinitionForms:
        """The same forms with one more empty row of `prefix` (the "Add a row" buttons: no script needed)."""
        data = post.copy()
        if prefix in ROWS:
            total = f"{prefix}-TOTAL_FORMS"
            data[total] = str(int(data.get(total) or 0) + 1)
        return cls(data, base=base, editing=editing)

    def is_valid(self) -> bool:
        return self.main.is_valid() and all(rows.is_valid() for rows in self.rows.values())

    def definition(self) -> dict:
        """The YAML data: the base definition with the form's keys, pages and rows applied."""
        data = dict(self.base)
        values = self.main.cleaned_data
        for name in self.main.fields:
            if not name.startswith("page_") and name not in ("metrics", "published", "topic_variants"):
                _set(data, name, values.get(name))
        _set(data, "topic_variants", _variants(values.get("topic_variants") or "") or None)
        data["published"] = bool(values.get("published"))
        metrics = [m.strip() for m in (values.get("metrics") or "").split(",") if m.strip()]
        _set(data, "metrics", metrics or None)
        pages = dict(data.pop("pages", None) or {})
        for name in PAGES:
            _set(pages, name, values.get(f"page_{name}"))
        if pages:
            data["pages"] = pages
        for prefix, (formset, key) in ROWS.items():
            items, self._positions[prefix] = self._rows(prefix, key, formset.form)
            data.pop(prefix, None)
            if items or prefix == "phases":
                data[prefix] = items
        return data

    def _rows(self, prefix: str, key: str, form_class) -> tuple[list[dict], list[int]]:
        """The filled rows not marked for removal, each on its base item of the same key, and
        the form index of each (a problem at `phases[1]` is shown on the form it came from)."""
        before = {item.get(key): item for item in self.base.get(prefix) or ()}
        items, positions = [], []
        for index, form in enumerate(self.rows[prefix].forms):
            values = {name: form.cleaned_data.get(name) for name in form_class.base_fields}
            if form.cleaned_data.get("DELETE") or not any(v not in (None, "", False) for v in values.values()):
                continue
            item = dict(before.get(values[key]) or {})
            for name, value in values.items():
                _set(item, name, value)
            items.append(item)
            positions.append(index)
        return items, positions

    def show_problems(self, problems: list[tuple[str, str]]) -> None:
        """The loader's problems, each next to its field: `title`, `pages.rules`, `metrics[1]`,
        `phases[0].closes_at`; what names no field goes to the top of the form."""
        for path, message in problems:
            head, _, rest = path.partition(".")
            part, _, index = head.partition("[")
            if part in self._positions and index:
                position = int(index.rstrip("]"))
                forms_ = self.rows[part].forms
                form = forms_[self._positions[part][position]] if position < len(self._positions[part]) else None
                if form is not None and rest in form.fields:
                    form.add_error(rest, message)
                elif form is not None:
                    form.add_error(None, f"{rest or part}: {message}")
                continue
            field = f"page_{rest}" if part == "pages" else part
            if field in self.main.fields and not self.main.fields[field].disabled:
                self.main.add_error(field, message)
            else:
                self.main.add_error(None, f"{path or '(top)'}: {message}")


def _variants(text: str) -> list[dict]:
    """`topic_variants` from its lines, `CODE: NAME` (a line without a colon is a code alone,
    which the loader refuses for want of a name)."""
    found = []
    for line in text.splitlines():
        if line.strip():
            code, _, name = line.partition(":")
            found.append({"code": code.strip()} | ({"name": name.strip()} if name.strip() else {}))
    return found


def _set(item: dict, name: str, value) -> None:
    """A key of `item` set to a form's value, or removed when the field is blank (its default
    applies). Saving the form untouched changes nothing: an instant the same to the second (the
    form shows no more) and a text the same but for its line ends (a browser sends CR LF, a
    text area drops a last newline) keep the value `item` had."""
    if isinstance(value, str):
        value = value.replace("\r\n", "\n")
        old = item.get(name)
        if isinstance(old, str) and old.strip() == value.strip():
            return
    if value is None or value is False or (isinstance(value, str) and not value.strip()):
        item.pop(name, None)
    elif isinstance(value, datetime):
        old = _instant_value(item.get(name))
        if not (isinstance(old, datetime) and old.replace(microsecond=0) == value):
            item[name] = instant_text(value)
    else:
        item[name] = value


def _main_initial(base: dict) -> dict:
    initial = {name: base.get(name) for name in DefinitionForm.base_fields if name in base}
    initial["metrics"] = ", ".join(base.get("metrics") or [])
    initial["topic_variants"] = "\n".join(f"{v.get('code')}: {v.get('name')}" for v in base.get("topic_variants") or ())
    initial["published"] = bool(base.get("published", True))
    initial |= {f"page_{name}": text for name, text in (base.get("pages") or {}).items()}
    return {name: _instant_value(value) for name, value in initial.items()}


def _row_initial(item: dict, form_class) -> dict:
    return {name: _instant_value(item.get(name)) for name in form_class.base_fields if name in item}


def _instant_value(value):
    """An instant of the YAML data (`2027-01-31T23:59:59Z`) as the form's field shows it."""
    if isinstance(value, str) and len(value) >= 19 and value[10:11] == "T" and value.endswith("Z"):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    return value
