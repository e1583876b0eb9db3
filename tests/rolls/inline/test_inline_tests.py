"""A sheet test named in a narration (`[[test: Percepcja]]`, rolls.inline): the player's
request for that test of the narrating character's sheet, made as the request page makes it
(rolls.services.roll_ask_create), shown where the marker stood, then its answer."""

import uuid

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from diary import services as diary_services
from diary.models import Post
from diary.posts.rendering import post_body_html
from rolls import registry
from rolls.models import AskStatus, InlineRoll, RollAsk
from rolls.plugins import FormContext
from rolls.selectors import ask_answer_query, sheets_in_play
from rolls.services import roll_ask_decline, roll_make
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.conftest import polish
from tests.rolling import make_roll
from tests.rolls.systems.arsmagica.ars_table import build_saga
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table
from tests.rolls.systems.q10.q10_table import build_q10_table
from tests.rolls.test_panel import skill

pytestmark = pytest.mark.django_db


def narrate(t, text, *, by=None, character="borys"):
    return diary_services.post_create(
        session=t.session,
        author=by or t.bob,
        character=t.borys if character == "borys" else character,
        narration=text,
        nc_note="",
    )


def refusal(t, text, **kwargs) -> str:
    with pytest.raises(ValidationError) as refused:
        narrate(t, text, **kwargs)
    return " ".join(refused.value.message_dict["narration"])


def test_a_named_test_asks_the_gm_and_shows_it_waits(table):
    post = narrate(table, "Borys nasłuchuje. [[test: percepcja]]")
    ask = RollAsk.objects.get()
    assert (ask.post, ask.character, ask.test, ask.status) == (
        post,
        table.borys,
        "attribute",
        AskStatus.OPEN,
    )
    assert "Percepcja" in ask.summary
    assert post.narration == f"Borys nasłuchuje. [[test: percepcja #{ask.pk}]]"
    assert f"test: percepcja — {polish('waiting for the GM')}" in post.narration_html
    assert InlineRoll.objects.get().ask == ask


def test_a_named_skill_is_asked_for_with_the_sheet_level(table):
    narrate(table, "[[test: Otwieranie zamków]]")
    ask = RollAsk.objects.get()
    assert ask.test == "skill" and "Otwieranie zamków" in ask.summary


def test_the_answer_shows_where_the_marker_stood_and_the_cached_body_changes(table):
    post = narrate(table, "[[test: Otwieranie zamków]]")
    ask = RollAsk.objects.get()
    before = post_body_html(Post.objects.get(pk=post.pk), gm_id=table.gm.pk, can_see_content=True)
    request = RollRequest(
        kind="skill", a=SideRequest(table.borys.pk, "skill", skill_id=skill("Otwieranie zamków"))
    )
    made = make_roll(table.session, table.gm, request, answers=ask)
    stored = Post.objects.get(pk=post.pk)
    link = reverse("rolls:detail", args=[table.session.pk, made.roll.seq])
    assert f'href="{link}"' in stored.narration_html
    assert polish("waiting for the GM") not in stored.narration_html
    # The answer's outcome in the system's words, not the whole roll.
    assert f"{polish('quality')} " in stored.narration_html
    assert polish("Answers the request for a roll: %(summary)s", summary="") not in (
        stored.narration_html
    )
    after = post_body_html(stored, gm_id=table.gm.pk, can_see_content=True)
    assert after != before and link in after


def test_a_declined_test_says_so(table):
    post = narrate(table, "[[test: Percepcja]]")
    roll_ask_decline(ask=RollAsk.objects.get(), by=table.gm, reason="Nic tu nie słychać.")
    assert polish("declined by the GM") in Post.objects.get(pk=post.pk).narration_html


def test_an_unknown_name_is_refused_with_the_names_near_it(table):
    said = refusal(table, "[[test: Percepcje]]")
    assert (
        polish("No attribute or skill of that name; did you mean: %(names)s?", names="Percepcja")
        in said
    )
    assert not Post.objects.exists() and not RollAsk.objects.exists()


def test_the_gm_is_sent_to_the_roll_panel(table):
    said = refusal(table, "[[test: Percepcja]]", by=table.gm, character=None)
    assert polish("The GM rolls tests in the roll panel.") in said
    assert not RollAsk.objects.exists()


def test_a_test_needs_the_narrating_character(table):
    said = refusal(table, "[[test: Percepcja]]", by=table.bob, character=None)
    assert polish("A test is made by the narrating character: choose it.") in said
    assert not RollAsk.objects.exists()


# -- every system: a named skill is that system's request, the GM answers it as asked ------


@pytest.fixture
def ciernie(make_user):
    return build_ciernie_table(make_user)


@pytest.fixture
def saga(make_user):
    return build_saga(make_user)


