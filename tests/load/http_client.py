"""A small browser for the load test: the standard library's HTTP client, a cookie jar,
and the fields of a page's form, sent back as a browser sends them.

No redirect is followed on its own: the test reads each answer (a roll's 302 names the
roll's place in the diary).
"""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from urllib.parse import urlencode, urlsplit


@dataclass
class Answer:
    status: int
    location: str
    body: str
    seconds: float
    headers: dict[str, str] = field(default_factory=dict)


class FormFields(HTMLParser):
    """The fields of the first `<form method="post">` whose class list holds `css_class`
    (without it: the first post form that posts to its own page), with the values a
    browser would submit."""

    def __init__(self, css_class: str = ""):
        super().__init__(convert_charrefs=True)
        self.css_class = css_class
        self.in_form = self.done = False
        self.action = ""
        self.fields: list[tuple[str, str]] = []
        self._select: str | None = None
        self._select_value: str | None = None
        self._select_first: str | None = None
        self._option_selected = False
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and not self.in_form and not self.done:
            classes = (a.get("class") or "").split()
            wanted = self.css_class in classes if self.css_class else not a.get("action")
            if (a.get("method") or "").lower() == "post" and wanted:
                self.in_form, self.action = True, a.get("action") or ""
            return
        if not self.in_form or "disabled" in a:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = (a.get("type") or "text").lower()
            if kind in {"submit", "button", "image", "reset", "file"}:
                return
            if kind in {"checkbox", "radio"} and "checked" not in a:
                return
            self.fields.append((name, a.get("value") or ("on" if kind == "checkbox" else "")))
        elif tag == "select" and name:
            self._select, self._select_value, self._select_first = name, None, None
        elif tag == "option" and self._select is not None:
            value = a.get("value", "")
            if self._select_first is None:
                self._select_first = value
            if "selected" in a:
                self._select_value = value
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_data(self, data):
        if self._textarea is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if not self.in_form:
            return
        if tag == "form":
            self.in_form, self.done = False, True
        elif tag == "select" and self._select is not None:
            value = self._select_value if self._select_value is not None else self._select_first
            if value is not None:
                self.fields.append((self._select, value))
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self.fields.append((self._textarea, "".join(self._text).removeprefix("\n")))
            self._textarea = None


def form_fields(html: str, css_class: str = "") -> tuple[str, list[tuple[str, str]]]:
    parser = FormFields(css_class)
    parser.feed(html)
    return parser.action, parser.fields


class Browser:
    """One browser: its own cookies; every request on a new connection, with a timeout."""

    def __init__(self, base_url: str, timeout: float):
        parts = urlsplit(base_url)
        self.origin = base_url.rstrip("/")
        self.host, self.port = parts.hostname, parts.port
        self.timeout = timeout
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, fields=None, extra_headers=None) -> Answer:
        headers = {"Host": f"{self.host}:{self.port}", "Accept-Language": "pl"}
        headers |= extra_headers or {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urlencode(fields).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Origin"] = self.origin  # as browsers send with every POST
        started = time.monotonic()
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    self.cookies[name] = morsel.value
            return Answer(
                response.status,
                response.headers.get("Location", ""),
                text,
                time.monotonic() - started,
                dict(response.headers.items()),
            )
        finally:
            connection.close()

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post(self, path: str, fields) -> Answer:
        return self.request("POST", path, fields)
