"""diary/access.py is the one place that decides who sees and does what."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.models import Participation, SessionStatus
from diary.services import participation_invite, post_create, post_edit, post_hide
from tests.conftest import polish

pytestmark = pytest.mark.django_db

ROLES = ["alice", "bob", "gm", "moderator"]


def diary_with_every_kind_of_post(table):
    """Visible and hidden posts, edited (with versions) and not, by a player and the GM."""
    posts = []
    for author, character in [(table.alice, table.lirael), (table.gm, None), (table.bob, None)]:
        post = post_create(
            session=table.session, author=author, character=character, narration="v1", nc_note=""
        )
        post_edit(post=post, by=author, character=character, narration="v2", nc_note="")
        posts.append(post)
    post_hide(post=posts[0], by=table.alice, reason="spoiler")  # hidden by its author
    post_hide(post=posts[1], by=table.gm, reason="")  # the GM's own, hidden
    return posts


def links_on_page(body: str) -> set[str]:
    """Every same-site GET link the page shows (forms post; they are tested elsewhere)."""
    hrefs = set(re.findall(r'href="(/[^"#]*)', body))
    return {h.replace("&amp;", "&") for h in hrefs if not h.startswith(("/static/", "/accounts/"))}


@pytest.mark.parametrize("who", [*ROLES, "invited"])
def test_every_link_the_diary_shows_answers_200(table, client_for, make_character, who):
    """The versions link on hidden posts used to lead the author and GM to 403
    (and an invited reader's character links to 404)."""
    diary_with_every_kind_of_post(table)
    if who == "invited":
        table.invited = table.outsider
        participation_invite(
            session=table.session, by=table.gm, character=make_character(table.outsider)
        )
    client = client_for(getattr(table, who))
    body = client.get(reverse("diary:session", args=[table.session.pk])).content.decode()
    links = links_on_page(body)
    if who in ("bob", "gm", "moderator"):  # alice's edited post is hidden; invited: none
        assert any("/history/" in link for link in links)
    broken = {link: client.get(link, follow=True).status_code for link in links}
    assert {link: code for link, code in broken.items() if code != 200} == {}


def test_versions_of_a_hidden_post_are_for_moderators_only(table, client_for):
    hidden, *_ = diary_with_every_kind_of_post(table)
    history = reverse("diary:post_history", args=[hidden.pk])
    for who in ("alice", "gm"):
        body = client_for(getattr(table, who)).get(
            reverse("diary:session", args=[table.session.pk])
        )
        assert history not in body.content.decode()
        assert client_for(getattr(table, who)).get(history).status_code == 403
    assert (
        history
        in client_for(table.moderator)
        .get(reverse("diary:session", args=[table.session.pk]))
        .content.decode()
    )


def test_the_diary_template_calls_no_roll_services():
    """Rolls reach the diary page precomputed, not through template tags."""
    from pathlib import Path

    from django.conf import settings

    template = Path(settings.BASE_DIR, "templates/diary/session_detail.html").read_text()
    assert "{% load" not in template or "ledger" not in template
    assert not Path(settings.BASE_DIR, "rolls/templatetags/ledger.py").exists()


def participation_queries(queries) -> list[str]:
    return [q["sql"] for q in queries if 'FROM "diary_participation"' in q["sql"]]


def test_a_players_diary_checks_participation_once(table, client_for):
    """One query for the user's participations and the roster (the
    roster's query gives the user's own); no more."""
    client = client_for(table.alice)
    url = reverse("diary:session", args=[table.session.pk])
    client.get(url)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    assert len(participation_queries(queries.captured_queries)) == 1


def test_a_players_diary_query_count_is_small_and_flat(table, client_for):
    table.session.roll_policy = "players_own"
    table.session.save()
    client = client_for(table.alice)
    url = reverse("diary:session", args=[table.session.pk])
    client.get(url)  # warm up (content types, translations)
    # Measured right after a change both times: the diary's cache (diary/live/page_cache.py)
    # misses then, the dearest view; tests/diary/test_page_costs.py counts the cached one.
    post_create(session=table.session, author=table.bob, character=None, narration="0", nc_note="")
    with CaptureQueriesContext(connection) as small:
        client.get(url)
    for n in range(30):
        post_create(
            session=table.session, author=table.bob, character=None, narration=f"{n}", nc_note=""
        )
    with CaptureQueriesContext(connection) as large:
        client.get(url)
    # Flat, or one less: a reader now behind by more than a page does not move the mark
    # past posts the newest page skipped (diary/reading.page_continues_reading).
    assert len(small.captured_queries) - 1 <= len(large.captured_queries)
    assert len(large.captured_queries) <= len(small.captured_queries)
    # Login session, user, session (with the moderator check), participations (the user's
    # and the roster), turn, posts, post-form characters; after a change also the rolls,
    # their requests, the chain head, the turn's action counts and posters and the NPC
    # roster and who is away today (flat as posts grow; cached until the next change).
    assert len(small.captured_queries) <= 14


# --- Sheets open to a GM only once the owner asked or accepted -------------------------


def test_an_invitation_alone_does_not_open_a_sheet(
    make_user, make_character, make_session, client_for
):
    owner, attacker = make_user(), make_user()
    sheet = make_character(owner, "Tajna")
    session = make_session(attacker, status=SessionStatus.DRAFT)
    participation_invite(session=session, by=attacker, character=sheet)
    client = client_for(attacker)
    assert client.get(reverse("characters:detail", args=[sheet.pk])).status_code == 404
    assert client.get(reverse("characters:history", args=[sheet.pk])).status_code == 404
    # The participants page names the invited character but does not link its sheet.
    body = client.get(reverse("diary:participants", args=[session.pk])).content.decode()
    assert reverse("characters:detail", args=[sheet.pk]) not in body


def test_a_request_or_acceptance_opens_the_sheet_to_the_gm(
    make_user, make_character, make_session, client_for
):
    owner, gm = make_user(), make_user()
    sheet = make_character(owner)
    session = make_session(gm, status=SessionStatus.RUNNING)
    client_for(owner).post(
        reverse("diary:session_join", args=[session.pk]), {"character": sheet.pk}
    )
    assert Participation.objects.get().status == "requested"
    assert client_for(gm).get(reverse("characters:detail", args=[sheet.pk])).status_code == 200


def test_the_invite_form_lists_no_characters(table, make_character, make_user, client_for):
    make_character(make_user("ktos"), "Zupełnie Obca")
    body = (
        client_for(table.gm)
        .get(reverse("diary:participants", args=[table.session.pk]))
        .content.decode()
    )
    assert "Zupełnie Obca" not in body and "<select" not in body.split("Invite")[-1]


def test_the_gm_invites_by_username_and_name(table, make_character, make_user, client_for):
    player = make_user("Wędrowiec")
    character = make_character(player, "Kira z Gór")
    url = reverse("diary:participants", args=[table.session.pk])
    response = client_for(table.gm).post(url, {"username": "wędrowiec", "name": "KIRA Z GÓR"})
    assert response.status_code == 302
    assert Participation.objects.get(character=character).status == "invited"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"username": "nikt-taki", "name": "Kira"},
            "username",
            "There is no player with this username.",
        ),
        (
            {"username": "alicja", "name": "Kira"},
            "name",
            "This player has no character of this name in the session's rule system.",
        ),
    ],
)
def test_inviting_a_missing_character_says_so_next_to_the_field(
    table, client_for, data, field, message
):
    url = reverse("diary:participants", args=[table.session.pk])
    response = client_for(table.gm).post(url, data)
    assert response.status_code == 400
    assert response.context["invite_form"].errors[field] == [polish(message)]
    assert polish(message) in response.content.decode()
    assert Participation.objects.filter(session=table.session).count() == 2


