"""Sending a session's webhook message (diary/notifications/webhooks.py queues it; the task worker's
diary.notifications.tasks.deliver_webhook runs `deliver`). The URL is only ever opened to a public
address: a GM's URL must not make the server reach into its own network.
"""

import http.client
import ipaddress
import json
import logging
import socket
import ssl
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext as _

from diary.models import SessionWebhook

log = logging.getLogger(__name__)

USER_AGENT = "Codziennik-webhook/1 (+play-by-post diary)"


class DeliveryError(Exception):
    """The message did not get through; `retry` says whether trying later may help, and
    `after` how long the other end asked to wait (Discord's 429 Retry-After)."""

    def __init__(self, message: str, *, retry: bool, after: float | None = None):
        super().__init__(message)
        self.retry = retry
        self.after = after


def deliver(webhook_id: int, body: dict, attempt: int) -> float | None:
    """Send one message. The seconds to wait before attempt `attempt + 1` after a passing
    failure (settings' WEBHOOK_RETRY_DELAYS, or longer if the other end asked), else None;
    the last error is kept for the GM's page either way."""
    webhook = SessionWebhook.objects.filter(pk=webhook_id).first()
    if webhook is None:  # removed since: the message has nowhere to go
        return None
    now = timezone.now()
    try:
        post_json(webhook.url, body)
    except DeliveryError as error:
        delays = settings.WEBHOOK_RETRY_DELAYS
        wait = None
        note = str(error)
        if error.retry and attempt <= len(delays):
            wait = max(delays[attempt - 1], min(error.after or 0, 3600))
            note = _("%(error)s (trying again)") % {"error": note}
        SessionWebhook.objects.filter(pk=webhook_id).update(
            last_attempt_at=now, last_error=Truncator(note).chars(300)
        )
        log.warning("webhook %s attempt %s: %s", webhook_id, attempt, error)
        return wait
    SessionWebhook.objects.filter(pk=webhook_id).update(last_attempt_at=now, last_error="")
    return None


def url_problem(url: str) -> str:
    """Why this URL may not be a webhook (empty when it may): https to a named or public
    host; http and local addresses only where settings allow them (tests, a dev machine)."""
    parts = urlsplit(url)
    allow_local = settings.WEBHOOK_ALLOW_LOCAL
    if parts.scheme != "https" and not (allow_local and parts.scheme == "http"):
        return _("The webhook address must start with https://.")
    if parts.username or parts.password:
        return _("The webhook address may not carry a user name or password.")
    host = parts.hostname or ""
    if not host:
        return _("The webhook address has no host.")
    if not allow_local:
        if host == "localhost" or host.endswith((".localhost", ".local", ".internal")):
            return _("The webhook address must be on the public internet.")
        try:
            if not is_public_address(ipaddress.ip_address(host)):
                return _("The webhook address must be on the public internet.")
        except ValueError:
            pass  # a name: checked again, resolved, when sending
    return ""


# IPv6 addresses that carry an IPv4 address inside them: a packet to one reaches that IPv4
# host (through the stack itself, a NAT64 translator, a 6to4, Teredo or ISATAP relay), so
# it is public only when the IPv4 address is too. `is_global` alone looks at the IPv6
# prefix, and several of these prefixes are global.
_IPV4_IN_LOW_32_BITS = (
    ipaddress.ip_network("::/96"),  # IPv4-compatible (deprecated, still routed by some stacks)
    ipaddress.ip_network("::ffff:0:0/96"),  # IPv4-mapped
    ipaddress.ip_network("::ffff:0:0:0/96"),  # IPv4-translated (SIIT)
    ipaddress.ip_network("64:ff9b::/96"),  # NAT64's well-known prefix
)
# NAT64's local-use prefix: the translator is the local network's own, never the internet.
_NAT64_LOCAL_USE = ipaddress.ip_network("64:ff9b:1::/48")
_ISATAP_INTERFACE_IDS = (0x00005EFE, 0x02005EFE)  # the upper half of the last 64 bits


def embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address leads to, in every embedding there is."""
    found = []
    low_32 = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if any(address in network for network in _IPV4_IN_LOW_32_BITS):
        found.append(low_32)
    if address.sixtofour:
        found.append(address.sixtofour)
    if address.teredo:
        found.extend(address.teredo)  # its server and its client
    if (int(address) >> 32) & 0xFFFFFFFF in _ISATAP_INTERFACE_IDS:
        found.append(low_32)
    return found


def is_public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether the server may open this address: globally routable, and so is every IPv4
    address inside it."""
    if not address.is_global:
        return False
    if address.version == 6:
        if address in _NAT64_LOCAL_USE:
            return False
        return all(ipv4.is_global for ipv4 in embedded_ipv4(address))
    return True


def _public_address(host: str, port: int) -> str:
    """The address to connect to: resolved once and checked, so a name cannot point the
    server at its own network between the check and the connection."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise DeliveryError(_("The host could not be found."), retry=True) from error
    for *_rest, sockaddr in infos:
        address = sockaddr[0]
        if settings.WEBHOOK_ALLOW_LOCAL or is_public_address(ipaddress.ip_address(address)):
            return address
    raise DeliveryError(_("The address is not on the public internet."), retry=False)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a checked address, with the host's name for the certificate and SNI."""

    def __init__(self, host: str, address: str, port: int, timeout: float):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self):
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def post_json(url: str, body: dict) -> int:
    """POST `body` as JSON; no redirect is followed. The status, or DeliveryError."""
    problem = url_problem(url)
    if problem:
        raise DeliveryError(problem, retry=False)
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    address = _public_address(parts.hostname, port)
    timeout = settings.WEBHOOK_TIMEOUT
    if parts.scheme == "https":
        connection = _PinnedHTTPSConnection(parts.hostname, address, port, timeout)
    else:
        connection = http.client.HTTPConnection(address, port, timeout=timeout)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    data = json.dumps(body).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Host": parts.netloc,
    }
    try:
        connection.request("POST", path, body=data, headers=headers)
        response = connection.getresponse()
        status = response.status
        retry_after = response.getheader("Retry-After")
        response.read(65536)
    except (OSError, http.client.HTTPException) as error:
        raise DeliveryError(
            _("No answer from the webhook's server (%(error)s).") % {"error": type(error).__name__},
            retry=True,
        ) from error
    finally:
        connection.close()
    if 200 <= status < 300:
        return status
    after = None
    if retry_after:
        try:
            after = float(retry_after)
        except ValueError:
            after = None
    retryable = status == 429 or status >= 500
    raise DeliveryError(
        _("The webhook's server answered %(status)s.") % {"status": status},
        retry=retryable,
        after=after,
    )
