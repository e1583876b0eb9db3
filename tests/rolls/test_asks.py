"""A player's request for a roll: checked against RULES 1.2 when
made, shown in the post, answered by the GM with one click into the panel, the roll landing
in a new post placed as the answer, linked both ways; withdrawn by its player."""

import html

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from diary.models import Post
from diary.services import post_create
from rolls.models import AskStatus, Roll, RollAsk
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.conftest import polish
from tests.rolling import make_roll
from tests.rolls.conftest import described_plan
from tests.rolls.test_panel import skill, trait

pytestmark = pytest.mark.django_db


def ask_url(table):
    return reverse("rolls:ask", args=[table.session.pk])


def narrate(table, user, character, text="Borys próbuje otworzyć zamek."):
    return post_create(
        session=table.session, author=user, character=character, narration=text, nc_note=""
    )


def ask_data(character, skill_name, *sources, **extra):
    # The request form names its mode (a tab of the form), as the panel does.
    data = {"mode": "skill", "a-character": character.pk, "a-skill": skill(skill_name)}
    data["a-sources"] = [trait(name) for name in sources]
    data.update(extra)
    return data


def trait_id(name) -> int:
    return int(trait(name).removeprefix("trait:"))


def plain_client(user) -> Client:
    """A browser following a link as it is written (no signing of the panel's fields)."""
    client = Client()
    client.force_login(user)
    return client


def test_a_player_asks_for_a_skill_roll_and_it_shows_in_the_post(table, client_for):
    post = narrate(table, table.bob, table.borys)
    response = client_for(table.bob).post(
        ask_url(table), ask_data(table.borys, "Otwieranie zamków", "Precyzyjny")
    )
    assert response.status_code == 302
    ask = RollAsk.objects.get()
    assert (ask.post, ask.character, ask.status) == (post, table.borys, AskStatus.OPEN)
    assert "Otwieranie zamków" in ask.summary and "Precyzyjny +50" in ask.summary
    page = html.unescape(client_for(table.bob).get(response.url.split("#")[0]).content.decode())
    assert ask.summary in page
    assert polish("Withdraw the request") in page
    gm_page = html.unescape(client_for(table.gm).get(response.url.split("#")[0]).content.decode())
    assert polish("Answer with a roll") in gm_page


def test_a_source_of_another_attribute_is_refused_next_to_the_field(table, client_for):
    """Seed 000, examples 2 and 3: an ability counts only for its own attribute."""
    narrate(table, table.bob, table.borys)
    response = client_for(table.bob).post(
        ask_url(table), ask_data(table.borys, "Uwodzenie", "Precyzyjny")
    )
    assert response.status_code == 400
    assert "id_a-sources_error" in response.content.decode()
    assert not RollAsk.objects.exists()


def test_a_request_needs_the_post_describing_the_action(table, client_for):
    response = client_for(table.bob).post(
        ask_url(table), ask_data(table.borys, "Otwieranie zamków")
    )
    assert response.status_code == 400
    assert polish(
        "Describe the action in a post of this turn first; the request is attached to it."
    ) in html.unescape(response.content.decode())
    assert not RollAsk.objects.exists()


def test_only_players_of_the_session_ask_and_only_for_their_own_character(table, client_for):
    narrate(table, table.bob, table.borys)
    for who in (table.gm, table.moderator):
        assert client_for(who).get(ask_url(table)).status_code == 403
    assert client_for(table.outsider).get(ask_url(table)).status_code == 404
    # Alicja cannot ask in Borys's name: he is not among her characters.
    response = client_for(table.alice).post(ask_url(table), ask_data(table.borys, "Uwodzenie"))
    assert response.status_code == 400
    assert not RollAsk.objects.exists()


