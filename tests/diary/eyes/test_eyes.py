"""Text for chosen eyes as it is written: names resolved, malformed markup refused next to the
field (nothing stored), the parts kept out of the post's own HTML; and the spoiler block."""

import html
import uuid

import pytest
from django.urls import reverse

from config.markdown import render_narration
from diary import services
from diary.eyes.reading import NOBODY, Reader, visible_html, visible_text
from diary.models import Post, TalkMessage
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def write(client, session, **data):
    data.setdefault("token", str(uuid.uuid4()))
    return client.post(reverse("diary:post_create", args=[session.pk]), data)


def refusal(response) -> str:
    assert response.status_code == 400
    return " ".join(str(e) for e in response.context["post_form"].errors["narration"])


def test_names_are_usernames_or_character_names_in_any_case_and_either_language(table, client_for):
    write(
        client_for(table.gm),
        table.session,
        narration="Wstęp.\n\n[DLA: borys, Alicja]Dla dwojga.[/dla]\n\n[for: LIRAEL]Dla niej.[/FOR]",
    )
    post = Post.objects.get()
    first, second = post.narration_eyes
    assert first["to"] == sorted([table.bob.pk, table.alice.pk])
    assert first["names"] == ["Borys", "alicja"]
    assert second["to"] == [table.alice.pk]
    # The post's own HTML holds no part: only where each was.
    assert "Dla dwojga" not in post.narration_html and "Dla niej" not in post.narration_html
    assert post.narration_html.count("<!--eyes:") == 2
    assert "Dla" not in post.narration_public and "Wstęp." in post.narration_public


def test_a_post_without_parts_is_stored_as_before(table, client_for):
    write(client_for(table.alice), table.session, character=table.lirael.pk, narration="Hej.")
    post = Post.objects.get()
    assert (post.narration_eyes, post.narration_public) == (None, None)


@pytest.mark.parametrize(
    ("narration", "msgid", "params"),
    [
        (
            "[dla: Bartłomiej]Sekret[/dla]",
            "No one in this session goes by “%(name)s”.",
            {"name": "Bartłomiej"},
        ),
        (
            "[dla: Borys]Sekret bez końca",
            "%(open)s is not closed: end the text for chosen eyes with [/dla].",
            {"open": "[dla: Borys]"},
        ),
        (
            "[dla: Borys]A [dla: Lirael]B[/dla] C[/dla]",
            "Text for chosen eyes cannot hold another: close %(open)s before %(inner)s.",
            {"open": "[dla: Borys]", "inner": "[dla: Lirael]"},
        ),
        (
            "[dal: Borys]Literówka[/dla]",
            "“%(tag)s” closes no text for chosen eyes: start it with [dla: name].",
            {"tag": "[/dla]"},
        ),
        ("[dla: , ]Nikt[/dla]", "Say whose eyes the text is for: [dla: name].", {}),
    ],
)
def test_malformed_markup_or_an_unknown_name_is_refused_next_to_the_field(
    table, client_for, narration, msgid, params
):
    response = write(client_for(table.gm), table.session, narration=narration)
    assert refusal(response) == polish(msgid, **params)
    assert not Post.objects.exists()


def test_an_edit_is_checked_too_and_its_parts_replace_the_old_ones(table, client_for):
    post = services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="[dla: Borys]Stary sekret.[/dla]",
        nc_note="",
    )
    client = client_for(table.gm)
    url = reverse("diary:post_edit", args=[post.pk])
    refused = client.post(url, {"narration": "[dla: Nikt]Nowy[/dla]", "nc_note": ""})
    assert refused.status_code == 400
    assert polish("No one in this session goes by “%(name)s”.", name="Nikt") in html.unescape(
        refused.content.decode()
    )
    client.post(url, {"narration": "Jawnie.\n\n[dla: Lirael]Nowy sekret.[/dla]", "nc_note": ""})
    post.refresh_from_db()
    assert [part["to"] for part in post.narration_eyes] == [[table.alice.pk]]
    assert "Stary" not in str(post.narration_eyes)


def test_the_preview_shows_the_author_every_part_and_refuses_as_posting_would(table, client_for):
    client = client_for(table.gm)
    url = reverse("diary:post_preview", args=[table.session.pk])
    shown = client.post(
        url, {"narration": "[dla: Borys]Tylko Borys.[/dla]", "token": str(uuid.uuid4())}
    )
    page = html.unescape(shown.content.decode())
    assert "Tylko Borys." in page and polish("only for: %(names)s", names="Borys") in page
    refused = client.post(url, {"narration": "[dla: Ktoś]?[/dla]", "token": str(uuid.uuid4())})
    assert refused.status_code == 400
    assert polish("No one in this session goes by “%(name)s”.", name="Ktoś") in html.unescape(
        refused.content.decode()
    )


