"""API tokens: scripts upload runs with a per-user token instead of a session cookie."""
import hashlib
import secrets

from django.conf import settings
from django.db import models


def token_digest(raw: str) -> str:
    """Only the digest is stored, so a leaked database does not leak working tokens."""
    return hashlib.sha256(raw.encode()).hexdigest()


def new_raw_token() -> str:
    return "cb_" + secrets.token_urlsafe(30)


class ApiToken(models.Model):
    """One token per user; regenerating replaces it (the old one stops working at once)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=10, help_text="First characters, to recognise the token on the profile page")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"{self.user} token {self.prefix}…"
