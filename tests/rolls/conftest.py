"""Clients for the roll panel's tests.

The tests build the panel's form by hand, with a plain UUID as its one-time token. A roll's
POST carries the digest of the roll the panel's line described (rolls.roll_plan), as the
page's form does once its preview is drawn: these clients draw that preview first, unless
the test brings the digest itself.
The panel issues tokens signed for the user (rolls.access), so these clients sign a
plain token for their own user, and sign a GET's fields as the panel's own links
are: exactly what the panel would have given that user. A token or a link that is
already signed (e.g. one issued to someone else) is sent as it is. The initiative event's
forms carry the same tokens: a plain one posted there is signed too.
"""

import html
import re
import uuid

import pytest
from django.http import QueryDict
from django.test import Client

from diary.models import GameSession
from rolls import access

PANEL_PATH = re.compile(r"^/sessions/(\d+)/rolls/panel/$")
# A POST that asks the panel for something other than a roll (no JavaScript's "Show the
# chance", "Do not answer"), or that brings the digest of its described roll itself.
PANEL_ACTIONS = {"preview", "leave_ask", "plan"}
PLAN_INPUT = re.compile(r'<input type="hidden" name="plan" value="([^"]*)"')
INITIATIVE_PATH = re.compile(
    r"^/sessions/(\d+)/rolls/initiative/(?:marker|modifier|handover|npc)/$"
)


def _is_plain_uuid(value) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


class PanelClient(Client):
    def __init__(self, user, **kwargs):
        super().__init__(**kwargs)
        self.user = user
        self.force_login(user)

    def _signed(self, path, data, *, patterns=(PANEL_PATH,)):
        match = next((m for m in (p.match(path) for p in patterns) if m), None)
        if not match or not isinstance(data, dict) or not _is_plain_uuid(data.get("token")):
            return None, data
        session = GameSession.objects.get(pk=match.group(1))
        data = {**data, "token": access.sign_token(self.user, session, uuid.UUID(data["token"]))}
        return session, data

    def post(self, path, data=None, *args, **kwargs):
        _session, data = self._signed(path, data, patterns=(PANEL_PATH, INITIATIVE_PATH))
        if PANEL_PATH.match(path) and isinstance(data, dict) and not PANEL_ACTIONS & set(data):
            data = {**data, "plan": self.described_plan(path, data)}
        return super().post(path, data, *args, **kwargs)

    def get(self, path, data=None, *args, **kwargs):
        session, data = self._signed(path, data)
        if session is None:
            return super().get(path, data, *args, **kwargs)
        query = QueryDict(mutable=True)
        for key, value in data.items():
            query.setlist(key, [str(v) for v in value] if isinstance(value, list) else [str(value)])
        return super().get(f"{path}?{access.signed_query(self.user, session, query)}", **kwargs)

    def described_plan(self, path, data) -> str:
        return described_plan(super(), path, data)


def described_plan(client, path, data) -> str:
    """The digest of the roll the panel's line describes for these fields (their token
    already signed), as the page's form holds it once its preview has been drawn ("" where
    it can roll nothing yet)."""
    fields = {k: v for k, v in data.items() if k not in ("csrfmiddlewaretoken", "plan")}
    preview = client.get(path, fields, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="preview")
    found = PLAN_INPUT.search(preview.content.decode())
    return html.unescape(found.group(1)) if found else ""


@pytest.fixture
def client_for():
    def make(user) -> Client:
        return PanelClient(user)

    return make
