"""The session plan's pages in Chromium: a moderator returns a plan (the comment's error
first), and the plan pages pass axe-core. The whole scene is test_whole_scene.py."""

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import expect

from demo.ford.story import SESSION_TITLE
from demo.users import DEMO_USERS as DEMO_PASSWORDS
from diary import services as diary_services
from diary.models import GameSession, PlanDecision, PlanSubmission
from tests.browser.conftest import log_in
from tests.browser.test_accessibility import _report, _violations

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def submitted():
    """The demo, plus a second session of the demo GM's with its plan waiting for review."""
    call_command("seed_demo", stdout=io.StringIO())
    demo = GameSession.objects.get(title=SESSION_TITLE)
    session = diary_services.session_create(
        gm=demo.gm,
        title="Karczma pod Wilkiem",
        description="",
        system=demo.system,
        criticals_enabled=False,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
    )
    diary_services.session_plan_update(session=session, by=demo.gm, scenario="Bójka w *karczmie*.")
    diary_services.session_transition(session=session, by=demo.gm, to="plan_submitted")
    return demo, session


def test_moderator_returns_a_plan_from_the_home_page(page, submitted):
    demo, session = submitted
    log_in(page, "moderator", DEMO_PASSWORDS["moderator"])
    page.get_by_role("link", name="Karczma pod Wilkiem").click()
    expect(page.get_by_role("heading", name="Plan sesji")).to_be_visible()
    page.get_by_label("Zwróć go MG do poprawek").check()
    page.get_by_role("button", name="Wyślij ocenę").click()
    expect(page.locator("#id_comment_error")).to_have_text("Napisz, co MG ma poprawić w planie.")
    problems = {}
    if found := _violations(page):
        problems["review form with an error"] = found
    page.get_by_label("Komentarz dla MG").fill("Kto zaczyna bójkę?")
    page.get_by_role("button", name="Wyślij ocenę").click()
    expect(page.get_by_test_id("plan-status")).to_have_text("zwrócony do poprawek")
    assert PlanSubmission.objects.get(session=session).decision == PlanDecision.RETURNED
    page.goto(f"/sessions/{demo.pk}/plan/")
    if found := _violations(page):
        problems[f"/sessions/{demo.pk}/plan/"] = found
    assert not problems, _report(problems)


def test_gm_sees_the_review_and_the_plan_pages_are_accessible(page, submitted):
    _demo, session = submitted
    diary_services.session_plan_review(
        session=session,
        by=get_user_model().objects.get(username="moderator"),
        accept=False,
        comment="Kto zaczyna bójkę?",
    )
    log_in(page, "gm", DEMO_PASSWORDS["gm"])
    problems = {}
    for url in [f"/sessions/{session.pk}/", f"/sessions/{session.pk}/plan/"]:
        page.goto(url)
        page.wait_for_load_state("load")
        assert "Kto zaczyna bójkę?" in page.content()
        if found := _violations(page):
            problems[url] = found
    assert not problems, _report(problems)