def test_the_gm_answers_in_one_click_and_the_roll_lands_after_the_request(table, client_for):
    post = narrate(table, table.bob, table.borys)
    client_for(table.bob).post(
        ask_url(table), ask_data(table.borys, "Otwieranie zamków", "Precyzyjny")
    )
    ask = RollAsk.objects.get()
    page = client_for(table.gm).get(post.get_absolute_url().split("#")[0])
    answer_url = next(view.answer_url for view in page.context["rolls"].open_asks)
    # The one click: a plain link, opened as a clean panel with the request's test prefilled.
    gm = plain_client(table.gm)
    panel = gm.get(answer_url, follow=True)
    body = html.unescape(panel.content.decode())
    assert panel.status_code == 200 and str(ask.summary) in body
    form = panel.context["panel"]
    fields = {
        "token": form.token_form.initial.get("token") or form.token_form.data.get("token"),
        **{key: form.token_form.data.get(key) for key in ("mode", "ask")},
    }
    data = {**panel.context["panel"].token_form.data.dict(), **fields}
    data.update(
        {
            "a-character": table.borys.pk,
            "a-skill": skill("Otwieranie zamków"),
            "a-sources": [trait("Precyzyjny")],
            "a-gm_difficulty": "-100",
            "a-gm_difficulty_reason": "zardzewiały zamek",
            "a-gm_bonus": "0",
            "a-action_value": "0",
        }
    )
    url = reverse("rolls:panel", args=[table.session.pk])
    # The page's form carries the roll its line describes (drawn as the fields changed).
    data["plan"] = described_plan(gm, url, data)
    response = gm.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    roll = Roll.objects.get()
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, roll)
    # A new post of the GM's, placed after the request's post, holds the answer.
    assert roll.post.author == table.gm and roll.post.pk > post.pk
    assert roll.record["answers"] == {"ask": ask.pk, "post": post.pk, "summary": ask.summary}
    diary = html.unescape(client_for(table.bob).get(post.get_absolute_url()).content.decode())
    assert polish("by roll #%(seq)s", seq=roll.seq) in diary
    # The answered state reads once: "odpowiedziano rzutem #N", no word doubled.
    shown = " ".join(html.unescape(diary).split())
    assert "odpowiedziano</span> <a" in shown and "odpowiedź: rzut" not in shown


def test_a_withdrawn_request_cannot_be_answered(table, client_for):
    narrate(table, table.bob, table.borys)
    client_for(table.bob).post(ask_url(table), ask_data(table.borys, "Otwieranie zamków"))
    ask = RollAsk.objects.get()
    withdraw = reverse("rolls:ask_withdraw", args=[table.session.pk, ask.pk])
    assert client_for(table.alice).post(withdraw).status_code == 403
    assert client_for(table.bob).post(withdraw).status_code == 302
    ask.refresh_from_db()
    assert ask.status == AskStatus.WITHDRAWN
    request = RollRequest(
        kind="skill", a=SideRequest(table.borys.pk, "skill", skill_id=skill("Otwieranie zamków"))
    )
    with pytest.raises(ValidationError) as refused:
        make_roll(table.session, table.gm, request, answers=ask)
    assert "ask" in getattr(refused.value, "error_dict", {})
    assert not Roll.objects.exists()
    assert Post.objects.filter(author=table.gm).count() == 0


def test_the_panel_lists_the_open_requests_for_the_gm(table, client_for):
    narrate(table, table.bob, table.borys)
    client_for(table.bob).post(ask_url(table), ask_data(table.borys, "Otwieranie zamków"))
    ask = RollAsk.objects.get()
    panel = client_for(table.gm).get(reverse("rolls:panel", args=[table.session.pk]), follow=True)
    body = html.unescape(panel.content.decode())
    assert ask.summary in body and f"ask={ask.pk}" in body


def test_the_gms_home_lists_the_requests_waiting(table, client_for):
    narrate(table, table.bob, table.borys)
    client_for(table.bob).post(ask_url(table), ask_data(table.borys, "Otwieranie zamków"))
    ask = RollAsk.objects.get()
    home = html.unescape(client_for(table.gm).get("/").content.decode())
    assert polish("Requests for rolls waiting for you") in home
    assert ask.summary in home and f"ask={ask.pk}" in home
    # Nobody else's home shows it.
    assert ask.summary not in html.unescape(client_for(table.alice).get("/").content.decode())


