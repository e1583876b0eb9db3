"""A player's request for a q10 roll, shown in words, answered by the GM in one click (the
panel prefilled): as asked, or differently with a reason the post shows; withdrawn."""

import html
import re

import pytest
from django.test import Client
from django.urls import reverse

from diary.services import post_create
from rolls.models import AskStatus, Roll, RollAsk
from tests.conftest import polish
from tests.rolls.conftest import described_plan

pytestmark = pytest.mark.django_db


def narrate(t, user, character, text="Eryk rozpędza się i skacze nad przepaścią."):
    return post_create(
        session=t.session, author=user, character=character, narration=text, nc_note=""
    )


def ask_url(t):
    return reverse("rolls:ask", args=[t.session.pk])


def ask_data(t, character=None, **extra):
    data = {
        "mode": "pool",
        "character": (character or t.eryk).pk,
        "attribute": t.sila.pk,
        "skill": t.atletyka.pk,
        "raises": "1",
        "difficulty": "15",
    }
    data.update({k: str(v) if not isinstance(v, list) else v for k, v in extra.items()})
    return data


def plain_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def words(response) -> str:
    text = html.unescape(re.sub(r"<[^>]+>", " ", response.content.decode()))
    return re.sub(r"\s+", " ", text)


def test_the_request_form_names_the_test_and_leaves_the_difficulty_to_the_gm(q10):
    page = plain_client(q10.alice).get(ask_url(q10)).content.decode()
    assert 'name="raises"' in page and 'name="attribute"' in page
    # What the GM sets is not in the request at all (not even hidden, so nothing is sent
    # empty): the difficulty, a typed pool modifier.
    assert 'name="difficulty"' not in page
    assert 'name="pool_dice_1"' not in page


def test_a_request_without_the_gms_fields_is_made(q10):
    """The request form sends no difficulty; it is not refused for the missing field."""
    narrate(q10, q10.alice, q10.eryk)
    data = ask_data(q10)
    del data["difficulty"]
    response = plain_client(q10.alice).post(ask_url(q10), data)
    assert response.status_code == 302
    assert RollAsk.objects.get().case_fields["raises"] == "1"


def test_a_player_asks_and_the_request_shows_in_the_post(q10):
    post = narrate(q10, q10.alice, q10.eryk)
    response = plain_client(q10.alice).post(
        ask_url(q10), ask_data(q10, sources=[f"trait:{q10.strong.pk}"], pool_dice_1=5)
    )
    ask = RollAsk.objects.get()
    assert response.status_code == 302 and response.url.endswith(f"#ask-{ask.pk}")
    assert (ask.post, ask.character, ask.test) == (post, q10.eryk, "pool")
    assert ask.case_fields == {
        "character": str(q10.eryk.pk),
        "attribute": str(q10.sila.pk),
        "skill": str(q10.atletyka.pk),
        "sources": [f"trait:{q10.strong.pk}"],
        "raises": "1",
    }
    # In words: the sheet's pool with the ability (6z2) and the raise; no typed modifier.
    assert ask.summary == "Eryk: Siła + Atletyka (6z2) · podbicia: 1"
    diary = plain_client(q10.bob).get(post.get_absolute_url())
    assert ask.summary in words(diary)


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"raises": "-1"}, "raises"), ({"attribute": "0"}, "attribute"), ({"skill": "x"}, "skill")],
)
def test_a_bad_request_is_refused_next_to_its_field(q10, extra, field):
    narrate(q10, q10.alice, q10.eryk)
    response = plain_client(q10.alice).post(ask_url(q10), ask_data(q10, **extra))
    assert response.status_code == 400
    assert f'id="id_{field}_error"' in response.content.decode()
    assert not RollAsk.objects.exists()


def test_a_player_asks_only_for_their_own_character(q10):
    narrate(q10, q10.alice, q10.eryk)
    response = plain_client(q10.alice).post(ask_url(q10), ask_data(q10, character=q10.runa))
    assert response.status_code == 400
    assert not RollAsk.objects.exists()
    assert plain_client(q10.gm).get(ask_url(q10)).status_code == 403
    assert plain_client(q10.outsider).get(ask_url(q10)).status_code in (403, 404)


def test_the_same_request_sent_twice_asks_once(q10):
    narrate(q10, q10.alice, q10.eryk)
    client = plain_client(q10.alice)
    client.post(ask_url(q10), ask_data(q10))
    again = client.post(ask_url(q10), ask_data(q10))
    assert again.status_code == 400
    assert RollAsk.objects.count() == 1


