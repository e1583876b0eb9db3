"""Text for chosen eyes is secret on every surface that shows a post's text: each surface is
read as each role, and a part's words appear exactly where that role may read them.

Two parts: the GM's post for Borys's eyes, and Lirael's (Alicja's) post for Bartek's. Who
reads them: the post's author, whoever runs the session (the GM, a co-GM), moderators and
the players named; Celina (another player) and an outsider never.
"""

import io
import json
import zipfile

import pytest
from django.urls import reverse

from diary import services
from diary.handover.services import co_gm_name
from diary.models import Notification, SessionWebhook
from diary.notifications import delivery
from diary.notifications.webhooks import discord_body
from tests.conftest import polish

pytestmark = pytest.mark.django_db

GM_SECRET = "Szafirowy"  # in the GM's post, for Borys
PLAYER_SECRET = "Miedziany"  # in Lirael's post, for Bartek
PUBLIC = "Karczmarz"

ROLES = ("gm", "co_gm", "chosen", "alice", "other", "moderator", "outsider")
# Who may read each part (diary.eyes.reading.Reader).
READS_GM_PART = {"gm", "co_gm", "chosen", "moderator"}
READS_PLAYER_PART = {"gm", "co_gm", "chosen", "alice", "moderator"}
# Who reads every part of the post (search finds a part's words only for them).
SEARCHES_GM_PART = {"gm", "co_gm", "moderator"}
SEARCHES_PLAYER_PART = {"gm", "co_gm", "alice", "moderator"}


@pytest.fixture
def scene(table, make_user, make_character, make_session, client_for, settings):
    settings.SITE_URL = "http://codziennik.test"
    co_gm = make_user("kasia")
    co_gm_name(session=table.session, by=table.gm, user=co_gm)
    carol = make_user("celina")
    cyra = make_character(carol, "Cyra")
    participation = services.participation_invite(
        session=table.session, by=table.gm, character=cyra
    )
    services.participation_decide(participation=participation, by=carol, accept=True)
    for user in (table.gm, co_gm, table.alice, table.bob, carol, table.moderator):
        user.email = f"{user.username}@example.com"
        user.save()
    SessionWebhook.objects.create(
        session=table.session, url="https://chat.example.com/api/webhooks/1/x", on_post=True
    )
    gm_post = services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration=(
            f"{PUBLIC} wita was w progu.\n\n"
            f"[dla: Borys]{GM_SECRET} klucz leży pod ladą.[/dla]\n\n"
            "[spoiler]Nic więcej.[/spoiler]"
        ),
        nc_note="",
    )
    # A second version, so the versions page has a diff to show.
    services.post_edit(
        post=gm_post,
        by=table.gm,
        character=None,
        narration=gm_post.narration + f"\n\n{PUBLIC} odchodzi.",
        nc_note="",
    )
    player_post = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration=f"Lirael mruga.\n\n[for: bartek]{PLAYER_SECRET} sztylet w bucie.[/for]",
        nc_note="",
    )
    users = {
        "gm": table.gm,
        "co_gm": co_gm,
        "chosen": table.bob,
        "alice": table.alice,
        "other": carol,
        "moderator": table.moderator,
        "outsider": table.outsider,
    }
    return {
        "table": table,
        "users": users,
        "gm_post": gm_post,
        "player_post": player_post,
        "client_for": client_for,
    }


def _page(client, url, **params) -> str:
    response = client.get(url, params, follow=True)
    return response.content.decode() if response.status_code == 200 else ""


def read_diary(scene, client, user):
    return _page(client, reverse("diary:session", args=[scene["table"].session.pk]))


def read_turn_page(scene, client, user):
    return _page(client, reverse("diary:session", args=[scene["table"].session.pk]), turn=1)


def read_permalink(scene, client, user):
    return _page(client, reverse("diary:post_link", args=[scene["gm_post"].pk])) + _page(
        client, reverse("diary:post_link", args=[scene["player_post"].pk])
    )


def read_live_poll(scene, client, user):
    return _page(client, reverse("diary:session_live", args=[scene["table"].session.pk]), seen="0")


def read_search(scene, client, user):
    """The results (the page echoes the query in its box, so only what it found counts):
    for the parts' own words, and for public words whose posts hold a part."""
    found = []
    for query in (GM_SECRET, PLAYER_SECRET, PUBLIC, "Lirael mruga"):
        response = client.get(reverse("diary:search"), {"q": query})
        page = response.context["page"] if response.status_code == 200 else None
        found.extend(str(post.snippet) for post in page or [])
        if page and query in (GM_SECRET, PLAYER_SECRET):
            found.append(query)  # found by the part's word, whatever the snippet shows
    return "".join(found)