@pytest.mark.parametrize("action", ["accept", "decline", "withdraw"])
def test_a_participation_is_not_disclosed_to_who_cannot_read_its_session(
    table, client_for, make_character, action
):
    """Participations are looked up through diary.access like posts and sessions: someone
    outside the session gets 404 (its ids cannot be probed), and nothing changes."""
    invited = participation_invite(
        session=table.session, by=table.gm, character=make_character(table.bob, "Trzecia")
    )
    playing = Participation.objects.get(session=table.session, character=table.lirael)
    target = playing if action == "withdraw" else invited
    before = {p.pk: p.status for p in Participation.objects.all()}
    response = client_for(table.outsider).post(
        reverse(f"diary:participation_{action}", args=[target.pk]), {"confirm": "yes"}
    )
    assert response.status_code == 404
    assert {p.pk: p.status for p in Participation.objects.all()} == before


def test_a_posts_permalink_finds_its_page_for_readers_only(table, client_for):
    """Pages by turn: every post has a permalink that survives later posts."""
    first = post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="pierwszy",
        nc_note="",
    )
    for n in range(25):  # pushes the first post off the newest page
        post_create(
            session=table.session, author=table.gm, character=None, narration=f"n{n}", nc_note=""
        )
    link = reverse("diary:post_link", args=[first.pk])
    answer = client_for(table.bob).get(link)
    assert answer.status_code == 302
    assert answer["Location"].endswith(f"?after={first.pk - 1}#post-{first.pk}")
    page = client_for(table.bob).get(answer["Location"].split("#")[0]).content.decode()
    assert f'id="post-{first.pk}"' in page
    assert client_for(table.outsider).get(link).status_code == 404
