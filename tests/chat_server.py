"""A table chat's webhook server on loopback (the `chat` fixture): it answers as Discord's
does — 204, or the statuses a test scripts (429 while busy, 500 while down) — and keeps
what it took."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


class Chat:
    """What the chat's server received, and what it answers next (204 once the script ends)."""

    def __init__(self):
        self.received: list[dict] = []
        self.answers: list[tuple[int, dict]] = []
        self.url = ""

    def contents(self) -> list[str]:
        return [message["content"] for message in self.received]


@pytest.fixture
def chat(settings):
    log = Chat()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers["Content-Length"])
            body = json.loads(self.rfile.read(length))
            status, headers = log.answers.pop(0) if log.answers else (204, {})
            if status < 300:
                log.received.append(body)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.WEBHOOK_ALLOW_LOCAL = True
    settings.WEBHOOK_RETRY_DELAYS = (0, 0)
    settings.SITE_URL = "http://codziennik.test"
    log.url = f"http://127.0.0.1:{server.server_port}/api/webhooks/1/sekret"
    yield log
    server.shutdown()
    server.server_close()
