"""The organizer's pool-export form."""
from django import forms

from .models import PoolExport
from .pools import MAX_DEPTH


class PoolExportForm(forms.Form):
    depth = forms.IntegerField(label="Top k documents of each run", min_value=1, max_value=MAX_DEPTH, initial=10)
    selection = forms.ChoiceField(label="Runs", choices=PoolExport.Selection.choices,
                                  initial=PoolExport.Selection.SELECTED)
    top_teams = forms.IntegerField(label="N (top N teams)", min_value=1, required=False, initial=10)
    with_baselines = forms.BooleanField(label="Also the baselines' runs", required=False, initial=True)

    def clean(self):
        data = super().clean()
        if data.get("selection") == PoolExport.Selection.TOP and not data.get("top_teams"):
            self.add_error("top_teams", forms.ValidationError("Say how many teams: N is required for the top N.",
                                                              code="required"))
        return data
