"""The GM's answer to a request keeps its request through every redraw of the panel (a tab,
a mode, another character or attribute) until the GM leaves it with "Do not answer"; a source
that no longer applies is unticked and said; the line above the Roll button says what the
click rolls, and the roll is made only if it is still that roll (rolls.roll_plan)."""

import html
import re

import pytest
from django.http import QueryDict
from django.test import Client
from django.urls import reverse

from characters.models import Attribute, Skill, Trait
from diary.services import post_create
from rolls.models import AskStatus, Roll, RollAsk
from rolls.selectors import ask_answer_query
from tests.conftest import polish
from tests.rolls.systems.arsmagica.ars_table import build_saga
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table
from tests.rolls.systems.q10.q10_table import build_q10_table

pytestmark = pytest.mark.django_db


def attr(name, system="forum1000"):
    return Attribute.objects.get(system=system, name=name).pk


def words(text: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", text))).strip()


def panel_url(session):
    return reverse("rolls:panel", args=[session.pk])


def narrate(session, user, character):
    return post_create(
        session=session, author=user, character=character, narration="Rozglądam się.", nc_note=""
    )


def ask_for(session, user, data) -> RollAsk:
    """The player's request as the request page sends it."""
    client = Client()
    client.force_login(user)
    response = client.post(reverse("rolls:ask", args=[session.pk]), data)
    assert response.status_code == 302, words(response.content.decode())[-600:]
    return RollAsk.objects.latest("id")


def answer_fields(ask, **changes) -> dict:
    """The fields of the panel the GM's "Answer with a roll" opens (a complete panel of the
    request's mode, prefilled from the request), then changed."""
    client = Client()
    client.force_login(ask.session.gm)
    response = client.get(f"{panel_url(ask.session)}?{ask_answer_query(ask).urlencode()}")
    assert response.status_code == 302
    query = QueryDict(response.url.split("?", 1)[1])
    fields = {key: query.getlist(key) for key in query if key != "sig"}
    fields = {key: values if len(values) != 1 else values[0] for key, values in fields.items()}
    fields.update(changes)
    return fields


def redraw(client, session, fields, target="panel") -> str:
    """The panel's htmx redraw with these fields (a structural field's change, a tab)."""
    response = client.get(panel_url(session), fields, HTTP_HX_REQUEST="true", HTTP_HX_TARGET=target)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


def checked(page: str, name: str, value: str) -> bool:
    tag = re.search(
        rf'<input[^>]*name="{re.escape(name)}"[^>]*value="{re.escape(value)}"[^>]*>', page
    )
    assert tag, f"no box {name}={value}"
    return " checked" in tag.group(0)


def plan_line(page: str) -> str:
    found = re.search(r'<p class="roll-plan"[^>]*>(.*?)</p>', page, re.S)
    assert found, "no line above the Roll button"
    return words(found.group(1))


def plan_digest(page: str) -> str:
    return re.search(r'name="plan" value="([^"]*)"', page).group(1)


@pytest.fixture
def percepcja_request(table):
    """Lirael's request: Percepcja with Dobry Wzrok +50 (an ability of Percepcja)."""
    good_eye = Trait.objects.get(system="forum1000", name="Dobry Wzrok")
    table.lirael.traits.add(good_eye)
    narrate(table.session, table.alice, table.lirael)
    ask = ask_for(
        table.session,
        table.alice,
        {
            "mode": "attribute",
            "a-character": table.lirael.pk,
            "a-attribute": attr("Percepcja"),
            "a-sources": [f"trait:{good_eye.pk}"],
        },
    )
    return ask, f"trait:{good_eye.pk}"


# -- 1. the request is part of the panel's state ----------------------------------------


def test_a_tab_keeps_the_request_being_answered_and_what_was_typed(
    table, client_for, percepcja_request
):
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    fields = answer_fields(ask, answer_note="Na nasłuch, nie na wzrok.")
    page = redraw(gm, table.session, {**fields, "mode": "skill"})
    assert re.search(rf'<a [^>]*class="tab current"[^>]*>{polish("Skills")}</a>', page)
    assert 'data-testid="answering"' in page
    assert f'name="ask" value="{ask.pk}"' in page
    assert "Na nasłuch, nie na wzrok." in page
    # The skill mode starts from a complete test, as a fresh panel of it would; the reason
    # typed answers why it differs from the request.
    assert 'data-testid="preview-problems"' not in page
    assert polish("The button rolls:") in plan_line(page)
    # Without JavaScript the tab is a link that keeps the request.
    assert re.search(rf'href="\?mode=skill&amp;ask={ask.pk}"', page)


def test_a_tab_link_without_javascript_keeps_the_request(table, client_for, percepcja_request):
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    response = gm.get(f"{panel_url(table.session)}?mode=skill&ask={ask.pk}", follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert 'data-testid="answering"' in page and f'name="ask" value="{ask.pk}"' in page


def test_fields_a_mode_lacks_come_back_with_it(table, client_for, percepcja_request):
    """The other side of an opposed roll, chosen and left for a single test, returns."""
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    fields = answer_fields(ask, mode="opposed")
    fields |= {"b-character": table.borys.pk, "b-test": "attribute", "b-attribute": attr("Siła")}
    fields |= {"b-action_reason": "Borys stoi pod wiatr"}
    single = redraw(gm, table.session, {**fields, "mode": "attribute"})
    assert 'name="b-action_reason" value="Borys stoi pod wiatr"' in single
    kept = dict(re.findall(r'<input type="hidden" name="(b-[a-z_]+)" value="([^"]*)"', single))
    back = redraw(gm, table.session, {**answer_fields(ask), **kept, "mode": "opposed"})
    assert re.search(
        r'id="id_b-action_reason"[^>]*value="Borys stoi pod wiatr"', back
    ) or re.search(r'value="Borys stoi pod wiatr"[^>]*id="id_b-action_reason"', back)
    assert re.search(
        rf'<option value="{attr("Siła")}" selected>', back.split('name="b-attribute"')[1]
    )


def test_the_gm_leaves_the_request_only_by_saying_so(table, client_for, percepcja_request):
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    page = redraw(gm, table.session, answer_fields(ask, answer_note="x"))
    assert polish("Do not answer this request") in page
    left = redraw(gm, table.session, {**answer_fields(ask, answer_note="x"), "leave_ask": "1"})
    assert 'data-testid="answering"' not in left
    assert 'name="ask" value=""' in left or 'name="ask" id=' in left
    assert "answer_note" not in left
    # The roll made then answers nothing; the request stays open.
    fields = {k: v for k, v in answer_fields(ask).items() if k != "ask"}
    assert gm.post(panel_url(table.session), fields).status_code == 302
    ask.refresh_from_db()
    assert ask.status == AskStatus.OPEN
    assert "answers" not in Roll.objects.get().record


def test_leaving_without_javascript_redirects_to_the_panel_without_the_request(
    table, client_for, percepcja_request
):
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    response = gm.post(
        panel_url(table.session), {**answer_fields(ask), "leave_ask": "1"}, follow=True
    )
    page = response.content.decode()
    assert response.status_code == 200 and 'data-testid="answering"' not in page
    assert not Roll.objects.exists()


def test_a_request_closed_meanwhile_stays_shown_and_refuses_the_roll(
    table, client_for, percepcja_request
):
    ask, _source = percepcja_request
    RollAsk.objects.filter(pk=ask.pk).update(status=AskStatus.WITHDRAWN)
    gm = client_for(table.gm)
    page = redraw(gm, table.session, answer_fields(ask))
    assert 'data-testid="answering-closed"' in page
    assert plan_line(page) == polish("The button rolls nothing yet: see above what is missing.")
    response = gm.post(panel_url(table.session), answer_fields(ask))
    assert response.status_code in (400, 409)
    assert not Roll.objects.exists()


def test_a_request_of_another_session_is_said_and_can_be_left(
    table, client_for, make_user, make_character, make_session
):
    """A link naming a request that is not this session's (the GM's other session, an address
    edited): the panel answers nothing, says so, and offers to leave it, as for a request
    closed meanwhile; it never refuses every roll with no request shown to leave."""
    zofia = make_user("zofia")
    zed = make_character(zofia, "Zed")
    other = make_session(table.gm, [zed])
    narrate(other, zofia, zed)
    elsewhere = ask_for(
        other, zofia, {"mode": "attribute", "a-character": zed.pk, "a-attribute": attr("Siła")}
    )
    gm = client_for(table.gm)
    response = gm.get(f"{panel_url(table.session)}?mode=attribute&ask={elsewhere.pk}", follow=True)
    page = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="answering-closed"' in page and 'data-testid="leave-answer"' in page
    assert "Zed" not in words(page.split('id="panel"')[1])  # nothing of the other session
    fields = {
        "token": "00000000-0000-4000-8000-000000000005",
        "mode": "attribute",
        "ask": str(elsewhere.pk),
        "a-character": table.borys.pk,
        "a-attribute": attr("Siła"),
    }
    left = redraw(gm, table.session, {**fields, "leave_ask": "1"})
    assert 'data-testid="answering' not in left
    assert polish("The button rolls:") in plan_line(left)


# -- 2. a source that no longer applies -------------------------------------------------


def test_another_attribute_unticks_the_requests_source_and_names_it(
    table, client_for, percepcja_request
):
    ask, source = percepcja_request
    gm = client_for(table.gm)
    page = redraw(gm, table.session, answer_fields(ask, **{"a-attribute": attr("Zręczność")}))
    assert not checked(page, "a-sources", source)
    unticked = words(re.search(r'data-testid="unticked">(.*?)</div>', page, re.S).group(1))
    assert "Dobry Wzrok" in unticked and "Zręczność" in unticked
    # The preview blames no box: it asks for the reason the answer differs.
    preview = words(page.split('data-testid="preview"')[1].split(polish("Show the chance"))[0])
    assert "Dobry Wzrok" not in preview
    assert polish("Why the roll differs from the request") in preview
    # With the reason, the line says what the click rolls: not what was asked.
    fields = answer_fields(ask, **{"a-attribute": attr("Zręczność")}, answer_note="Skok, nie wzrok")
    del fields["a-sources"]
    shown = redraw(gm, table.session, fields, target="preview")
    line = plan_line(shown)
    assert "Lirael" in line and "Zręczność" in line and "Dobry Wzrok" not in line
    assert f"#{ask.post_id}" in line
    response = gm.post(panel_url(table.session), fields)
    assert response.status_code == 302
    ask.refresh_from_db()
    assert ask.status == AskStatus.ANSWERED_DIFFERENTLY


def test_a_roll_post_refuses_a_source_of_another_attribute_instead(
    table, client_for, percepcja_request
):
    """Only a redraw unticks: a roll sent with such a source is refused next to its field."""
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    fields = answer_fields(ask, **{"a-attribute": attr("Zręczność")}, answer_note="powód")
    response = gm.post(panel_url(table.session), fields)
    assert response.status_code == 400
    assert 'id="id_a-sources_error"' in response.content.decode()
    assert not Roll.objects.exists()


def _q10_request(make_user):
    t = build_q10_table(make_user)
    narrate(t.session, t.alice, t.eryk)
    data = {"mode": "pool", "character": t.eryk.pk, "attribute": t.sila.pk, "skill": ""}
    ask = ask_for(t.session, t.alice, data | {"sources": [f"trait:{t.strong.pk}"], "raises": "0"})
    return t, ask, "sources", f"trait:{t.strong.pk}", {"attribute": t.zrecznosc.pk}


def _ciernie_request(make_user):
    t = build_ciernie_table(make_user)
    narrate(t.session, t.alice, t.vera)
    sharp = Trait.objects.get(system="ciernie", name="Sokoli wzrok")
    percepcja, sila = attr("Percepcja", "ciernie"), attr("Siła", "ciernie")
    ask = ask_for(
        t.session,
        t.alice,
        {
            "mode": "attribute",
            "character": t.vera.pk,
            "attribute": percepcja,
            "sources": [f"trait:{sharp.pk}"],
        },
    )
    return t, ask, "sources", f"trait:{sharp.pk}", {"attribute": sila}


def _ars_request(make_user):
    t = build_saga(make_user)
    narrate(t.session, t.player, t.flambeau)
    ask = ask_for(
        t.session,
        t.player,
        {
            "mode": "simple",
            "character": t.flambeau.pk,
            "characteristic": t.dex.pk,
            "ability": t.stealth.pk,
            "sources": [f"trait:{t.quick.pk}"],
        },
    )
    return t, ask, "sources", f"trait:{t.quick.pk}", {"characteristic": t.int.pk}


@pytest.mark.parametrize("build", [_q10_request, _ciernie_request, _ars_request])
def test_every_system_unticks_a_source_its_new_attribute_does_not_use(make_user, client_for, build):
    t, ask, name, source, change = build(make_user)
    gm = client_for(t.gm)
    page = redraw(gm, t.session, answer_fields(ask, **change))
    assert not checked(page, name, source)
    assert 'data-testid="unticked"' in page
    preview = words(page.split('data-testid="preview"')[1].split(polish("Show the chance"))[0])
    assert polish("Why the roll differs from the request") in preview
    # The source's own refusal is never among the problems.
    assert not re.search(r"(changes the pool|is tied to|dotyczy|zmienia pulę)", preview)


# -- 3. the line above the button, and the roll made only if it is still that roll -----


def test_the_line_says_who_rolls_what_answering_which_request_into_which_post(
    table, client_for, percepcja_request
):
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    line = plan_line(redraw(gm, table.session, answer_fields(ask), target="preview"))
    turn = table.session.current_turn.number
    assert line.startswith(polish("The button rolls:"))
    for part in ("Lirael", "Percepcja", "Dobry Wzrok", f"#{ask.post_id}", str(turn)):
        assert part in line, (part, line)
    assert polish("a new post at the end of the diary (turn %(turn)s)", turn=turn) in line


def test_a_stale_line_is_refused_with_the_new_one_and_nothing_is_stored(
    table, client_for, percepcja_request
):
    ask, _source = percepcja_request
    gm = client_for(table.gm)
    fields = answer_fields(ask)
    described = plan_digest(redraw(gm, table.session, fields, target="preview"))
    # The GM picks Zręczność after the line was drawn and clicks before it is drawn again.
    changed = answer_fields(ask, **{"a-attribute": attr("Zręczność")}, answer_note="inaczej")
    del changed["a-sources"]
    response = gm.post(panel_url(table.session), {**changed, "plan": described})
    assert response.status_code == 409
    text = words(response.content.decode())
    assert "Zręczność" in text.split(polish("Roll panel"))[-1]
    assert not Roll.objects.exists()
    ask.refresh_from_db()
    assert ask.status == AskStatus.OPEN
    # The page now carries the new line's digest: the same click rolls.
    again = gm.post(
        panel_url(table.session), {**changed, "plan": plan_digest(response.content.decode())}
    )
    assert again.status_code == 302
    assert Roll.objects.get().record["answers"]["ask"] == ask.pk


def test_a_post_written_after_the_line_changes_where_the_roll_lands(table, client_for):
    """The GM's roll goes into the GM's own newest post; a player posts before the click:
    the roll would go to a new post now, so it is refused, not put elsewhere."""
    gm = client_for(table.gm)
    post_create(
        session=table.session, author=table.gm, character=None, narration="Brama.", nc_note=""
    )
    fields = {
        "token": "00000000-0000-4000-8000-000000000002",
        "mode": "attribute",
        "a-character": table.borys.pk,
        "a-attribute": attr("Siła"),
    }
    shown = redraw(gm, table.session, fields, target="preview")
    assert polish(
        "into your post #%(post)s (turn %(turn)s)", post=table.session.posts.latest("id").pk, turn=1
    ) in plan_line(shown)
    narrate(table.session, table.alice, table.lirael)
    response = gm.post(panel_url(table.session), {**fields, "plan": plan_digest(shown)})
    assert response.status_code == 409
    assert not Roll.objects.exists()


def test_a_roll_with_no_line_read_is_refused(table, client_for):
    gm = client_for(table.gm)
    fields = {
        "token": "00000000-0000-4000-8000-000000000003",
        "mode": "attribute",
        "a-character": table.borys.pk,
        "a-attribute": attr("Siła"),
        "plan": "",
    }
    response = gm.post(panel_url(table.session), fields)
    assert response.status_code == 409
    assert not Roll.objects.exists()


def test_a_players_line_names_their_own_post(table, client_for):
    table.session.roll_policy = "players_own"
    table.session.save()
    post = narrate(table.session, table.alice, table.lirael)
    alice = client_for(table.alice)
    fields = {
        "token": "00000000-0000-4000-8000-000000000004",
        "mode": "skill",
        "a-character": table.lirael.pk,
        "a-skill": Skill.objects.get(system="forum1000", name="Uwodzenie").pk,
    }
    line = plan_line(redraw(alice, table.session, fields, target="preview"))
    assert polish("into your post #%(post)s (turn %(turn)s)", post=post.pk, turn=1) in line
    assert alice.post(panel_url(table.session), fields).status_code == 302
    assert Roll.objects.get().post == post
