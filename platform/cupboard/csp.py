"""Content-Security-Policy on every response: scripts, styles, images and requests come only
from this site, so text a user wrote (a team or method name, an organizer's Markdown) can
never run as script even if an escape were missed somewhere.

Pages hold no inline script: charts travel as JSON data (`<script type="application/json">`,
which is not executed) and static files draw them. Two exceptions, both bounded:

- a per-request nonce, `request.csp_nonce`, allows the one `<style>` element plotly.js fills
  with its rules (templates create it empty, with the id plotly looks for; plotly adds its
  rules through the CSSOM, which CSP allows);
- `style-src-attr 'unsafe-inline'`: plotly.js (through d3) writes `style="..."` attributes on
  the SVG it draws. Style attributes cannot run script; script-src stays strict.

plotly.js needs no 'unsafe-eval' for the traces we draw (bars, heatmaps): only its WebGL
traces and d3's CSV parser build functions from strings (plotly/plotly.js#897), and the
browser tests (tests/project/test_pages_in_browser.py) fail on any CSP violation.
"""
import secrets


def policy(nonce: str) -> str:
    """The header's value for one response."""
    directives = {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": f"'self' 'nonce-{nonce}'",  # browsers without the two below
        "style-src-elem": f"'self' 'nonce-{nonce}'",
        "style-src-attr": "'unsafe-inline'",
        "img-src": "'self' data: blob:",  # plotly's "download as PNG" makes a data: URL
        "font-src": "'self'",
        "connect-src": "'self'",
        "object-src": "'none'",
        "base-uri": "'self'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }
    return "; ".join(f"{name} {value}" for name, value in directives.items())


class ContentSecurityPolicyMiddleware:
    """Gives each request a fresh nonce and each response the policy (unless a view set its own)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.csp_nonce = secrets.token_urlsafe(16)
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", policy(request.csp_nonce))
        return response
