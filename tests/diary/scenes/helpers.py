"""What the scenes' tests share: a split table (the GM opens "W lochach" and moves Borys
there) and the diary read as text."""

import html

from django.urls import reverse

from diary.scenes.services import scene_create, scene_move
from diary.services import post_create


def split(table, name="W lochach"):
    """The GM opens a second scene and moves Borys into it; Lirael stays in the main one."""
    scene = scene_create(session=table.session, by=table.gm, name=name)
    scene_move(session=table.session, by=table.gm, character_pk=table.borys.pk, scene_pk=scene.pk)
    table.session.refresh_from_db()
    return scene


def write(table, who, character, text, **kwargs):
    return post_create(
        session=table.session, author=who, character=character, narration=text, nc_note="", **kwargs
    )


def diary(client, table, **query) -> str:
    url = reverse("diary:session", args=[table.session.pk])
    response = client.get(url, query)
    assert response.status_code == 200
    return html.unescape(response.content.decode())