def read_quote(scene, client, user):
    """What "Cytuj" (without JS) puts in the reply: the form's initial text alone."""
    text = []
    for post in (scene["gm_post"], scene["player_post"]):
        response = client.get(
            reverse("diary:session", args=[scene["table"].session.pk]), {"quote": post.pk}
        )
        form = response.context["post_form"] if response.status_code == 200 else None
        text.append((form.initial or {}).get("narration", "") if form else "")
    return "".join(text)


def read_versions(scene, client, user):
    return _page(client, reverse("diary:post_history", args=[scene["gm_post"].pk])) + _page(
        client, reverse("diary:post_history", args=[scene["player_post"].pk])
    )


def read_archive(scene, client, user):
    response = client.get(reverse("rolls:archive", args=[scene["table"].session.pk]))
    if response.status_code != 200:
        return ""
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    return "".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())


def read_export(scene, client, user):
    return _page(client, reverse("rolls:export", args=[scene["table"].session.pk]))


def read_notifications(scene, client, user):
    """The bell's page, each notification's e-mail and the daily digest (with its recap)."""
    page = _page(client, reverse("notifications:list"))
    if not user.email:
        return page
    pending = list(Notification.objects.filter(recipient=user))
    mails = [delivery._notification_mail(n) for n in pending]
    mails.append(delivery._digest_mail(user, pending))
    return page + "".join(mail.subject + mail.body for mail in mails)


def read_table_chat(scene, client, user):
    """What the table chat hears of the two posts (anyone in the chat reads it)."""
    from diary.notifications import webhooks

    bodies = []

    def catch(session_id, event, message):
        bodies.append(discord_body(**message()))

    original = webhooks.announce
    webhooks.announce = catch
    try:
        for post in (scene["gm_post"], scene["player_post"]):
            webhooks.announce_post_created(post)
    finally:
        webhooks.announce = original
    assert len(bodies) == 2
    return json.dumps(bodies, ensure_ascii=False)


SURFACES = {
    "diary": (read_diary, READS_GM_PART, READS_PLAYER_PART),
    "turn page": (read_turn_page, READS_GM_PART, READS_PLAYER_PART),
    "permalink": (read_permalink, READS_GM_PART, READS_PLAYER_PART),
    "live poll": (read_live_poll, READS_GM_PART, READS_PLAYER_PART),
    "search": (read_search, SEARCHES_GM_PART, SEARCHES_PLAYER_PART),
    # The moderator and an outsider write no reply, so they quote nothing.
    "quote": (read_quote, READS_GM_PART - {"moderator"}, READS_PLAYER_PART - {"moderator"}),
    # The versions are read by the author, whoever runs the session and moderators.
    "versions": (
        read_versions,
        {"gm", "co_gm", "moderator"},
        {"gm", "co_gm", "alice", "moderator"},
    ),
    "archive": (read_archive, READS_GM_PART, READS_PLAYER_PART),
    "export": (read_export, set(), set()),
    "notifications, e-mail and digest": (read_notifications, set(), set()),
    "table chat": (read_table_chat, set(), set()),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("surface", SURFACES)
def test_a_part_for_chosen_eyes_shows_exactly_where_the_role_may_read_it(scene, surface, role):
    read, reads_gm_part, reads_player_part = SURFACES[surface]
    user = scene["users"][role]
    text = read(scene, scene["client_for"](user), user)
    assert (GM_SECRET in text) == (role in reads_gm_part), (surface, role)
    assert (PLAYER_SECRET in text) == (role in reads_player_part), (surface, role)


@pytest.mark.parametrize("role", ["alice", "other"])
def test_a_player_who_may_not_read_a_part_sees_that_it_is_there(scene, role):
    user = scene["users"][role]
    html = read_diary(scene, scene["client_for"](user), user)
    assert polish("(text for chosen eyes only)") in html
    assert GM_SECRET not in html


def test_the_chosen_player_sees_whom_the_part_is_for_and_everyone_the_spoiler(scene):
    chosen = scene["users"]["chosen"]
    html = read_diary(scene, scene["client_for"](chosen), chosen)
    assert polish("only for: %(names)s", names="Borys") in html
    assert '<details class="spoiler"><summary>Spoiler</summary>' in html
    outsider_chat = read_table_chat(scene, None, None)
    assert polish("(text for chosen eyes only)") in outsider_chat


def test_a_body_cached_for_one_reader_is_never_served_to_another(scene):
    """The diary's rendered bodies are cached under what they show (diary/posts/
    rendering.py): the chosen player's body is never the other player's, either way round."""
    clients = {role: scene["client_for"](scene["users"][role]) for role in ("chosen", "other")}
    for order in (("chosen", "other"), ("other", "chosen")):
        for role in order:
            html = read_diary(scene, clients[role], scene["users"][role])
            assert (GM_SECRET in html) == (role == "chosen"), (order, role)