def test_the_answering_roll_links_back_to_the_request(table, client_for):
    """Linked both ways: the request names its roll, and the roll, wherever it is shown (the
    diary, its own page), says which request it answers, with a link to it in its post."""
    post = narrate(table, table.bob, table.borys)
    client_for(table.bob).post(
        ask_url(table), ask_data(table.borys, "Otwieranie zamków", "Precyzyjny")
    )
    ask = RollAsk.objects.get()
    request = RollRequest(
        kind="skill",
        a=SideRequest(
            table.borys.pk,
            "skill",
            skill_id=skill("Otwieranie zamków"),
            trait_ids=(trait_id("Precyzyjny"),),
        ),
    )
    made = make_roll(table.session, table.gm, request, answers=ask)
    text = polish("Answers the request for a roll: %(summary)s", summary=ask.summary)
    link = f'?after={post.pk - 1}#ask-{ask.pk}"'
    diary = html.unescape(
        client_for(table.alice).get(made.roll.post.get_absolute_url()).content.decode()
    )
    assert text in diary and link in diary
    detail = reverse("rolls:detail", args=[table.session.pk, made.roll.seq])
    page = html.unescape(client_for(table.alice).get(detail).content.decode())
    assert text in page and link in page
    # A roll that answers nothing says nothing of the kind.
    plain = make_roll(table.session, table.gm, request, extra_action_reason="druga próba")
    detail = reverse("rolls:detail", args=[table.session.pk, plain.roll.seq])
    assert "#ask-" not in client_for(table.alice).get(detail).content.decode()


@pytest.mark.parametrize(
    ("changed", "differs"),
    [
        ({"trait_ids": ()}, "the test"),  # the player's ability dropped
        ({"character": "lirael"}, "the character"),  # another character
        ({"kind": "attribute"}, "the kind of roll"),  # another test
    ],
)
def test_an_answer_other_than_the_request_needs_a_reason(table, client_for, changed, differs):
    """The GM answers by judgment (seed 000 VII.4): a roll other than the one asked is
    refused without a reason, and the request waits; with one, it closes the request as
    answered differently, the record keeping what was asked, what was rolled and why."""
    post = narrate(table, table.bob, table.borys)
    client_for(table.bob).post(
        ask_url(table), ask_data(table.borys, "Otwieranie zamków", "Precyzyjny")
    )
    ask = RollAsk.objects.get()
    side = {
        "character_id": table.borys.pk,
        "test": "skill",
        "skill_id": skill("Otwieranie zamków"),
        "trait_ids": (trait_id("Precyzyjny"),),
    }
    kind = "skill"
    if "trait_ids" in changed:
        side["trait_ids"] = ()
    if "character" in changed:  # Lirael's own skill and ability, but not the request's
        side.update(
            character_id=table.lirael.pk,
            skill_id=skill("Uwodzenie"),
            trait_ids=(trait_id("Seksapil"),),
        )
    if "kind" in changed:
        kind = "attribute"
        side = {"character_id": table.borys.pk, "test": "attribute", "attribute_ids": (1,)}
    request = RollRequest(kind=kind, a=SideRequest(**side))
    with pytest.raises(ValidationError) as refused:
        make_roll(table.session, table.gm, request, answers=ask, answer_note="  ")
    assert list(refused.value.message_dict) == ["answer_note"]
    assert polish(differs) in refused.value.message_dict["answer_note"][0]
    assert not Roll.objects.exists()
    ask.refresh_from_db()
    assert ask.is_open

    made = make_roll(
        table.session, table.gm, request, answers=ask, answer_note="Zamek jest zepsuty"
    )
    ask.refresh_from_db()
    assert (ask.status, ask.answer, ask.note) == (
        AskStatus.ANSWERED_DIFFERENTLY,
        made.roll,
        "Zamek jest zepsuty",
    )
    answer = made.roll.record["answers"]
    assert (answer["ask"], answer["post"], answer["summary"]) == (ask.pk, post.pk, ask.summary)
    assert answer["note"] == "Zamek jest zepsuty"
    assert answer["rolled"] != ask.summary and answer["rolled"].startswith(
        "Lirael: " if "character" in changed else "Borys: "
    )


def test_the_same_request_sent_twice_asks_once(table, client_for):
    narrate(table, table.bob, table.borys)
    bob = client_for(table.bob)
    data = ask_data(table.borys, "Otwieranie zamków", "Precyzyjny")
    assert bob.post(ask_url(table), data).status_code == 302
    again = bob.post(ask_url(table), data)
    assert again.status_code == 400
    message = polish(
        "%(name)s already has an open request in this post: wait for the GM's answer, or "
        "withdraw it first.",
        name="Borys",
    )
    assert message in html.unescape(again.content.decode())
    assert RollAsk.objects.count() == 1


