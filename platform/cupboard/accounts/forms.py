"""Sign-up form: Django's own, with an email address we can reach teams at, and no username
that looks like one already taken ("аlice" with a Cyrillic а beside "alice")."""
from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError

from .lookalikes import name_key


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=True)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self):
        username = super().clean_username()
        key = name_key(username)
        # Every username is compared: sign-ups are rare and a few thousand names fold in milliseconds.
        if any(name_key(taken) == key for taken in User.objects.values_list("username", flat=True).iterator()):
            raise ValidationError("This username is taken (or one that looks like it).", code="username_taken")
        return username


class EmailChangeForm(forms.Form):
    """A new address for mails and password resets, confirmed with the current password: a
    session left open on a shared machine must not be enough to take the account over."""

    email = forms.EmailField(label="New e-mail address")
    password = forms.CharField(label="Current password", widget=forms.PasswordInput, strip=False)

    def __init__(self, user, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise ValidationError("That is not your current password.", code="password_incorrect")
        return password
