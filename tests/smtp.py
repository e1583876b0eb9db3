"""A real SMTP server for the tests (aiosmtpd) on a free loopback port, and the site's mailer
pointed at it: what the site sends travels over SMTP and is read back as it arrived."""

import email
import email.policy
import signal
import socket
import time

import pytest
from aiosmtpd.controller import Controller
from django.core.management import call_command


class Inbox:
    def __init__(self):
        self.messages: list[email.message.EmailMessage] = []
        # Addresses the server refuses, with the reply it gives ("550 ..." for good, "451 ..."
        # for now).
        self.refusals: dict[str, str] = {}

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refusals:
            return self.refusals[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(
            email.message_from_bytes(envelope.original_content, policy=email.policy.default)
        )
        return "250 Message accepted"

    def wait_for(self, count: int, timeout: float = 15.0) -> list:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.messages


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp_server(settings):
    """An SMTP server on loopback; the site's default mailer sends to it."""
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=_free_port())
    controller.start()
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": controller.port, "timeout": 10},
        }
    }
    settings.SITE_URL = "http://codziennik.test"
    yield inbox
    controller.stop()


def run_worker() -> None:
    """What `manage.py db_worker` does, once over everything queued (its --batch mode); the
    signal handlers it installs are put back afterwards."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)}
    try:
        call_command(
            "db_worker", batch=True, reload=False, startup_delay=False, interval=0, verbosity=0
        )
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
