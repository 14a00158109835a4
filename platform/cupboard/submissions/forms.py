"""Upload and organizer forms. Run-file validation itself happens in the service (evaluator)."""
import re
from collections.abc import Sequence

from django import forms

from cupboard.competitions.forms import MultipleFileField
from cupboard.competitions.run_metadata import NO, YES, MetadataError, MetadataField, metadata_clean

from .models import MAX_PRIORITY

# Spelled as a run-metadata yes/no of the same form is; nothing sent is no.
TRUE, FALSE = YES, NO | {""}


class YesNoCheckbox(forms.CheckboxInput):
    """A checkbox that hands its field what was sent, as sent: Django's own reads every string but
    "false" as ticked ("0", "no"), which would have released a run its team meant to keep."""

    def __init__(self, attrs=None):
        super().__init__(attrs, check_test=lambda value: value is True or str(value).strip().lower() in TRUE)

    def value_from_datadict(self, data, files, name):
        return data.get(name, "")


class YesNoField(forms.BooleanField):
    """A yes/no of the upload, for the browser and the API alike: 1/true/on/yes is yes,
    0/false/off/no or nothing is no, anything else is refused naming the value (a script's
    `-F is_baseline=maybe` must not become a guess)."""

    widget = YesNoCheckbox
    default_error_messages = {"invalid": "say true or false (1/0, yes/no, on/off), not %(value)r"}

    def to_python(self, value) -> bool:
        if isinstance(value, bool):
            return value
        said = str(value if value is not None else "").strip().lower()
        if said not in TRUE | FALSE:
            raise forms.ValidationError(self.error_messages["invalid"], code="bad_boolean", params={"value": value})
        return said in TRUE


