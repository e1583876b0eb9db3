"""In Chromium: a whole scene runs on the site, from plan to finish.

Only the people, their sheets and the sessions' casts are made in the database (they are
not part of the scene). Everything the scene is made of goes through the pages, each step
by the person whose step it is, in their own browser: the GM writes and submits the plan
(with an NPC of fixed modifiers), a moderator returns it with a comment, the GM reads the
comment, revises and resubmits, the moderator accepts; the GM starts the session and opens
a turn; two players post, one with a structured request for a roll, and the "waiting for"
list shrinks and empties; the GM answers the request with one click, targets the NPC's
fixed modifier, and the roll lands as the request's answer; a second action roll for the
same character is refused, then allowed with a reason the roll shows; in a second session
(a session has one NPC mode) a stand-in NPC takes the other side of an opposed roll; the GM
finishes the session.
"""

import re

import pytest
from playwright.sync_api import expect

from characters.models import Character
from diary.models import GameSession, Npc, PlanDecision, PlanSubmission, Post, SessionStatus, Turn
from rolls.models import AskStatus, Roll, RollAsk
from tests.browser.conftest import log_in
from tests.browser.test_roll_panel import (
    COUNT_REDRAWS,
    choose,
    first_redraw,
    line_in_order,
    open_ask_mode,
    outcome_text,
    roll_against_threshold,
    roll_button,
    skill_id,
    source_key,
    tick,
    type_in,
)
from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def cast(make_user, make_character, make_session):
    """The people and their sheets; a draft session (fixed NPC modifiers) with both players'
    characters on its list; a running gm_character session and the GM's bare sheet for it."""
    gm = make_user("mg")
    alice, bob = make_user("alicja"), make_user("bartek")
    moderator = make_user("moderator", moderator=True)
    lirael = make_character(alice, "Lirael", skills={"Uwodzenie": 1}, traits=["Seksapil"])
    borys = make_character(bob, "Borys", skills={"Otwieranie zamków": 3}, traits=["Precyzyjny"])
    session = make_session(
        gm, [lirael, borys], status=SessionStatus.DRAFT, title="Bród pod Mglistą Skałą"
    )
    # A character plays in one running session at a time: Bartek has a second one here.
    bogumil = make_character(bob, "Bogumił", skills={"Otwieranie zamków": 3})
    night = make_session(
        gm, [bogumil], npc_mode="gm_character", title="Wilcza noc", criticals_enabled=False
    )
    sheet = make_character(gm, "Basior", attributes={"Siła Woli": 480})

    class Cast:
        pass

    c = Cast()
    c.gm, c.alice, c.bob, c.moderator = gm, alice, bob, moderator
    c.lirael, c.borys, c.session, c.night, c.sheet = lirael, borys, session, night, sheet
    c.bogumil = bogumil
    return c


@pytest.fixture
def browsers(browser, live_server):
    """One browser context per person, each logged in once."""
    contexts = []

    def open_as(user):
        context = browser.new_context(locale="pl-PL", base_url=live_server.url)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.add_init_script(COUNT_REDRAWS)
        log_in(page, user.username, PASSWORD)
        return page

    yield open_as
    for context in contexts:
        context.close()


def diary_url(session) -> str:
    return f"/sessions/{session.pk}/"


def awaited_text(*names: str) -> re.Pattern:
    waiting = re.escape(polish("Waiting for:"))
    return re.compile(rf"^{waiting}\s+{re.escape(', '.join(names))}$")


def post_in_the_diary(page, session, text: str) -> Post:
    page.goto(diary_url(session))
    page.get_by_label(polish("Narration")).fill(text)
    page.get_by_role("button", name=polish("Publish"), exact=True).click()
    page.wait_for_url(re.compile(r"#post-\d+$"))
    post = Post.objects.get(pk=int(page.url.rsplit("#post-", 1)[1]))
    expect(page.locator(f"#post-{post.pk} .narration")).to_have_text(text)
    return post


