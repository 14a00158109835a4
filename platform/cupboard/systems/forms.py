"""The system upload form, for the browser and the API alike (the image is checked by the service)."""
from django import forms

from cupboard.submissions.forms import YesNoField


class SystemForm(forms.Form):
    image = forms.FileField(help_text="The image as `docker save IMAGE -o image.tar` or `podman save` writes it; "
                                      "its command reads /input/topics and writes /output/<code>.trec "
                                      "(docs/systems.md).")
    method_name = forms.CharField(max_length=100)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    release_consent = YesNoField(
        required=False, label="Release the image itself in the results archive",
        help_text="Its SHA-256 and execution records are in the phase's results archive regardless; tick this to "
                  "put the image file there too.")
    as_organizers = YesNoField(required=False, label="Upload as the organizers' system (its runs are baselines)")

    def __init__(self, *args, organizer: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not organizer:
            del self.fields["as_organizers"]

    def errors_as_data(self) -> list[dict]:
        """Every error as the run upload API gives them: {"file", "line", "column", "code", "message"}."""
        return [{"file": None, "line": None, "column": None, "code": error.code or "invalid",
                 "message": f"{field}: {' '.join(error.messages)}" if field != "__all__" else " ".join(error.messages)}
                for field, errors in self.errors.as_data().items() for error in errors]