def test_typed_markup_of_the_wrapper_is_only_text(table):
    """The placeholder is a comment and the spoiler a <details>: raw HTML is off and the
    sanitiser drops both, so nobody forges a part or reveals one by typing them."""
    post = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration='<!--eyes:0--> <details open><summary>x</summary>y</details> <div data-x="1">',
        nc_note="",
    )
    assert "<!--" not in post.narration_html and "<details" not in post.narration_html
    assert visible_html(post, NOBODY) == post.narration_html


def test_a_quote_keeps_a_readable_part_for_the_same_eyes(table):
    post = services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="Jawne.\n\n[dla: Borys]Ukryte.[/dla]",
        nc_note="",
    )
    chosen = Reader(table.bob.pk)
    assert visible_text(post, chosen, markup=True) == "Jawne.\n\n[dla: Borys]Ukryte.[/dla]"
    other = visible_text(post, Reader(table.alice.pk), markup=True)
    assert "Ukryte" not in other and polish("(text for chosen eyes only)") in other


def test_text_for_chosen_eyes_is_refused_out_of_character(table, client_for):
    response = client_for(table.alice).post(
        reverse("diary:ooc", args=[table.session.pk]),
        {"text": "[dla: Borys]Psst.[/dla]", "token": str(uuid.uuid4())},
    )
    assert polish(
        "Text for chosen eyes ([dla: …]) works in the diary's posts only; out of character, "
        "a whisper reaches only the people you choose."
    ) in html.unescape(response.content.decode())
    assert not TalkMessage.objects.exists()


def test_a_spoiler_is_a_details_block_anyone_opens():
    rendered = render_narration("Przed.\n\n[spoiler]Zdrajcą jest **karczmarz**.[/spoiler]\n\nPo.")
    assert rendered == (
        "<p>Przed.</p>\n"
        '<details class="spoiler"><summary>Spoiler</summary>'
        "<p>Zdrajcą jest <strong>karczmarz</strong>.</p>\n</details>\n"
        "<p>Po.</p>\n"
    )
    # An unclosed spoiler is text as typed.
    assert render_narration("[spoiler]nic") == "<p>[spoiler]nic</p>\n"


def test_the_table_chat_gets_a_spoiler_behind_discords_spoiler_marks():
    from diary.notifications.webhooks import plain_excerpt

    assert plain_excerpt("Przed. [spoiler]Zdrajcą jest **on**.[/spoiler]") == (
        "Przed. ||Zdrajcą jest on.||"
    )


def test_a_quote_inside_a_part_tells_the_quoted_author_nothing(table):
    from diary.models import Notification, NotificationKind
    from diary.posts.quoting import quote_markdown

    quoted = services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael milczy.",
        nc_note="",
    )
    services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration=f"[dla: Borys]{quote_markdown(quoted)}Ona coś ukrywa.[/dla]",
        nc_note="",
    )
    assert not Notification.objects.filter(
        recipient=table.alice, kind=NotificationKind.QUOTE
    ).exists()


def test_an_earlier_versions_part_is_read_only_by_those_who_read_every_part(table):
    """A version's parts are not the post's: who they were for is not known there, so only
    the author, whoever runs the session and moderators read them (the versions page)."""
    post = services.post_create(
        session=table.session,
        author=table.gm,
        character=None,
        narration="[dla: Borys]Teraz.[/dla]",
        nc_note="",
    )
    earlier = "[dla: Borys]Kiedyś.[/dla]"
    assert "Kiedyś" not in visible_text(post, Reader(table.bob.pk), text=earlier)
    assert "Kiedyś" in visible_text(post, Reader(table.gm.pk), text=earlier)
    assert "Kiedyś" in visible_text(post, Reader(None, sees_all=True), text=earlier)


def test_a_name_two_members_go_by_is_refused(table, make_user, make_character, client_for):
    """A character named as another player's username could show the part to the wrong
    player: the author names one by username instead."""
    carol = make_user("celina")
    namesake = make_character(carol, "Bartek")
    participation = services.participation_invite(
        session=table.session, by=table.gm, character=namesake
    )
    services.participation_decide(participation=participation, by=carol, accept=True)
    response = write(client_for(table.gm), table.session, narration="[dla: bartek]Kto?[/dla]")
    assert refusal(response) == polish(
        "“%(name)s” is the name of more than one member of this session: "
        "name the player by their username.",
        name="bartek",
    )
    write(client_for(table.gm), table.session, narration="[dla: celina]Ty.[/dla]")
    assert Post.objects.get().narration_eyes[0]["to"] == [carol.pk]
