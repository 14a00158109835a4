"""Organizer forms: topics and qrels uploads, a phase's visibility, a group's reveal.

The files themselves are validated by the services (evaluator readers); these forms only
work out which subset each file is for and read the instants."""
from django import forms

from cupboard.competitions.models import Phase


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files from one input (run files, topics, qrels); each is checked like a single FileField."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".txt,.tsv,.trec,.run,.gz"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        files = data if isinstance(data, (list, tuple)) else [data]
        return [super(MultipleFileField, self).clean(f, initial) for f in files if f] or \
            super().clean(None, initial)


class PhaseFilesForm(forms.Form):
    """Several files at once, each for the subset its name names (`qrels.miracl-v1.0-sw-dev.tsv`)."""

    files = MultipleFileField(help_text="One file per subset, plain or .gz; the subset is read from each file "
                                        "name (e.g. qrels.miracl-v1.0-sw-dev.tsv).")
    subset = forms.ChoiceField(required=False, help_text="Only for a single file whose name does not say its subset.")

    def __init__(self, *args, subsets=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.codes = [s.code for s in subsets]
        self.fields["subset"].choices = [("", "from the file name")] + [(s.code, f"{s.code} {s.name}") for s in subsets]

    def clean(self):
        from evaluator.io.naming import subset_from_filename

        cleaned = super().clean()
        files, chosen = cleaned.get("files") or [], cleaned.get("subset")
        if chosen and len(files) > 1:
            raise forms.ValidationError("Choose a subset only when sending one file; with several, name each "
                                        "file after its subset.", code="subset_with_many_files")
        by_subset: dict = {}
        for upload in files:
            code = chosen or subset_from_filename(upload.name, self.codes)
            key = code and self.key(upload, code)
            if code is None:
                self.add_error("files", forms.ValidationError(
                    "%(name)s: the name says no subset of this competition (one of %(codes)s); rename it or "
                    "choose the subset", code="no_subset_in_name",
                    params={"name": upload.name, "codes": ", ".join(self.codes)}))
            elif key in by_subset:
                self.add_error("files", forms.ValidationError(
                    "%(first)s and %(second)s are both for %(code)s", code="duplicate_subset",
                    params={"first": by_subset[key].name, "second": upload.name,
                            "code": " ".join(key) if isinstance(key, tuple) else key}))
            else:
                by_subset[key] = upload
        cleaned["by_subset"] = by_subset
        return cleaned

    def key(self, upload, code: str):
        """What a file is for: its subset's code (topics with variants: the code and the variant)."""
        return code

    def names(self) -> dict:
        """subset code (or key) -> the uploaded file's name, kept as the published name."""
        return {key: upload.name for key, upload in self.cleaned_data["by_subset"].items()}


class TopicsUploadForm(PhaseFilesForm):
    """Topics; with several topic variants (English and native queries, topic_variants.py) each
    file is for a subset and a variant, both read from its name (`topics.ha.native.tsv`), as
    `import_topics` reads them, or chosen for files whose name does not say."""

    variant = forms.ChoiceField(required=False, help_text="With several topic variants: the variant of files "
                                                          "whose name does not say it.")

    def __init__(self, *args, variants=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.variants = [v.code for v in variants]
        if len(self.variants) < 2:
            del self.fields["variant"]
        else:
            self.fields["variant"].choices = [("", "from the file name, else the first")] + [
                (v.code, f"{v.code}: {v.name}") for v in variants]

    def key(self, upload, code: str):
        from cupboard.competitions.topic_variants import variant_from_filename

        if len(self.variants) < 2:
            return code
        return code, (self.cleaned_data.get("variant") or variant_from_filename(upload.name, self.variants)
                      or self.variants[0])


class QrelsUploadForm(PhaseFilesForm):
    note = forms.CharField(max_length=200, required=False, help_text="Why this version (shown in the audit log).")


def _instant_field(help_text: str) -> forms.DateTimeField:
    return forms.DateTimeField(required=False, help_text=help_text,
                               widget=forms.DateTimeInput(attrs={"placeholder": "2023-01-30 00:00"}))


class _RevealForm(forms.Form):
    def _instant(self, name: str):
        """The form shows whole seconds: an instant unchanged to the second is the stored one,
        so saving the form untouched is no change (and no audit event)."""
        value, initial = self.cleaned_data[name], self.initial.get(name)
        if value is not None and initial is not None and value == initial.replace(microsecond=0):
            return initial
        return value

    def clean_reveal_at(self):
        return self._instant("reveal_at")


# What each rule lets a team learn, said plainly on the form (docs/organizers.md says the same).
BEFORE_REVEAL_CHOICES = [
    (Phase.BeforeReveal.EVERYTHING, "Everything, as it comes: its runs' scores, per-query values (where the phase "
                                    "shows them) and charts beside the baselines. A team can tune on this phase's "
                                    "judgments run by run."),
    (Phase.BeforeReveal.OWN, "Its own scores only: per language and averages of its own runs; no other team's, no "
                             "baseline's, no per-query value. A team still learns which of its runs does better on "
                             "these judgments, and a one-line run tells it whether one document is relevant."),
    (Phase.BeforeReveal.STATUS, "Only \"valid and scored\": no score, rank, per-query value or chart until the "
                                "reveal. A team learns nothing about the judgments (the strictest Cups' final phase)."),
]


class PhaseScheduleForm(_RevealForm):
    visibility = forms.ChoiceField(choices=Phase.Visibility.choices)
    reveal_at = _instant_field("UTC, e.g. 2023-01-30 00:00. When a private leaderboard and hidden "
                               "judgments become public; empty = never.")
    hidden_qrels = forms.BooleanField(required=False, label="Hide the judgments until the reveal")
    before_reveal = forms.ChoiceField(
        label="Before the reveal, each team sees", widget=forms.RadioSelect, choices=BEFORE_REVEAL_CHOICES, required=False,
        help_text="Private and hidden phases only: a live phase shows everything as it comes.")


class PhaseBoardRulesForm(_RevealForm):
    freeze_at = _instant_field("UTC, e.g. 2023-01-16 23:59. The public leaderboard stands still from here until "
                               "the phase closes (or its later reveal); teams still see their own later scores, "
                               "you the live board. Empty = never frozen.")
    ladder = forms.BooleanField(required=False, label="The Ladder (Blum & Hardt 2015)", help_text=(
        "A team's shown run changes only when a new run beats it by more than the standard error of their "
        "per-query differences (phases ranked by best)."))

    def clean_freeze_at(self):
        return self._instant("freeze_at")


class GroupRevealForm(_RevealForm):
    reveal_at = _instant_field("UTC, e.g. 2023-01-09 00:00. Its subsets stay hidden from participants until "
                               "then; empty = visible now.")
