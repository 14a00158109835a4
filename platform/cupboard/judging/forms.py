"""The organizers' judging forms: a pool export, an assessor named, a corpus, a round's tasks and their reassignment."""
from django import forms
from django.contrib.auth import get_user_model

from cupboard.submissions.models import MAX_PRIORITY

from .models import PoolExport
from .pools import MAX_DEPTH


class PoolExportForm(forms.Form):
    depth = forms.IntegerField(label="Top k documents of each run", min_value=1, max_value=MAX_DEPTH, initial=10)
    selection = forms.ChoiceField(label="Runs", choices=PoolExport.Selection.choices,
                                  initial=PoolExport.Selection.SELECTED)
    top_teams = forms.IntegerField(label="N (top N teams)", min_value=1, required=False, initial=10)
    priority_depths = forms.CharField(
        label="By priority: depth per judging priority", required=False, max_length=200,
        help_text='e.g. "1:20, 2:10, 3:5": the runs their teams gave priority 1 pooled to depth 20, and so on; '
                  "runs given no priority listed are left out")
    with_baselines = forms.BooleanField(label="Also the baselines' runs", required=False, initial=True)

    def clean_priority_depths(self) -> dict[int, int]:
        text, found = self.cleaned_data.get("priority_depths") or "", {}
        for part in filter(None, (p.strip() for p in text.replace(";", ",").split(","))):
            priority, _, depth = part.partition(":")
            if not (priority.strip().isdigit() and depth.strip().isdigit()
                    and 1 <= int(priority) <= MAX_PRIORITY and 1 <= int(depth) <= MAX_DEPTH):
                raise forms.ValidationError(
                    f"{part!r}: write priority:depth, a priority 1 to {MAX_PRIORITY} and a depth 1 to {MAX_DEPTH} "
                    "(e.g. 1:20, 2:10).", code="bad-priority-depth")
            found[int(priority)] = int(depth)
        return found

    def clean(self):
        data = super().clean()
        if data.get("selection") == PoolExport.Selection.TOP and not data.get("top_teams"):
            self.add_error("top_teams", forms.ValidationError("Say how many teams: N is required for the top N.",
                                                              code="required"))
        if data.get("selection") == PoolExport.Selection.PRIORITY and not data.get("priority_depths") \
                and "priority_depths" not in self.errors:
            self.add_error("priority_depths", forms.ValidationError(
                "Say the depth of each priority pooled (e.g. 1:20, 2:10).", code="required"))
        return data


class AssessorForm(forms.Form):
    username = forms.CharField(label="Username of an existing account", max_length=150)


class CorpusForm(forms.Form):
    subset = forms.ChoiceField(label="Language")
    file = forms.FileField(label="Corpus (JSONL docid/title/text, or TSV docid<TAB>title<TAB>text; may be gzipped)")

    def __init__(self, *args, subsets=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["subset"].choices = [(s.code, f"{s.code} · {s.name}") for s in subsets]


class JudgingRoundForm(forms.Form):
    """A pool turned into tasks: per language, the assessors who judge it."""

    export = forms.ModelChoiceField(label="Pool", queryset=PoolExport.objects.none())
    overlap = forms.IntegerField(label="Share of queries judged by two assessors (%)", min_value=0, max_value=100,
                                 initial=10)

    def __init__(self, *args, phase, assessors, subsets, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["export"].queryset = phase.pool_exports.filter(status=PoolExport.Status.DONE)
        self.fields["export"].label_from_instance = lambda e: f"#{e.number}: top {e.depth}, {e.created_at:%Y-%m-%d %H:%M}"
        self.codes = [s.code for s in subsets]
        for subset in subsets:
            self.fields[f"assessors_{subset.code}"] = forms.ModelMultipleChoiceField(
                label=f"Assessors of {subset.code}", queryset=assessors, required=False,
                widget=forms.CheckboxSelectMultiple)

    def by_subset(self) -> dict:
        return {code: list(self.cleaned_data.get(f"assessors_{code}") or []) for code in self.codes}


class ReassignForm(forms.Form):
    """A round's unjudged passages of one assessor, handed to another (judging/reassignment.py).
    Each round's form has ids of its own: a page shows one per round."""

    assessor = forms.ModelChoiceField(label="What", queryset=None, to_field_name="username",
                                      empty_label=None, error_messages={
                                          "invalid_choice": "%(value)s has no task in this round."})
    to = forms.ModelChoiceField(label="has left to judge goes to", queryset=None, to_field_name="username",
                                empty_label=None, error_messages={
                                    "invalid_choice": "%(value)s is not an assessor of this competition: name them "
                                                      "on the Assessors page first."})

    def __init__(self, *args, judging_round, **kwargs):
        super().__init__(*args, auto_id=f"id_round{judging_round.pk}_%s", **kwargs)
        people = judging_round.phase.competition.assessors.order_by("username")
        self.fields["assessor"].queryset = get_user_model().objects.filter(
            judging_assignments__round=judging_round).distinct().order_by("username")
        self.fields["to"].queryset = people
        for field in self.fields.values():
            field.label_from_instance = lambda user: user.username
