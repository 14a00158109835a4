"""Absolute links, on the site's own address (CUPBOARD_SITE_URL), never on the request's Host.

A Host header is the client's to write: a password-reset mail asked for with `Host: evil.example`
must not send its link there, and a page, an API answer, a mail and a feed name one address
for the same thing whichever name or port a reader used to reach the site.
"""
from django.conf import settings


def site_url() -> str:
    """CUPBOARD_SITE_URL without a trailing slash: `https://cupboard.example.org`."""
    return settings.SITE_URL.rstrip("/")


def absolute(path: str) -> str:
    """`path` (`/submissions/7/`) as an absolute link on the site's address."""
    return site_url() + path
