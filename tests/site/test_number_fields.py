"""A number a person types starts empty: no fresh form of the site prefills one (a "0" in the
field turns a typed 25 into "025"); a field left empty takes its default, which its
placeholder shows. The demo's pages of every system, as their GM and players see them."""

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from characters.systems import ATTRIBUTE_RANGE
from diary.models import GameSession
from rolls import registry

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_once")]


class _NumberInputs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.inputs: list[dict] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "input" and attrs.get("type") == "number":
            self.inputs.append(attrs)


def number_inputs(content: str) -> list[dict]:
    parser = _NumberInputs()
    parser.feed(content)
    return parser.inputs


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def fresh_forms():
    """(what, client, url) of every page with a fresh form a person types numbers into."""
    for session in GameSession.objects.select_related("gm"):
        gm, pk = client_of(session.gm), session.pk
        for mode in registry.system_for(session.system).modes:
            yield (
                f"{session.system} panel {mode.key}",
                gm,
                (reverse("rolls:panel", args=[pk]) + f"?mode={mode.key}"),
            )
        yield f"{session.system} entries", gm, reverse("rolls:entries", args=[pk])
        yield f"{session.system} initiative", gm, reverse("rolls:initiative", args=[pk])
        yield f"{session.system} free roll", gm, reverse("rolls:free", args=[pk])
    someone = client_of(GameSession.objects.first().gm)
    for system in ATTRIBUTE_RANGE:
        yield f"{system} new sheet", someone, reverse("characters:create") + f"?system={system}"


def test_no_fresh_form_prefills_a_number_someone_types():
    prefilled, seen = {}, 0
    for what, client, url in fresh_forms():
        response = client.get(url, follow=True)
        assert response.status_code == 200, (what, url)
        inputs = number_inputs(response.content.decode())
        seen += len(inputs)
        shown = [f'{i["name"]}="{i["value"]}"' for i in inputs if i.get("value") not in (None, "")]
        if shown:
            prefilled[what] = shown
    assert seen > 50  # the walk reached the panels' and the sheets' number fields
    assert not prefilled, "\n".join(f"{what}: {fields}" for what, fields in prefilled.items())


def test_a_number_with_a_default_says_it_in_its_placeholder():
    """The panel's typed modifiers and a new sheet's skill levels: empty, placeholder "0"."""
    session = GameSession.objects.get(system="forum1000", title__startswith="Mgły")
    panel = client_of(session.gm).get(
        reverse("rolls:panel", args=[session.pk]) + "?mode=skill", follow=True
    )
    fields = {i["name"]: i for i in number_inputs(panel.content.decode())}
    assert fields["a-action_value"].get("placeholder") == "0"
    sheet = client_of(session.gm).get(reverse("characters:create") + "?system=forum1000")
    skills = [
        i for i in number_inputs(sheet.content.decode()) if re.match(r"skill_\d+$", i["name"])
    ]
    assert skills and all(i.get("placeholder") == "0" for i in skills)
