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
