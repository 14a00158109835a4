from django import forms


class TeamsMessageForm(forms.Form):
    """An organizer's e-mail to every team member of a competition."""

    subject = forms.CharField(max_length=150, error_messages={"required": "Give the message a subject."})
    body = forms.CharField(label="Text", widget=forms.Textarea(attrs={"rows": 10}),
                           error_messages={"required": "Write the text of the message."})