class UploadForm(forms.Form):
    files = MultipleFileField(help_text="One run file per language, plain or .gz; the language is read from "
                                        "the file name (e.g. run.sw.txt).")
    subset = forms.ChoiceField(required=False, label="Language",
                               help_text="Only needed for a single file whose name does not say its language.")
    method_name = forms.CharField(max_length=100)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 4}))
    paper_url = forms.URLField(required=False, assume_scheme="https")
    code_url = forms.URLField(required=False, assume_scheme="https")
    release_consent = YesNoField(
        required=False, label="Release this run in the results archive",
        help_text="Its run files go in the phase's public results archive after the reveal; you can change "
                  "this until then.")
    judging_priority = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_PRIORITY, label="Judging priority (optional)",
        help_text=f"1 to {MAX_PRIORITY}: the order in which your runs' documents are worth judging, 1 first (TREC's "
                  "run priority); the organizers may pool runs by priority. Empty: not said (last).")
    topic_fields = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, label="Topic fields this run used",
        help_text="As the topics file names them; shown with the run and in the results archive.")
    is_baseline = YesNoField(required=False, label="Upload as a public baseline (organizers)")

    def __init__(self, *args, subsets=(), organizer=False, metadata_fields: Sequence[MetadataField] = (),
                 final: bool = True, topic_fields: Sequence[str] = (), collections: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if not final:  # only a final phase has a results archive to release a run in
            del self.fields["release_consent"]
        if len(topic_fields) > 1:  # one field (a TSV file's query) leaves nothing to say
            self.fields["topic_fields"].choices = [(name, name) for name in topic_fields]
        else:
            del self.fields["topic_fields"]
        # One collection is the competition's only subset; a phase taking one of several languages
        # still reads each file's language from its name (a run.te.txt is not Swahili's).
        self.only = _one_collection(self, list(subsets), collections=collections)
        if self.only is None:
            self.fields["subset"].choices = [("", "from the file name")] + [(s.code, f"{s.code} {s.name}")
                                                                            for s in subsets]
        self.metadata_fields = list(metadata_fields)
        baseline = self.fields.pop("is_baseline")
        for field in self.metadata_fields:
            self.fields[field.param] = _metadata_form_field(field)
        if organizer:
            self.fields["is_baseline"] = baseline  # last: it changes what the fields above require

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("subset") and len(cleaned.get("files") or []) > 1:
            self.add_error("subset", forms.ValidationError(
                "Choose a language only when sending one file; with several, name each file after its language.",
                code="subset_with_many_files"))
        self._clean_metadata(cleaned)
        return cleaned

    def _clean_metadata(self, cleaned: dict) -> None:
        """`cleaned["metadata"]`: the run metadata checked by the one rule form, API and CLI share
        (`metadata_clean`); each problem goes to its field. Baselines may leave fields empty."""
        raw = {f.name: cleaned.get(f.param, "") for f in self.metadata_fields}
        try:
            cleaned["metadata"] = metadata_clean(self.metadata_fields, raw, required=not cleaned.get("is_baseline"))
        except MetadataError as error:
            for name, message in error.problems:
                self.add_error(f"meta_{name}", forms.ValidationError(message, code="invalid_metadata"))

    def file_pairs(self) -> list:
        """(file, chosen subset code or None) pairs, as `submission_create` takes them."""
        chosen = self.cleaned_data.get("subset") or self.only
        return [(f, chosen) for f in self.cleaned_data["files"]]


KIND_WORDS = {"language": "language", "pair": "language pair", "test_set": "test set"}


def _one_collection(form: forms.Form, subsets: list, *, collections: int | None = None) -> str | None:
    """The form's words for the phase's subsets: a task of one collection asks for one run file
    and no language (issue 34 item 7: it said "One run file per language"), and returns its
    code, which every file is for; otherwise the file name says each file's subset, in the
    subsets' own word (language, language pair, test set)."""
    if len(subsets) == 1 and (collections or 1) == 1:
        del form.fields["subset"]
        form.fields["files"].help_text = f"One run file, plain or .gz ({subsets[0].name})."
        return subsets[0].code
    kinds = {KIND_WORDS.get(s.kind, "subset") for s in subsets}
    word = kinds.pop() if len(kinds) == 1 else "subset"
    form.fields["files"].help_text = (f"One run file per {word}, plain or .gz; the {word} is read from the file "
                                      f"name (e.g. run.{subsets[0].code if subsets else 'sw'}.txt).")
    form.fields["subset"].label = word.capitalize()
    form.fields["subset"].help_text = f"Only needed for a single file whose name does not say its {word}."
    return None


def _metadata_form_field(field: MetadataField) -> forms.Field:
    """The form field of a run-metadata field: not required here (metadata_clean decides, with
    one wording everywhere), but marked so for the browser and the reader."""
    attrs = {"required": True} if field.required else {}
    options = {"label": field.label + ("" if field.required else " (optional)"), "help_text": field.help,
               "required": False}
    if field.options:  # a CharField with a select: a ChoiceField would refuse in its own words first
        widget = forms.Select(attrs=attrs, choices=[("", "choose..." if field.required else "not said"),
                                                    *field.options])
    else:
        widget = {"integer": forms.NumberInput(attrs={**attrs, "min": 0, "step": 1}),
                  "url": forms.URLInput(attrs={**attrs, "placeholder": "https://"})}.get(field.type) or \
            forms.TextInput(attrs={**attrs, "maxlength": 200})
    return forms.CharField(widget=widget, **options)


class ApiUploadForm(UploadForm):
    """The JSON API's upload: `files` (language from each name) and/or `file_<code>` fields;
    `is_baseline` (organizers; the service refuses anyone else) and `release_consent` as
    true/false, read by `YesNoField`."""

    def __init__(self, *args, **kwargs):
        kwargs["organizer"] = True  # keep is_baseline: the service decides who may add baselines
        super().__init__(*args, **kwargs)
        self.fields["files"].required = False
        self.fields.pop("subset", None)
        # "query,question" (one multipart field; the service checks the names against the topics)
        self.fields["topic_fields"] = forms.CharField(required=False, max_length=500)

    def clean_topic_fields(self) -> list[str]:
        return [name for name in re.split(r"[,\s]+", self.cleaned_data.get("topic_fields") or "") if name]

    def clean(self):
        cleaned = forms.Form.clean(self)
        named = [(f, key.removeprefix("file_")) for key in self.files if key.startswith("file_")
                 for f in self.files.getlist(key)]
        self.pairs = [(f, None) for f in cleaned.get("files") or []] + named
        if not self.pairs:
            self.add_error("files", forms.ValidationError("Send at least one run file.", code="no_files"))
        self._clean_metadata(cleaned)
        asked = {f.param for f in self.metadata_fields}
        for key in sorted(k for k in self.data if k.startswith("meta_") and k not in asked):
            # A typo in a script's field name must not silently drop the value.
            self.add_error(None, forms.ValidationError(
                f"{key}: no such field; this competition asks for "
                f"{', '.join(sorted(asked)) or 'no run metadata'}", code="unknown_metadata"))
        return cleaned

    def file_pairs(self) -> list:
        return self.pairs

    def errors_as_data(self) -> list[dict]:
        """Every error as {"file", "line", "column", "code", "message"}, like a refusal."""
        return [{"file": None, "line": None, "column": None, "code": error.code or "invalid",
                 "message": f"{field}: {' '.join(error.messages)}" if field != "__all__" else " ".join(error.messages)}
                for field, errors in self.errors.as_data().items() for error in errors]


class GrantForm(forms.Form):
    """Extra slots for a team. Each error names its field in words, and a form with errors is
    shown again with what was typed (never "needs a number of slots and a reason" for a bad date)."""

    # The error list prints each field's label before its message (_form_errors.html): the
    # messages do not repeat it ("Day (UTC): Day: give a date ...").
    extra = forms.IntegerField(min_value=1, max_value=100, label="Extra submissions", error_messages={
        "required": "Say how many (1 to 100).",
        "invalid": "Give a whole number from 1 to 100."})
    day = forms.DateField(required=False, label="Day (UTC)", input_formats=["%Y-%m-%d"],
                          help_text="YYYY-MM-DD; empty = for the whole phase",
                          error_messages={"invalid": "Give a date as YYYY-MM-DD (e.g. 2026-01-31), "
                                                     "or leave it empty for the whole phase."})
    reason = forms.CharField(max_length=200, error_messages={"required": "Say why the team gets them (shown in "
                                                                         "the audit log)."})


class TeamGrantForm(GrantForm):
    """A grant from the organizers' Teams page: the phase is chosen too."""

    phase = forms.ModelChoiceField(queryset=None, empty_label=None)
    field_order = ["phase", "extra", "day", "reason"]

    def __init__(self, *args, competition, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["phase"].queryset = competition.phases.order_by("position")
        self.fields["phase"].label_from_instance = lambda phase: phase.name  # not its slug (Phase.__str__)


class DisqualifyForm(forms.Form):
    reason = forms.CharField(max_length=200)


class HybridForm(forms.Form):
    baseline_a = forms.ModelChoiceField(queryset=None)
    baseline_b = forms.ModelChoiceField(queryset=None)
    alpha = forms.FloatField(min_value=0, max_value=1, initial=0.5, help_text="Weight of the first baseline")

    def __init__(self, *args, phase, **kwargs):
        super().__init__(*args, **kwargs)
        baselines = phase.submissions.filter(is_baseline=True).order_by("number")
        self.fields["baseline_a"].queryset = self.fields["baseline_b"].queryset = baselines
