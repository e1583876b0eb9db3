"""Players' requests for a roll in every system, in Chromium, and the GM's two other answers.

A player asks on the request page of each system — forum1000, Q10, Ciernie i Gwiazdy (a
skill test, under its tab) and Ars Magica (a stress roll, and the simple die after the
tabs were switched): the request is stored and waits in the post, and no page of the way
answers 400. The GM answers a request by judgment — rolls something other than asked,
saying why in the answer's note — and the post shows the request answered differently,
with the note, beside the roll that says what was asked and what was rolled. The GM
declines a request with a reason, and the player reads it declined, with the reason.
"""

import re

import pytest
from playwright.sync_api import expect

from characters.models import Attribute
from rolls.models import AskStatus, Roll, RollAsk
from tests.browser.conftest import log_in, roll_button, settle_panel, wait_until_quiet
from tests.browser.test_roll_panel import COUNT_REDRAWS, choose, first_redraw, skill_id, tick
from tests.conftest import PASSWORD, polish
from tests.rolls.systems.arsmagica.ars_table import build_saga
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ciernie(make_user):
    return build_ciernie_table(make_user)


@pytest.fixture
def saga(make_user):
    return build_saga(make_user)


def watch_bad_requests(page) -> list[str]:
    """Every answer of 400 (or worse) the page gets, by its address."""
    bad: list[str] = []
    page.on("response", lambda r: bad.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    return bad


def ask_page(page, session, user, narration: str) -> list[str]:
    """The player posts in the diary, then opens the request page (its 400s are watched)."""
    page.add_init_script(COUNT_REDRAWS)
    bad = watch_bad_requests(page)
    log_in(page, user.username, PASSWORD)
    page.goto(f"/sessions/{session.pk}/")
    page.get_by_label(polish("Narration")).fill(narration)
    page.get_by_role("button", name=polish("Publish")).click()
    expect(page.locator("article.post", has_text=narration)).to_have_count(1)
    page.get_by_role("link", name=polish("Ask the GM for a roll")).click()
    page.wait_for_url(re.compile(r"/rolls/ask/"))
    expect(page.locator("#ask")).to_be_visible()
    return bad


def ask_tab(page, label: str, mode: str) -> None:
    """A kind of test by its tab, named as the page names it."""
    page.locator("#ask nav.tabs").get_by_role("link", name=label, exact=True).click()
    page.wait_for_url(f"**/rolls/ask/?mode={mode}")
    expect(page.locator(f'#ask input[name="mode"][value="{mode}"]')).to_have_count(1)
    expect(page.locator("#ask a.tab.current")).to_have_text(label)


def send_the_request(page, bad: list[str], *, shows: str) -> RollAsk:
    """Send; the request waits in the player's post, in words, and nothing answered 400."""
    before = RollAsk.objects.count()
    page.get_by_role("button", name=polish("Send the request")).click()
    page.wait_for_url(re.compile(r"#ask-\d+$"))
    ask = RollAsk.objects.latest("pk")
    assert RollAsk.objects.count() == before + 1
    assert ask.status == AskStatus.OPEN
    request = page.locator(f"#ask-{ask.pk}")
    expect(request).to_contain_text(shows)
    expect(request.locator(".status")).to_have_text(polish("waiting for the GM"))
    assert bad == [], bad
    return ask


def gm_answers(page, t, ask: RollAsk) -> None:
    """The GM opens the panel from the diary's list of waiting requests."""
    page.add_init_script(COUNT_REDRAWS)
    log_in(page, t.gm.username, PASSWORD)
    page.goto(f"/sessions/{t.session.pk}/")
    open_asks = page.get_by_test_id("open-asks")
    expect(open_asks).to_contain_text(ask.summary)
    open_asks.locator("li", has_text=ask.summary).get_by_role(
        "link", name=polish("Answer with a roll")
    ).click()
    first_redraw(page)
    expect(page.get_by_test_id("answering")).to_contain_text(ask.summary)


def roll_by_judgment(page, ask: RollAsk, note: str) -> Roll:
    """Roll what the panel now says, with the note; the roll lands after the request."""
    page.locator('[name="answer_note"]').fill(note)
    settle_panel(page)
    roll_button(page).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    ask.refresh_from_db()
    assert ask.status == AskStatus.ANSWERED_DIFFERENTLY
    assert ask.note == note
    roll = ask.answer
    assert roll.record["answers"]["note"] == note
    return roll


def the_post_shows_it_answered_differently(page, ask: RollAsk, roll: Roll, note: str) -> None:
    request = page.locator(f"#ask-{ask.pk}")
    expect(request.locator(".status")).to_have_text(polish("answered differently"))
    expect(request.get_by_test_id("ask-note")).to_contain_text(note)
    expect(request).to_contain_text(polish("by roll #%(seq)s", seq=roll.seq))
    answer = page.locator(f"#roll-{roll.seq}").get_by_test_id("roll-answers")
    expect(answer).to_contain_text(ask.summary)
    expect(answer).to_contain_text(roll.record["answers"]["rolled"])
    expect(answer).to_contain_text(note)


# -- a request in every system ------------------------------------------------------------


def test_forum1000_a_request_for_an_attribute_and_one_for_a_skill(player_page, table):
    page = player_page
    bad = ask_page(page, table.session, table.alice, "Lirael nasłuchuje pod drzwiami.")
    choose(page, "a-attribute", label="Percepcja")
    send_the_request(page, bad, shows="Lirael: Percepcja")

    page.get_by_label(polish("Narration")).fill("Lirael próbuje wdzięku na strażniku.")
    page.get_by_role("button", name=polish("Publish")).click()
    page.get_by_role("link", name=polish("Ask the GM for a roll")).click()
    ask_tab(page, polish("skill"), "skill")
    choose(page, "a-skill", value=skill_id("Uwodzenie"))
    send_the_request(page, bad, shows="Uwodzenie")
    assert RollAsk.objects.filter(status=AskStatus.OPEN).count() == 2


def test_q10_a_request_for_a_pool(player_page, q10):
    page = player_page
    bad = ask_page(page, q10.session, q10.alice, "Eryk wspina się po linie.")
    choose(page, "skill", value=str(q10.atletyka.pk))
    send_the_request(page, bad, shows="Eryk: Siła + Atletyka (5z2)")


def test_ciernie_a_request_for_a_skill_test(player_page, ciernie):
    page = player_page
    bad = ask_page(page, ciernie.session, ciernie.alice, "Vera majstruje przy zamku śluzy.")
    ask_tab(page, "Test umiejętności", "skill")
    choose(page, "skill", value=str(ciernie.s["Otwieranie zamków"].pk))
    ask = send_the_request(page, bad, shows="Otwieranie zamków")
    assert (ask.test, ask.case_fields["skill"]) == ("skill", str(ciernie.s["Otwieranie zamków"].pk))


def test_arsmagica_a_request_for_a_stress_roll(player_page, saga):
    page = player_page
    bad = ask_page(page, saga.session, saga.player, "Flambeau skrada się korytarzem.")
    ask_tab(page, polish("Stress die"), "stress")
    choose(page, "characteristic", value=str(saga.dex.pk))
    choose(page, "ability", value=str(saga.stealth.pk))
    tick(page, "sources", f"trait:{saga.quick.pk}")
    ask = send_the_request(page, bad, shows="Skradanie")
    assert ask.test == "stress"
    assert ask.case_fields["sources"] == [f"trait:{saga.quick.pk}"]


def test_arsmagica_a_request_for_the_simple_die_after_switching_tabs(player_page, saga):
    page = player_page
    bad = ask_page(page, saga.session, saga.player, "Flambeau czyta stary list.")
    ask_tab(page, polish("Stress die"), "stress")
    choose(page, "characteristic", value=str(saga.int.pk))
    ask_tab(page, polish("Simple die"), "simple")
    choose(page, "characteristic", value=str(saga.int.pk))
    choose(page, "ability", value=str(saga.latin.pk))
    ask = send_the_request(page, bad, shows="Łacina")
    assert ask.test == "simple"


# -- the GM answers by judgment -------------------------------------------------------------


def test_forum1000_the_gm_rolls_another_attribute_and_says_why(page, player_page, table):
    bad = ask_page(player_page, table.session, table.alice, "Lirael nasłuchuje pod drzwiami.")
    choose(player_page, "a-attribute", label="Percepcja")
    ask = send_the_request(player_page, bad, shows="Lirael: Percepcja")

    gm_answers(page, table, ask)
    expect(page.locator('[name="a-attribute"]')).to_have_value(
        str(Attribute.objects.get(system="forum1000", name="Percepcja").pk)
    )
    choose(page, "a-attribute", label="Siła Woli")
    # Another roll than asked, without a note: refused next to the note, nothing rolled.
    roll_button(page).click()
    page.wait_for_load_state()
    expect(page.locator("#id_answer_note_error")).to_be_visible()
    assert not Roll.objects.exists()
    first_redraw(page)
    note = "Za drzwiami gra muzyka: liczy się opanowanie, nie słuch"
    roll = roll_by_judgment(page, ask, note)
    assert roll.record["result"]["input"]["attribute"]["name"] == "Siła Woli"
    the_post_shows_it_answered_differently(page, ask, roll, note)

    player_page.reload()
    the_post_shows_it_answered_differently(player_page, ask, roll, note)


def test_q10_the_gm_rolls_another_skill_and_says_why(page, player_page, q10):
    bad = ask_page(player_page, q10.session, q10.alice, "Eryk wspina się po linie.")
    choose(player_page, "skill", value=str(q10.atletyka.pk))
    ask = send_the_request(player_page, bad, shows="Atletyka")

    gm_answers(page, q10, ask)
    expect(page.locator('[name="skill"]')).to_have_value(str(q10.atletyka.pk))
    choose(page, "skill", value=str(q10.walka.pk))
    note = "Lina się urwała: Eryk łapie się skały, to siła chwytu"
    roll = roll_by_judgment(page, ask, note)
    assert "Walka wręcz" in roll.record["answers"]["rolled"]
    the_post_shows_it_answered_differently(page, ask, roll, note)


def test_ciernie_the_gm_rolls_another_skill_and_says_why(page, player_page, ciernie):
    bad = ask_page(player_page, ciernie.session, ciernie.alice, "Vera majstruje przy śluzie.")
    ask_tab(player_page, "Test umiejętności", "skill")
    choose(player_page, "skill", value=str(ciernie.s["Otwieranie zamków"].pk))
    ask = send_the_request(player_page, bad, shows="Otwieranie zamków")

    gm_answers(page, ciernie, ask)
    expect(page.locator('[name="skill"]')).to_have_value(str(ciernie.s["Otwieranie zamków"].pk))
    choose(page, "skill", value=str(ciernie.s["Pilotaż"].pk))
    note = "Śluza otwiera się z kokpitu: to pilotaż, nie wytrych"
    roll = roll_by_judgment(page, ask, note)
    the_post_shows_it_answered_differently(page, ask, roll, note)
    player_page.reload()
    the_post_shows_it_answered_differently(player_page, ask, roll, note)


def test_arsmagica_the_gm_rolls_another_ability_and_says_why(page, player_page, saga):
    bad = ask_page(player_page, saga.session, saga.player, "Flambeau skrada się korytarzem.")
    choose(player_page, "characteristic", value=str(saga.dex.pk))
    choose(player_page, "ability", value=str(saga.stealth.pk))
    ask = send_the_request(player_page, bad, shows="Skradanie")
    assert ask.test == "simple"

    gm_answers(page, saga, ask)
    expect(page.locator('[name="ability"]')).to_have_value(str(saga.stealth.pk))
    choose(page, "ability", value=str(saga.brawl.pk))
    note = "Strażnik go zauważył: to już bijatyka"
    roll = roll_by_judgment(page, ask, note)
    assert "Bijatyka" in roll.record["answers"]["rolled"]
    assert roll.record["result"]["input"]["ability"] == 0  # not on Flambeau's sheet
    the_post_shows_it_answered_differently(page, ask, roll, note)


# -- the GM declines ----------------------------------------------------------------------


def decline(page, t, ask: RollAsk, reason: str) -> None:
    """From the request in the player's post: the decline link, the reason, the button."""
    log_in(page, t.gm.username, PASSWORD)
    page.goto(ask.post.get_absolute_url(anchor=f"ask-{ask.pk}"))
    page.locator(f"#ask-{ask.pk}").get_by_test_id("decline-ask-link").click()
    page.wait_for_url(re.compile(rf"/rolls/asks/{ask.pk}/decline/$"))
    expect(page.get_by_test_id("declined-ask")).to_contain_text(ask.summary)
    # Without a reason: refused, the request still waits.
    page.get_by_test_id("decline-ask").click()
    expect(page.locator("#id_reason_error")).to_have_text(
        polish("Say why you decline the request: the player reads it.")
    )
    ask.refresh_from_db()
    assert ask.status == AskStatus.OPEN
    page.locator('[name="reason"]').fill(reason)
    page.get_by_test_id("decline-ask").click()
    page.wait_for_url(re.compile(rf"#ask-{ask.pk}$"))
    ask.refresh_from_db()
    assert (ask.status, ask.note, ask.answer) == (AskStatus.DECLINED, reason, None)


def the_player_reads_it_declined(page, ask: RollAsk, reason: str) -> None:
    page.reload()
    request = page.locator(f"#ask-{ask.pk}")
    expect(request.locator(".status")).to_have_text(polish("declined"))
    expect(request.get_by_test_id("ask-note")).to_contain_text(reason)
    expect(request.get_by_role("button", name=polish("Withdraw the request"))).to_have_count(0)


def test_forum1000_the_gm_declines_and_the_player_reads_why(page, player_page, table):
    bad = ask_page(player_page, table.session, table.alice, "Lirael chce przeskoczyć rzekę.")
    choose(player_page, "a-attribute", label="Zręczność")
    ask = send_the_request(player_page, bad, shows="Lirael: Zręczność")
    reason = "Rzeka ma tu trzydzieści metrów: nie da się jej przeskoczyć"
    decline(page, table, ask, reason)
    expect(page.get_by_test_id("open-asks")).to_contain_text(polish("No request is waiting."))
    the_player_reads_it_declined(player_page, ask, reason)
    assert not Roll.objects.exists()


def test_arsmagica_the_gm_declines_and_the_player_reads_why(page, player_page, saga):
    bad = ask_page(player_page, saga.session, saga.player, "Flambeau czyta stary list.")
    ask_tab(player_page, polish("Stress die"), "stress")
    choose(player_page, "characteristic", value=str(saga.int.pk))
    choose(player_page, "ability", value=str(saga.latin.pk))
    ask = send_the_request(player_page, bad, shows="Łacina")
    reason = "List jest po grecku; Łacina tu nie pomoże"
    decline(page, saga, ask, reason)
    the_player_reads_it_declined(player_page, ask, reason)
    assert not Roll.objects.exists()


def test_q10_a_request_proposes_a_circumstance_and_the_gm_keeps_it(page, player_page, q10):
    """Seed 001: the player too may bring circumstances about. The request proposes one of
    the seed's examples (its value comes with it) and a raise with what it is for; the GM's
    panel shows them, the GM keeps them and the roll is the request answered as asked."""
    bad = ask_page(player_page, q10.session, q10.alice, "Eryk atakuje strażnika od tyłu.")
    choose(player_page, "skill", value=str(q10.walka.pk))
    reason = player_page.locator('[name="circumstance_reason_1"]')
    expect(reason).to_have_attribute("list", "q10-circumstance-examples")
    reason.fill("Postać atakuje nieświadomy cel z zaskoczenia, od tyłu")
    reason.blur()
    wait_until_quiet(player_page)
    # The raise's change redraws the request form while the player is already typing what
    # it is for, at a person's speed: the typed field stays the same element, every key kept.
    player_page.locator('[name="raises"]').fill("1")
    purposes = player_page.locator('[name="raise_purposes"]')
    expect(purposes).to_have_attribute("hx-preserve", "true")
    purposes.evaluate("el => { window.__typedInto = el; }")
    purposes.click()
    player_page.keyboard.type("cios w kark", delay=60)
    purposes.blur()
    wait_until_quiet(player_page)
    expect(purposes).to_have_value("cios w kark")
    assert purposes.evaluate("el => el === window.__typedInto"), "the field was replaced"
    ask = send_the_request(
        player_page, bad, shows="okoliczności: −10 (Postać atakuje nieświadomy cel"
    )
    assert ask.case_fields["circumstance_1"] == "-10", ask.case_fields
    assert ask.case_fields.get("raise_purposes") == "cios w kark", ask.case_fields

    gm_answers(page, q10, ask)
    expect(page.locator('[name="circumstance_1"]')).to_have_value("-10")
    expect(page.locator('[name="circumstance_reason_1"]')).to_have_value(
        "Postać atakuje nieświadomy cel z zaskoczenia, od tyłu"
    )
    expect(page.locator('[name="raise_purposes"]')).to_have_value("cios w kark")
    settle_panel(page)
    roll_button(page).click()
    page.wait_for_url(re.compile(r"#roll-\d+$"))
    ask.refresh_from_db()
    assert ask.status == AskStatus.ANSWERED
    line = page.locator(f"#roll-{ask.answer.seq}").get_by_test_id("roll-line")
    expect(line).to_contain_text("podbicie 1: cios w kark")
    expect(line).to_contain_text("Postać atakuje nieświadomy cel z zaskoczenia, od tyłu")
