"""`tests.browser.page_width`, which every page test measures with, in Debian's chromium: a click
on a link returns while the next page has yet to arrive, as on a busy host. The measure is of
the page the link leads to, not an error and not the page left behind."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.browser import chromium, page_width

pytestmark = pytest.mark.browser

FIRST = b"<!doctype html><html><body><a href='/wide'>on</a></body></html>"
WIDE = b"<!doctype html><html><body style='margin:0'><div style='width:3000px'>wide</div></body></html>"


class SlowToStart(BaseHTTPRequestHandler):
    """'/' links to '/wide', which sends its headers at once and its body a second later: the
    browser has committed to the new page and has no element in it yet."""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.flush()
        if self.path == "/wide":
            time.sleep(1)
        self.wfile.write(WIDE if self.path == "/wide" else FIRST)

    def log_message(self, *args):
        pass


@pytest.fixture
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowToStart)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


def test_it_measures_the_page_a_click_leads_to_once_it_has_loaded(site):
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 390, "height": 900})
        page.goto(site + "/")
        page.click("a")
        assert page_width(page) == 3000
