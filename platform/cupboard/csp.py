"""Content-Security-Policy on every response: scripts, styles, images and requests come only
from this site, so text a user wrote (a team or method name, an organizer's Markdown) can
never run as script even if an escape were missed somewhere.

Pages hold no inline script: charts travel as JSON data (`<script type="application/json">`,
which is not executed) and static files draw them. Two exceptions, both bounded:

- empty `<style>` elements, allowed by the hash of the empty string: plotly.js fills the one
  templates create empty, with the id plotly looks for, through the CSSOM (which CSP allows).
  An injected empty element could carry no rules; one with any text is refused. No page
  carries a per-request value (a nonce) for it, so a cached page is served byte for byte
  (leaderboards/cache.py) and the policy is one constant;
- `style-src-attr 'unsafe-inline'`: plotly.js (through d3) writes `style="..."` attributes on
  the SVG it draws. Style attributes cannot run script; script-src stays strict.

plotly.js needs no 'unsafe-eval' for the traces we draw (bars, heatmaps): only its WebGL
traces and d3's CSV parser build functions from strings (plotly/plotly.js#897), and the
browser tests (tests/project/test_pages_in_browser.py) fail on any CSP violation.
"""
# sha256 of "" (base64): the empty <style> elements of templates/_charts.html and nothing else.
EMPTY_STYLE = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"

DIRECTIVES = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": f"'self' {EMPTY_STYLE}",  # browsers without the two below
    "style-src-elem": f"'self' {EMPTY_STYLE}",
    "style-src-attr": "'unsafe-inline'",
    "img-src": "'self' data: blob:",  # plotly's "download as PNG" makes a data: URL
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
POLICY = "; ".join(f"{name} {value}" for name, value in DIRECTIVES.items())


class ContentSecurityPolicyMiddleware:
    """Gives each response the policy (unless a view set its own)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", POLICY)
        return response
