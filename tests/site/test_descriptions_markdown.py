"""Descriptions are Markdown, as posts are: a sheet's, an NPC's, a session's and a catalog
entry's show bold as bold, never "**…**", and stay sanitised. Search snippets are the
words alone: no Markdown syntax, no markup from the text."""

import pytest
from django.urls import reverse

from characters.models import Item
from diary import services as diary_services
from diary.npcs import services as npc_services

pytestmark = pytest.mark.django_db

TEXT = "**Bardka** z _południa_ <script>alert(1)</script>"


def shows_markdown(page: str) -> None:
    assert "<strong>Bardka</strong>" in page and "<em>południa</em>" in page
    assert "**Bardka**" not in page and "_południa_" not in page
    assert "<script>alert(1)" not in page


def test_a_sheets_description_is_rendered(table, client_for):
    table.lirael.description = TEXT
    table.lirael.save()
    page = client_for(table.alice).get(reverse("characters:detail", args=[table.lirael.pk]))
    shows_markdown(page.content.decode())


def test_a_sessions_and_an_npcs_descriptions_are_rendered(table, client_for):
    table.session.description = TEXT
    table.session.save()
    npc_services.npc_create(
        session=table.session, by=table.gm, name="Przewoźnik", description="Milczy, **zna bród**.",
        visible_to_players=True,
    )  # fmt: skip
    # The diary shows both: the session's description on top, the NPCs at its side.
    page = client_for(table.alice).get(reverse("diary:session", args=[table.session.pk]))
    page = page.content.decode()
    shows_markdown(page)
    assert "<strong>zna bród</strong>" in page and "**zna bród**" not in page


def test_a_catalog_entrys_description_is_rendered(table, client_for):
    item = Item.objects.filter(system="forum1000").first()
    item.description = TEXT
    item.save()
    page = client_for(table.alice).get(reverse("characters:catalog", args=["forum1000"]))
    shows_markdown(page.content.decode())


def test_a_search_snippet_is_plain_words(table, client_for):
    diary_services.post_create(
        session=table.session, author=table.bob, character=table.borys,
        narration="Nad brodem wisi **gęsta mgła** i [stara strażnica](https://example.com).",
        nc_note="",
    )  # fmt: skip
    response = client_for(table.alice).get(reverse("diary:search"), {"q": "mgła"})
    page = response.content.decode()
    assert "<mark>mgła</mark>" in page
    assert "gęsta" in page and "stara strażnica" in page
    assert "**" not in page and "](https" not in page