def review(page, session, *, accept: bool, comment: str = "") -> None:
    page.goto("/")
    page.get_by_role("link", name=session.title).click()
    page.wait_for_url(f"**/sessions/{session.pk}/plan/")
    label = "Accept the plan" if accept else "Return it to the GM"
    page.get_by_label(polish(label)).check()
    if comment:
        page.get_by_label(polish("Comment for the GM")).fill(comment)
    page.get_by_role("button", name=polish("Send the review")).click()
    # The review lands back on the plan page, its status changed (the caller checks which).


def submit_the_plan(page, session) -> None:
    """From the plan page; the site goes back to the diary, the session waiting for review."""
    page.get_by_role("button", name=polish("Submit the plan to moderators")).click()
    page.wait_for_url(f"**/sessions/{session.pk}/")
    expect(page.locator(".session-card .status")).to_have_text(polish("plan submitted"))
    expect(page.get_by_test_id("plan-notice")).to_contain_text(polish("The plan waits for review."))
    page.get_by_test_id("plan-notice").get_by_role("link", name=polish("Session plan")).click()
    page.wait_for_url(f"**/sessions/{session.pk}/plan/")


def first_redraw_of_ask(page) -> None:
    page.wait_for_load_state("load")
    expect(page.locator("#ask")).to_be_visible()


def roll_and_land(page, session) -> Roll:
    """Roll; the roll lands in the session's diary at its line (seq is per session)."""
    roll_button(page).click()
    page.wait_for_url(re.compile(rf"/sessions/{session.pk}/.*#roll-\d+$"))
    roll = Roll.objects.get(session=session, seq=int(page.url.rsplit("#roll-", 1)[1]))
    expect(page.locator(f"#roll-{roll.seq}")).to_be_visible()
    return roll


def open_panel_from_the_diary(page, session, mode: str = "") -> None:
    """The GM's way in: the "Roll panel" link by the ledger's head, then the mode's link."""
    page.goto(diary_url(session))
    page.get_by_test_id("chain-head").get_by_role("link", name=polish("Roll panel")).click()
    page.wait_for_url(f"**/sessions/{session.pk}/rolls/panel/**")
    first_redraw(page)
    if mode:
        page.locator(f'#panel a[href="?mode={mode}"]').first.click()
        page.wait_for_url(re.compile(rf"mode={mode}"))
        first_redraw(page)


