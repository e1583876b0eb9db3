"""A session's public page tells a prospective player what it is about; its diary,
to someone outside its table, says it is private instead of a bare refusal."""

import pytest
from django.urls import reverse

from diary.models import GameSession
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def test_an_outsider_opening_the_diary_gets_a_polish_page_saying_it_is_private(table, client_for):
    response = client_for(table.outsider).get(reverse("diary:session", args=[table.session.pk]))
    assert response.status_code == 403
    text = response.content.decode()
    assert (
        polish(
            "This session's diary is private: only its GM and the players of its characters "
            "read it."
        )
        in text
    )
    assert reverse("diary:session_join", args=[table.session.pk]) in text


def test_the_public_page_shows_the_pitch_rendered_and_who_plays(table, client_for):
    GameSession.objects.filter(pk=table.session.pk).update(
        description="**Mgła** nad brodem.\n\n<script>alert(1)</script>"
    )
    response = client_for(table.outsider).get(
        reverse("diary:session_join", args=[table.session.pk])
    )
    assert response.status_code == 200
    text = response.content.decode()
    assert "<strong>Mgła</strong> nad brodem." in text
    assert "**Mgła**" not in text and "<script>alert(1)" not in text
    assert polish("Characters playing") in text
    assert 'data-testid="session-players">2<' in text
    assert table.gm.username in text
