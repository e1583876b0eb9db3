import uuid

import pytest
from django.urls import reverse

from diary.drafts.access import access_draft


def draft_url(table, place="post", *, session=None):
    return reverse("diary:draft_save", args=[(session or table.session).pk, place])


def discard_url(table, place="post"):
    return reverse("diary:draft_discard", args=[table.session.pk, place])


def save(client, url, text="Lirael skrada się pod okno karczmy", note="", character=""):
    return client.post(
        url,
        {"text": text, "note": note, "character": character},
        HTTP_ACCEPT="application/json",
    )


def place(user, session, slug="post"):
    return access_draft(user, session.pk, slug)


def new_post(client, table, narration, character=""):
    return client.post(
        reverse("diary:post_create", args=[table.session.pk]),
        {"character": character, "narration": narration, "nc_note": "", "token": uuid.uuid4()},
    )


@pytest.fixture
def whisper_thread(table):
    from diary.talk import services as talk_services

    return talk_services.whisper_create(
        session=table.session,
        by=table.gm,
        players=[table.alice],
        subject="",
        text="Widzisz ślad na ścianie.",
        token=uuid.uuid4(),
    )
