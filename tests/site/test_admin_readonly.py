"""The admin cannot bypass the diary's rules: game records are read-only there (finding 14)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from characters.models import Attribute, Character, SheetRevision
from diary import services as diary_services
from diary.models import GameSession, Participation, Post, Turn

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client, table):
    superuser = get_user_model().objects.create_superuser("szef", password="x-Sekret-1000")
    client.force_login(superuser)
    return client


@pytest.fixture
def post(table):
    # Straight through the ORM: this test is about the admin, not the posting rules.
    turn = Turn.objects.filter(session=table.session).order_by("number").last()
    return Post.objects.create(
        session=table.session, turn=turn, author=table.alice, narration="Lirael czeka."
    )


def snapshot(table):
    return {
        "sessions": list(GameSession.objects.values_list("id", "title", "status")),
        "participations": list(Participation.objects.values_list("id", "session", "status")),
        "turns": list(Turn.objects.values_list("id", "session", "number")),
        "posts": list(Post.objects.values_list("id", "session", "turn", "narration")),
        "characters": list(Character.objects.values_list("id", "name", "hp_current", "hp_max")),
        "revisions": SheetRevision.objects.count(),
    }


def read_only_objects(table, post):
    return [
        (GameSession, table.session.pk),
        (Turn, post.turn_id),
        (Post, post.pk),
        (Character, table.lirael.pk),
    ]


def url(model, action, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{action}", args=args)


def test_changelists_and_change_pages_are_readable(admin, table, post):
    for model, pk in read_only_objects(table, post):
        assert admin.get(url(model, "changelist")).status_code == 200
        page = admin.get(url(model, "change", pk))
        assert page.status_code == 200
        # Read-only: no save button, no delete link, no add button.
        body = page.content.decode()
        assert 'name="_save"' not in body
        assert url(model, "delete", pk) not in body


def test_posts_to_change_delete_and_add_are_refused(admin, table, post):
    other = diary_services.session_create(
        gm=table.gm,
        title="Inna",
        description="",
        system=table.session.system,
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
    )
    before = snapshot(table)
    for model, pk in read_only_objects(table, post):
        # A turn moved to another session, a session renamed, a character's HP raised.
        data = {"session": other.pk, "title": "Zmieniona", "name": "X", "hp_current": 100}
        assert admin.post(url(model, "change", pk), data).status_code == 403
        assert admin.post(url(model, "delete", pk), {"post": "yes"}).status_code == 403
        assert admin.post(url(model, "add"), data).status_code == 403
    # The session's participation inline cannot delete a row either.
    participation = Participation.objects.filter(session=table.session).first()
    inline_delete = {
        "title": table.session.title,
        "participations-TOTAL_FORMS": "1",
        "participations-INITIAL_FORMS": "1",
        "participations-0-id": participation.pk,
        "participations-0-DELETE": "on",
    }
    assert (
        admin.post(url(GameSession, "change", table.session.pk), inline_delete).status_code == 403
    )
    assert snapshot(table) == before


def test_catalogs_stay_editable(admin):
    attribute = Attribute.objects.first()
    page = admin.get(url(Attribute, "change", attribute.pk))
    assert page.status_code == 200
    assert 'name="_save"' in page.content.decode()
    assert admin.get(url(Attribute, "add")).status_code == 200