def test_a_whole_scene_runs_on_the_site_from_plan_to_finish(cast, browsers):
    session = cast.session
    gm = browsers(cast.gm)

    # -- The plan: the GM writes it, with an NPC of fixed modifiers, and submits it. --------
    gm.goto(diary_url(session))
    notice = gm.get_by_test_id("plan-notice")
    expect(notice).to_contain_text(
        polish("The session starts only after a moderator accepts its plan.")
    )
    notice.get_by_role("link", name=polish("Session plan")).click()
    gm.wait_for_url(f"**/sessions/{session.pk}/plan/")
    expect(gm.get_by_test_id("plan-status")).to_have_text(polish("draft"))
    gm.get_by_label(polish("Scenario")).fill("Drużyna szuka przeprawy przez **bród**.")
    gm.get_by_role("button", name=polish("Save the plan")).click()
    expect(gm.get_by_test_id("scenario")).to_contain_text("Drużyna szuka przeprawy przez bród.")

    gm.get_by_role("link", name=polish("Edit the NPCs")).click()
    gm.get_by_label(polish("Name")).fill("Stary kupiec")
    gm.get_by_label(polish("Description")).fill("Handluje solą przy brodzie.")
    gm.get_by_role("button", name=polish("Add the NPC")).click()
    gm.wait_for_url(re.compile(r"/npcs/\d+/$"))
    gm.get_by_label(polish("Interaction")).fill("perswazja")
    gm.get_by_label(polish("Modifier")).fill("100")
    gm.get_by_label(polish("Reason")).fill("łatwowierny")
    gm.get_by_role("button", name=polish("Add the modifier")).click()
    expect(gm.get_by_test_id("npc-modifiers")).to_contain_text("łatwowierny")

    gm.goto(f"/sessions/{session.pk}/plan/")
    submit_the_plan(gm, session)
    expect(gm.get_by_test_id("plan-status")).to_have_text(polish("plan submitted"))
    expect(gm.locator("#submission-1")).to_contain_text(polish("waiting for review"))

    # -- A moderator returns it with a comment. --------------------------------------------
    moderator = browsers(cast.moderator)
    review(moderator, session, accept=False, comment="Kto pilnuje brodu nocą?")
    expect(moderator.get_by_test_id("plan-status")).to_have_text(polish("returned for changes"))
    assert PlanSubmission.objects.get(session=session).decision == PlanDecision.RETURNED

    # -- The GM sees the comment, revises the plan and submits it again. --------------------
    gm.goto(diary_url(session))
    notice = gm.get_by_test_id("plan-notice")
    expect(notice).to_contain_text(
        polish("A moderator returned the plan: revise it and submit it again.")
    )
    expect(notice.locator(".review-comment")).to_have_text("Kto pilnuje brodu nocą?")
    notice.get_by_role("link", name=polish("Session plan")).click()
    expect(gm.get_by_test_id("plan-status")).to_have_text(polish("returned for changes"))
    expect(gm.locator("#submission-1 .review-comment")).to_have_text("Kto pilnuje brodu nocą?")
    gm.get_by_label(polish("Scenario")).fill(
        "Drużyna szuka przeprawy przez **bród**. Nocą pilnuje go wataha wilków."
    )
    gm.get_by_role("button", name=polish("Save the plan")).click()
    expect(gm.get_by_test_id("scenario")).to_contain_text("Nocą pilnuje go wataha wilków.")
    submit_the_plan(gm, session)
    expect(gm.get_by_test_id("plan-status")).to_have_text(polish("plan submitted"))
    expect(gm.locator("article.plan-submission")).to_have_count(2)

    # -- The moderator accepts the revised plan. --------------------------------------------
    review(moderator, session, accept=True)
    expect(moderator.get_by_test_id("plan-status")).to_have_text(polish("accepted"))
    first, second = PlanSubmission.objects.filter(session=session).order_by("number")
    assert (first.decision, second.decision) == (PlanDecision.RETURNED, PlanDecision.ACCEPTED)
    assert "wataha wilków" in second.scenario
    assert [npc["name"] for npc in second.npcs] == ["Stary kupiec"]

    # -- The GM starts the session (turn 1) and opens turn 2. -------------------------------
    gm.goto(diary_url(session))
    expect(gm.locator(".session-card .status")).to_have_text(polish("accepted"))
    expect(gm.get_by_test_id("plan-notice")).to_be_visible()
    expect(gm.get_by_test_id("plan-notice")).not_to_contain_text(
        polish("The session starts only after a moderator accepts its plan.")
    )
    gm.get_by_role("button", name=polish("Start the session")).click()
    expect(gm.locator(".session-card .status")).to_have_text(polish("running"))
    expect(gm.get_by_text(polish("Current turn: %(number)s", number=1))).to_be_visible()
    open_turn = polish("Open turn %(number)s", number=2)
    gm.get_by_text(open_turn, exact=True).click()
    gm.get_by_role("button", name=polish("Yes, open turn %(number)s", number=2)).click()
    expect(gm.get_by_text(polish("Current turn: %(number)s", number=2))).to_be_visible()
    assert Turn.objects.filter(session=session).count() == 2
    awaited = gm.get_by_test_id("awaited")
    expect(awaited).to_have_text(awaited_text("Borys", "Lirael"))

    # -- Lirael's player posts and asks for a roll: Uwodzenie with Seksapil. ----------------
    alice = browsers(cast.alice)  # lands on her home page: her move is waiting
    expect(alice.get_by_test_id("home-my-move")).to_contain_text(session.title)
    lirael_post = post_in_the_diary(alice, session, "Lirael zagaduje kupca o przeprawę.")
    alice.get_by_role("link", name=polish("Ask the GM for a roll")).click()
    first_redraw_of_ask(alice)
    open_ask_mode(alice, "skill")
    choose(alice, "a-skill", value=skill_id("Uwodzenie"))
    tick(alice, "a-sources", source_key("Seksapil"))
    alice.get_by_role("button", name=polish("Send the request")).click()
    request = alice.locator(f"#post-{lirael_post.pk}").get_by_test_id("roll-ask")
    expect(request).to_contain_text("Uwodzenie")
    expect(request).to_contain_text("Seksapil +50")
    expect(request.locator(".status")).to_have_text(polish("waiting for the GM"))
    ask = RollAsk.objects.get()
    assert ask.post == lirael_post

    gm.reload()
    expect(gm.get_by_test_id("awaited")).to_have_text(awaited_text("Borys"))

    # -- Borys's player posts; nobody is awaited any more. ----------------------------------
    bob = browsers(cast.bob)
    post_in_the_diary(bob, session, "Borys osłania tyły i wypatruje wilków.")
    gm.reload()
    expect(gm.get_by_test_id("awaited")).to_have_text(polish("Everyone has posted in this turn."))
    # The GM's home says so too (the wolves' night still waits for Borys: not listed).
    gm.goto("/")
    all_posted = gm.get_by_test_id("home-all-posted")
    expect(all_posted).to_contain_text(session.title)
    expect(all_posted).not_to_contain_text(cast.night.title)
    all_posted.get_by_role("link", name=session.title).click()
    gm.wait_for_url(f"**/sessions/{session.pk}/")

    # -- The GM answers the request in one click, against the merchant's fixed modifier. ----
    open_asks = gm.get_by_test_id("open-asks")
    expect(open_asks).to_contain_text(ask.summary)
    open_asks.get_by_role("link", name=polish("Answer with a roll")).click()
    first_redraw(gm)
    expect(gm.get_by_test_id("answering")).to_contain_text(ask.summary)
    expect(gm.locator('[name="a-character"]')).to_have_value(str(cast.lirael.pk))
    expect(gm.locator('[name="a-skill"]')).to_have_value(skill_id("Uwodzenie"))
    expect(gm.locator(f'[name="a-sources"][value="{source_key("Seksapil")}"]')).to_be_checked()
    choose(gm, "a-npc_modifier", label="Stary kupiec — perswazja +100 (łatwowierny)")
    expect(gm.get_by_test_id("preview")).to_contain_text("NPC Stary kupiec, perswazja: łatwowierny")
    answer = roll_and_land(gm, session)
    assert answer.record["npc"]["name"] == "Stary kupiec"
    expect(gm.locator(f"#roll-{answer.seq}").get_by_test_id("roll-npc")).to_have_text(
        "NPC Stary kupiec, perswazja: +100 (łatwowierny)"
    )
    ask.refresh_from_db()
    assert (ask.status, ask.answer) == (AskStatus.ANSWERED, answer)
    assert answer.post.author == cast.gm and answer.post.pk > lirael_post.pk
    back = gm.locator(f"#roll-{answer.seq}").get_by_test_id("roll-answers")
    expect(back).to_have_text(
        polish("Answers the request for a roll: %(summary)s", summary=ask.summary)
    )
    back.get_by_role("link").click()
    gm.wait_for_url(re.compile(rf"#ask-{ask.pk}$"))
    answered = gm.locator(f"#post-{lirael_post.pk}").get_by_test_id("roll-ask")
    expect(answered.locator(".status")).to_have_text(polish("answered"))
    expect(answered).to_contain_text(polish("by roll #%(seq)s", seq=answer.seq))
    expect(gm.get_by_test_id("open-asks")).to_contain_text(polish("No request is waiting."))
    alice.reload()
    expect(alice.locator(f"#post-{lirael_post.pk}").get_by_test_id("roll-ask")).to_contain_text(
        polish("by roll #%(seq)s", seq=answer.seq)
    )

    # -- A second action roll for Lirael in this turn: refused, then allowed with a reason. -
    usage = gm.get_by_test_id("turn-usage").filter(has_text="Lirael")
    expect(usage).to_contain_text(polish("%(count)s/%(limit)s action roll", count=1, limit=1))
    open_panel_from_the_diary(gm, session)
    choose(gm, "a-character", value=str(cast.lirael.pk))
    refusal = polish(
        "%(name)s already has an action roll in this turn (#%(seq)s). Outside combat one "
        "action per turn may have a roll: a second one only if the GM allows it, with a "
        "reason.",
        name="Lirael",
        seq=answer.seq,
    )
    expect(gm.get_by_test_id("preview-problems")).to_contain_text(refusal)
    roll_button(gm).click()
    gm.wait_for_load_state()
    expect(gm.locator("#id_extra_action_reason_error")).to_have_text(refusal)
    assert Roll.objects.filter(session=session).count() == 1
    first_redraw(gm)
    reason = "Kupiec sam prosi o drugą próbę"
    type_in(gm, "extra_action_reason", reason)
    expect(gm.get_by_test_id("preview-problems")).to_have_count(0)
    second = roll_and_land(gm, session)
    assert second.record["extra_action"]["reason"] == reason
    expect(gm.locator(f"#roll-{second.seq}").get_by_test_id("extra-action")).to_contain_text(reason)
    expect(gm.get_by_test_id("turn-usage").filter(has_text="Lirael")).to_contain_text(
        polish("%(count)s/%(limit)s action roll", count=2, limit=1)
    )

    # -- The wolves' night (mode gm_character): a stand-in NPC takes an opposed roll. -------
    night = cast.night
    gm.goto(diary_url(night))
    gm.get_by_role("link", name=polish("NPC page")).click()
    gm.get_by_label(polish("Name")).fill("Basior")
    gm.get_by_label(polish("Description")).fill("Przewodnik watahy.")
    gm.get_by_role("button", name=polish("Add the NPC")).click()
    gm.wait_for_url(re.compile(r"/npcs/\d+/$"))
    gm.locator('[name="character"]').select_option(str(cast.sheet.pk))
    gm.get_by_role("button", name=polish("Make it the stand-in")).click()
    gm.wait_for_load_state("load")
    assert Npc.objects.get(session=night).stand_in_id == cast.sheet.pk
    assert Character.objects.get(pk=cast.sheet.pk).is_stand_in

    open_panel_from_the_diary(gm, night, mode="opposed")
    choose(gm, "a-character", value=str(cast.bogumil.pk))
    choose(gm, "a-test", value="attribute")
    choose(gm, "a-attribute", label="Siła Woli")
    choose(gm, "b-character", label="Basior (NPC)")
    choose(gm, "b-test", value="attribute")
    choose(gm, "b-attribute", label="Siła Woli")
    expect(gm.get_by_test_id("threshold")).to_have_text(["520", "480"])
    opposed = roll_and_land(gm, night)
    assert opposed.test == "opposed"
    result = opposed.record["result"]
    lines = gm.locator(f"#roll-{opposed.seq}").get_by_test_id("roll-line")
    expect(lines).to_have_count(2)
    for line, name, side in zip(
        lines.all_inner_texts(), ["Bogumił", "Basior"], [result["a"], result["b"]], strict=True
    ):
        line_in_order(line, [name, outcome_text(side), roll_against_threshold(side)])
    expect(gm.locator(f"#roll-{opposed.seq}").get_by_test_id("verdict")).to_be_visible()

    # -- The GM finishes the first session. -------------------------------------------------
    gm.goto(diary_url(session))
    gm.get_by_text(polish("Finish the session"), exact=True).click()
    gm.get_by_role("button", name=polish("Yes, finish the session")).click()
    expect(gm.locator(".session-card .status")).to_have_text(polish("finished"))
    expect(gm.get_by_role("button", name=polish("Publish"), exact=True)).to_have_count(0)
    assert GameSession.objects.get(pk=session.pk).status == SessionStatus.FINISHED