def test_a_finished_sessions_request_cannot_be_withdrawn(table, client_for):
    """roll_ask_withdraw checks the session itself (rolls.access.may_ask): once it is
    finished, its requests stay as they were."""
    from django.core.exceptions import PermissionDenied

    from diary.services import session_transition
    from rolls.services import roll_ask_withdraw

    narrate(table, table.bob, table.borys)
    client_for(table.bob).post(ask_url(table), ask_data(table.borys, "Otwieranie zamków"))
    ask = RollAsk.objects.get()
    session_transition(session=table.session, by=table.gm, to="finished")
    with pytest.raises(PermissionDenied):
        roll_ask_withdraw(ask=ask, by=table.bob)
    withdraw = reverse("rolls:ask_withdraw", args=[table.session.pk, ask.pk])
    assert client_for(table.bob).post(withdraw).status_code == 403
    ask.refresh_from_db()
    assert ask.status == AskStatus.OPEN
    # The post no longer offers the withdrawal (nor the GM an answer).
    page = html.unescape(client_for(table.bob).get(ask.post.get_absolute_url()).content.decode())
    assert ask.summary in page and polish("Withdraw the request") not in page
    gm_page = client_for(table.gm).get(ask.post.get_absolute_url())
    assert not any(
        view.answer_url
        for views in gm_page.context["rolls"].asks_by_post.values()
        for view in views
    )


def test_the_open_requests_are_the_gms_list_while_the_session_runs(table, client_for):
    """rolls.posts.presenters.diary_rolls decides who sees the open requests (the template only
    asks its flag): the GM of a running session; nobody once it is finished."""
    from diary.services import session_transition

    narrate(table, table.bob, table.borys)
    client_for(table.bob).post(ask_url(table), ask_data(table.borys, "Otwieranie zamków"))
    url = reverse("diary:session", args=[table.session.pk])
    running = client_for(table.gm).get(url)
    assert running.context["rolls"].shows_open_asks
    assert len(running.context["rolls"].open_asks) == 1
    assert 'data-testid="open-asks"' in running.content.decode()
    player = client_for(table.bob).get(url)
    assert not player.context["rolls"].shows_open_asks and not player.context["rolls"].open_asks
    assert 'data-testid="open-asks"' not in player.content.decode()
    session_transition(session=table.session, by=table.gm, to="finished")
    finished = client_for(table.gm).get(url)
    assert not finished.context["rolls"].shows_open_asks
    assert finished.context["rolls"].open_asks == []
    assert 'data-testid="open-asks"' not in finished.content.decode()


def test_the_gm_declines_a_request_saying_why(table, client_for):
    """A request the GM will not roll is declined with a reason the player reads in the post;
    only the session's GM declines, and a closed request cannot be declined again."""
    post = narrate(table, table.bob, table.borys)
    client_for(table.bob).post(ask_url(table), ask_data(table.borys, "Otwieranie zamków"))
    ask = RollAsk.objects.get()
    decline = reverse("rolls:ask_decline", args=[table.session.pk, ask.pk])
    gm_post = html.unescape(client_for(table.gm).get(post.get_absolute_url()).content.decode())
    assert 'data-testid="decline-ask-link"' in gm_post
    for who in (table.bob, table.alice):
        assert client_for(who).post(decline, {"reason": "nie"}).status_code == 403
    gm = client_for(table.gm)
    empty = gm.post(decline, {"reason": "  "})
    assert empty.status_code == 400
    assert empty.context["form"].errors["reason"]
    ask.refresh_from_db()
    assert ask.is_open
    assert gm.post(decline, {"reason": "Zamek jest już otwarty"}).status_code == 302
    ask.refresh_from_db()
    assert (ask.status, ask.note, ask.answer) == (
        AskStatus.DECLINED,
        "Zamek jest już otwarty",
        None,
    )
    assert not Roll.objects.exists()
    page = html.unescape(client_for(table.bob).get(post.get_absolute_url()).content.decode())
    assert "Zamek jest już otwarty" in page
    assert gm.post(decline, {"reason": "jeszcze raz"}).status_code == 400
    ask.refresh_from_db()
    assert ask.note == "Zamek jest już otwarty"