def _open_answer(q10, post):
    page = plain_client(q10.gm).get(post.get_absolute_url().split("#")[0])
    answer_url = next(view.answer_url for view in page.context["rolls"].open_asks)
    gm = plain_client(q10.gm)
    panel = gm.get(answer_url, follow=True)
    assert panel.status_code == 200
    return gm, panel


def test_the_gm_answers_in_one_click_and_the_roll_is_what_was_asked(q10):
    post = narrate(q10, q10.alice, q10.eryk)
    plain_client(q10.alice).post(ask_url(q10), ask_data(q10, sources=[f"trait:{q10.strong.pk}"]))
    ask = RollAsk.objects.get()
    gm, panel = _open_answer(q10, post)
    assert 'data-testid="answering"' in panel.content.decode()
    assert ask.summary in words(panel)
    data = panel.context["panel"].token_form.data.dict()
    data.update(
        {
            "sources": panel.context["panel"].token_form.data.getlist("sources"),
            "difficulty": "25",
            "circumstance_1": "10",
            "circumstance_reason_1": "ciemność",
        }
    )
    # The link prefilled what was asked.
    assert (data["raises"], data["skill"]) == ("1", str(q10.atletyka.pk))
    assert data["sources"] == [f"trait:{q10.strong.pk}"]
    url = reverse("rolls:panel", args=[q10.session.pk])
    data["plan"] = described_plan(gm, url, data)  # the line the page drew for these fields
    response = gm.post(url, data)
    assert response.status_code == 302, words(response)[:3000]
    roll = Roll.objects.get()
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, roll)
    assert roll.post.author == q10.gm and roll.post.pk > post.pk
    result = roll.record["result"]
    assert (result["x"], result["y"], result["difficulty"]) == (6, 2, 40)
    diary = plain_client(q10.alice).get(post.get_absolute_url())
    assert polish("by roll #%(seq)s", seq=roll.seq) in words(diary)
    assert "ciemność" in words(diary)


@pytest.mark.parametrize("changed", [{"raises": "0"}, {"skill": ""}, {"sources": []}])
def test_an_answer_rolling_something_else_needs_a_reason(q10, changed):
    post = narrate(q10, q10.alice, q10.eryk)
    plain_client(q10.alice).post(ask_url(q10), ask_data(q10, sources=[f"trait:{q10.strong.pk}"]))
    gm, panel = _open_answer(q10, post)
    data = panel.context["panel"].token_form.data.dict()
    data["sources"] = panel.context["panel"].token_form.data.getlist("sources")
    data.update(changed)
    url = reverse("rolls:panel", args=[q10.session.pk])
    response = gm.post(url, data)
    assert response.status_code == 400
    assert 'id="id_answer_note_error"' in response.content.decode()
    assert not Roll.objects.exists()
    assert RollAsk.objects.get().is_open
    # With the reason the GM's judgment stands: the request is answered differently and
    # the post shows what was asked, what was rolled and why.
    data["answer_note"] = "Bez rozpędu nie ma podbicia."
    response = gm.post(url, data | {"plan": described_plan(gm, url, data)})
    assert response.status_code == 302, words(response)[:3000]
    roll = Roll.objects.get()
    ask = RollAsk.objects.get()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED_DIFFERENTLY, roll)
    assert ask.note == "Bez rozpędu nie ma podbicia."
    answer = roll.record["answers"]
    assert (answer["ask"], answer["summary"]) == (ask.pk, ask.summary)
    assert answer["rolled"].startswith("Eryk: ") and answer["rolled"] != ask.summary
    assert answer["note"] == ask.note
    diary = plain_client(q10.alice).get(post.get_absolute_url())
    assert "Bez rozpędu nie ma podbicia." in words(diary)


def test_a_withdrawn_request_cannot_be_answered(q10):
    post = narrate(q10, q10.alice, q10.eryk)
    client = plain_client(q10.alice)
    client.post(ask_url(q10), ask_data(q10))
    ask = RollAsk.objects.get()
    gm, panel = _open_answer(q10, post)
    data = panel.context["panel"].token_form.data.dict()
    withdraw = reverse("rolls:ask_withdraw", args=[q10.session.pk, ask.pk])
    assert client.post(withdraw).status_code == 302
    ask.refresh_from_db()
    assert ask.status == AskStatus.WITHDRAWN
    response = gm.post(reverse("rolls:panel", args=[q10.session.pk]), data)
    assert response.status_code == 400
    assert not Roll.objects.exists()