def narrate_as(session, player, character, text):
    return diary_services.post_create(
        session=session, author=player, character=character, narration=text, nc_note=""
    )


def answer_as_asked(session, gm, ask, **gm_sets):
    """The GM's roll from the panel as the request prefills it (`gm_sets`: what the GM
    chooses beside it, the difficulty), through the answer service, with no note."""
    system = registry.system_for(session.system)
    sheets = list(sheets_in_play(session).values())
    data = ask_answer_query(ask)
    data.update(gm_sets)
    form = system.form(
        ask.test,
        data,
        FormContext(characters=sheets, all_characters=sheets, gm=True, session=session),
    )
    assert form.is_valid(), form.errors
    return roll_make(session=session, by=gm, case=form.case(), token=uuid.uuid4(), answers=ask)


def asked_and_answered(session, player, gm, character, name, **gm_sets) -> RollAsk:
    """`[[test: name]]` in the player's post: one open request of the narrating character
    in that post, waiting in the text; the GM's answer then shows in its place."""
    post = narrate_as(session, player, character, f"Próbuje. [[test: {name}]]")
    ask = RollAsk.objects.get()
    assert (ask.post, ask.character, ask.asked_by, ask.status) == (
        post,
        character,
        player,
        AskStatus.OPEN,
    )
    assert post.narration == f"Próbuje. [[test: {name} #{ask.pk}]]"
    assert f"test: {name} — {polish('waiting for the GM')}" in post.narration_html
    assert InlineRoll.objects.get().ask == ask
    made = answer_as_asked(session, gm, ask, **gm_sets)
    ask.refresh_from_db()
    assert ask.status == AskStatus.ANSWERED and ask.answer == made.roll
    shown = Post.objects.get(pk=post.pk).narration_html
    assert f'href="{reverse("rolls:detail", args=[session.pk, made.roll.seq])}"' in shown
    assert polish("waiting for the GM") not in shown
    return ask


def test_q10_a_named_skill_asks_for_its_pool_with_the_skills_attribute(q10):
    ask = asked_and_answered(q10.session, q10.alice, q10.gm, q10.eryk, "Atletyka", difficulty="15")
    assert ask.test == "pool"
    assert (ask.case_fields["attribute"], ask.case_fields["skill"]) == (
        str(q10.sila.pk),
        str(q10.atletyka.pk),
    )
    assert "Siła + Atletyka" in ask.summary


def test_ciernie_a_named_skill_asks_for_its_skill_test(ciernie):
    ask = asked_and_answered(
        ciernie.session, ciernie.alice, ciernie.gm, ciernie.vera, "Otwieranie zamków"
    )
    assert (ask.test, ask.case_fields["skill"]) == (
        "skill",
        str(ciernie.s["Otwieranie zamków"].pk),
    )
    assert "Zręczność + Otwieranie zamków" in ask.summary


def test_arsmagica_a_named_ability_asks_for_the_simple_die_with_its_characteristic(saga):
    ask = asked_and_answered(
        saga.session, saga.player, saga.gm, saga.flambeau, "Skradanie", ease="9"
    )
    assert ask.test == "simple"
    assert (ask.case_fields["characteristic"], ask.case_fields["ability"]) == (
        str(saga.dex.pk),
        str(saga.stealth.pk),
    )
    assert "Zręczność + Skradanie" in ask.summary


@pytest.mark.parametrize(
    ("build", "player", "character", "name", "mode"),
    [
        (build_q10_table, "alice", "eryk", "Zręczność", "pool"),
        (build_ciernie_table, "alice", "vera", "Percepcja", "attribute"),
        (build_saga, "player", "flambeau", "Zręczność", "simple"),
    ],
)
def test_a_named_attribute_asks_for_its_attribute_test(
    make_user, build, player, character, name, mode
):
    t = build(make_user)
    character = getattr(t, character)
    narrate_as(t.session, getattr(t, player), character, f"[[test: {name}]]")
    ask = RollAsk.objects.get()
    assert (ask.test, ask.character) == (mode, character)
    # The attribute alone: no skill, no ability.
    assert name in ask.summary and "+" not in ask.summary


def test_a_second_test_while_the_first_waits_says_so_next_to_the_narration(table):
    post = narrate(table, "Borys nasłuchuje. [[test: percepcja]]")
    with pytest.raises(ValidationError) as refused:
        diary_services.post_edit(
            post=post,
            by=table.bob,
            character=table.borys,
            narration=f"{post.narration} [[test: Otwieranie zamków]]",
            nc_note="",
        )
    said = " ".join(refused.value.message_dict["narration"])
    assert (
        polish(
            "%(name)s already has an open request in this post: wait for the GM's answer, or "
            "withdraw it first.",
            name="Borys",
        )
        in said
    )
    assert RollAsk.objects.count() == 1 and InlineRoll.objects.count() == 1
