"""What the proxies in front of the web say, believed from them alone (CUPBOARD_TRUSTED_PROXIES).

Django's SECURE_PROXY_SSL_HEADER believes X-Forwarded-Proto from whoever sends it: a client that
reaches gunicorn without the proxy (a published port, another container, a health checker) could
say "https" over plain HTTP and be answered as if it came over TLS (no redirect to https, secure
cookies set on a plain connection, https links built for it). The middleware drops the header
unless the peer is one of our proxies, before anything reads it; the client's address for rate
limits is read the same way (throttle.client_address).
"""
from __future__ import annotations

import ipaddress

from django.conf import settings


def trusted_proxy(address: str) -> bool:
    """Whether `address` is one of our proxies (CUPBOARD_TRUSTED_PROXIES)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in settings.CUPBOARD_TRUSTED_PROXIES)


class ProxyHeadersMiddleware:
    """First of all middleware: X-Forwarded-Proto from anyone but our proxies is never read."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "HTTP_X_FORWARDED_PROTO" in request.META and not trusted_proxy(request.META.get("REMOTE_ADDR", "")):
            del request.META["HTTP_X_FORWARDED_PROTO"]
        return self.get_response(request)
