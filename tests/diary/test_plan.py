"""The session plan: its content, every submission kept, the moderators' review,
who sees it, and what waits on the home page."""

import pytest
from django.urls import reverse

from diary import services
from diary.models import PlanDecision, PlanSubmission, SessionStatus
from tests.conftest import polish

pytestmark = pytest.mark.django_db


@pytest.fixture
def planned(make_user, make_character, make_session):
    """A draft session with a scenario, its GM, a moderator and an invited player."""
    gm, moderator, player = make_user(), make_user(moderator=True), make_user()
    character = make_character(player, "Lirael")
    session = make_session(
        gm, [character], status=SessionStatus.DRAFT, npc_mode="gm_character", roll_policy="gm_only"
    )
    services.session_plan_update(session=session, by=gm, scenario="Wilki przy **brodzie**.")

    class Planned:
        pass

    p = Planned()
    p.gm, p.moderator, p.player, p.session = gm, moderator, player, session
    p.plan_url = reverse("diary:session_plan", args=[session.pk])
    p.review_url = reverse("diary:session_plan_review", args=[session.pk])
    p.status_url = reverse("diary:session_status", args=[session.pk])
    return p


def _submit(client, p):
    return client.post(p.status_url, {"status": "plan_submitted"})


def test_gm_writes_the_scenario_and_it_is_rendered(planned, client_for):
    client = client_for(planned.gm)
    response = client.post(planned.plan_url, {"scenario": "Kupiec *łatwowierny*."})
    assert response.status_code == 302
    page = client.get(planned.plan_url).content.decode()
    assert "<em>łatwowierny</em>" in page
    # The settings already on the session are part of the plan page.
    assert polish("rolls on the GM's stand-in character") in page
    assert polish("only the GM rolls") in page


def test_scenario_is_bounded_with_a_polish_error(planned, client_for):
    response = client_for(planned.gm).post(planned.plan_url, {"scenario": "x" * 20_001})
    assert response.status_code == 400
    assert "scenario" in response.context["plan_form"].errors
    planned.session.plan.refresh_from_db()
    assert planned.session.plan.scenario == "Wilki przy **brodzie**."


def test_submission_keeps_the_plan_as_submitted(planned, client_for):
    _submit(client_for(planned.gm), planned)
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.PLAN_SUBMITTED
    submission = PlanSubmission.objects.get(session=planned.session)
    assert submission.number == 1
    assert submission.scenario == "Wilki przy **brodzie**."
    assert "<strong>brodzie</strong>" in submission.scenario_html
    assert (submission.criticals_enabled, submission.npc_mode, submission.roll_policy) == (
        True,
        "gm_character",
        "gm_only",
    )
    assert submission.submitted_by == planned.gm
    assert submission.decision == PlanDecision.PENDING


def test_scenario_cannot_change_while_the_plan_is_submitted(planned, client_for):
    client = client_for(planned.gm)
    _submit(client, planned)
    assert client.post(planned.plan_url, {"scenario": "Inny."}).status_code == 403
    assert PlanSubmission.objects.get().scenario == "Wilki przy **brodzie**."


def test_return_needs_a_comment_and_nothing_changes_without_it(planned, client_for):
    _submit(client_for(planned.gm), planned)
    response = client_for(planned.moderator).post(
        planned.review_url, {"decision": "return", "comment": "   "}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="id_comment_error"' in page
    assert polish("Say what the GM should change in the plan.") in page
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.PLAN_SUBMITTED
    submission = PlanSubmission.objects.get()
    assert submission.decision == PlanDecision.PENDING and submission.comment == ""


def test_service_refuses_a_return_without_comment(planned):
    from django.core.exceptions import ValidationError

    services.session_transition(session=planned.session, by=planned.gm, to="plan_submitted")
    with pytest.raises(ValidationError):
        services.session_plan_review(
            session=planned.session, by=planned.moderator, accept=False, comment=""
        )


def test_returned_plan_goes_back_to_draft_with_the_comment_shown_to_the_gm(planned, client_for):
    gm = client_for(planned.gm)
    _submit(gm, planned)
    response = client_for(planned.moderator).post(
        planned.review_url, {"decision": "return", "comment": "Opisz wilki dokładniej."}
    )
    assert response.status_code == 302
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.DRAFT
    submission = PlanSubmission.objects.get()
    assert submission.decision == PlanDecision.RETURNED
    assert submission.reviewed_by == planned.moderator
    assert submission.comment == "Opisz wilki dokładniej."
    # The GM's session page says it plainly, with what the review said.
    page = gm.get(reverse("diary:session", args=[planned.session.pk])).content.decode()
    assert polish("The session starts only after a moderator accepts its plan.") in page
    assert polish("A moderator returned the plan: revise it and submit it again.") in page
    assert "Opisz wilki dokładniej." in page
    plan_page = gm.get(planned.plan_url).content.decode()
    assert polish("returned for changes") in plan_page


def test_resubmission_is_a_second_submission_and_history_is_newest_first(planned, client_for):
    gm, moderator = client_for(planned.gm), client_for(planned.moderator)
    _submit(gm, planned)
    moderator.post(planned.review_url, {"decision": "return", "comment": "Za krótko."})
    gm.post(planned.plan_url, {"scenario": "Wilki, kupiec i bród: trzy sceny."})
    _submit(gm, planned)
    first, second = PlanSubmission.objects.order_by("number")
    assert (first.number, second.number) == (1, 2)
    assert first.scenario == "Wilki przy **brodzie**." and first.comment == "Za krótko."
    assert second.scenario == "Wilki, kupiec i bród: trzy sceny."
    page = moderator.get(planned.plan_url)
    assert [s.number for s in page.context["page"].submissions] == [2, 1]
    html = page.content.decode()
    assert html.index('id="submission-2"') < html.index('id="submission-1"')
    assert "Za krótko." in html


def test_moderator_accepts_with_an_optional_comment(planned, client_for):
    _submit(client_for(planned.gm), planned)
    response = client_for(planned.moderator).post(
        planned.review_url, {"decision": "accept", "comment": "Dobry plan."}
    )
    assert response.status_code == 302
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.ACCEPTED
    submission = PlanSubmission.objects.get()
    assert submission.decision == PlanDecision.ACCEPTED
    assert submission.reviewed_by == planned.moderator and submission.comment == "Dobry plan."


def test_accepting_through_the_status_button_closes_the_submission(planned, client_for):
    _submit(client_for(planned.gm), planned)
    client_for(planned.moderator).post(planned.status_url, {"status": "accepted"})
    assert PlanSubmission.objects.get().decision == PlanDecision.ACCEPTED


def test_gm_taking_the_plan_back_is_kept_as_withdrawn(planned, client_for):
    gm = client_for(planned.gm)
    _submit(gm, planned)
    gm.post(planned.status_url, {"status": "draft"})
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.DRAFT
    assert PlanSubmission.objects.get().decision == PlanDecision.WITHDRAWN


def test_only_moderators_review(planned, client_for):
    _submit(client_for(planned.gm), planned)
    for user in (planned.gm, planned.player):
        response = client_for(user).post(planned.review_url, {"decision": "accept", "comment": ""})
        assert response.status_code == 403  # both know the session; neither is a moderator
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.PLAN_SUBMITTED
    assert PlanSubmission.objects.get().decision == PlanDecision.PENDING
    # The GM may not accept through the service either.
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        services.session_plan_review(
            session=planned.session, by=planned.gm, accept=True, comment=""
        )


def test_review_of_a_plan_not_submitted_changes_nothing(planned, client_for):
    response = client_for(planned.moderator).post(
        planned.review_url, {"decision": "return", "comment": "Hm."}
    )
    assert response.status_code == 302
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.DRAFT
    assert not PlanSubmission.objects.exists()


def test_plan_and_history_are_hidden_from_players(planned, client_for, make_user):
    outsider = client_for(make_user())
    # A draft is its GM's and the moderators' only: an outsider may not know it exists.
    assert outsider.get(planned.plan_url).status_code == 404
    _submit(client_for(planned.gm), planned)
    # An invited player reads the diary but not the plan; once submitted, the session's
    # card is public (docs/decisions.md, Sessions), so the outsider knows it: 403.
    assert client_for(planned.player).get(planned.plan_url).status_code == 403
    assert outsider.get(planned.plan_url).status_code == 403
    assert client_for(planned.gm).get(planned.plan_url).status_code == 200
    assert client_for(planned.moderator).get(planned.plan_url).status_code == 200


def test_players_do_not_see_the_plan_notice(planned, client_for):
    page = client_for(planned.player).get(reverse("diary:session", args=[planned.session.pk]))
    assert 'data-testid="plan-notice"' not in page.content.decode()


def test_moderator_home_lists_plans_to_review_oldest_first(make_user, make_session, client_for):
    moderator = make_user(moderator=True)
    older = make_session(make_user(), status=SessionStatus.PLAN_SUBMITTED, title="Starsza")
    newer = make_session(make_user(), status=SessionStatus.PLAN_SUBMITTED, title="Nowsza")
    make_session(make_user(), status=SessionStatus.DRAFT, title="Szkic")
    response = client_for(moderator).get(reverse("home"))
    assert [s.pk for s in response.context["plans_to_review"]] == [older.pk, newer.pk]
    page = response.content.decode()
    assert polish("Plans to review") in page
    assert reverse("diary:session_plan", args=[older.pk]) in page
    assert "Szkic" not in page
    # Nobody else gets the list.
    gm_home = client_for(older.gm).get(reverse("home"))
    assert gm_home.context["plans_to_review"] == []


def test_gm_home_lists_join_requests(make_user, make_character, make_session, client_for):
    gm, player = make_user(), make_user()
    session = make_session(gm, title="Bród")
    character = make_character(player, "Borys")
    services.participation_request(session=session, by=player, character=character)
    response = client_for(gm).get(reverse("home"))
    assert [p.character for p in response.context["join_requests"]] == [character]
    page = response.content.decode()
    assert polish("Characters asking to join") in page
    assert reverse("diary:participants", args=[session.pk]) in page
    assert client_for(player).get(reverse("home")).context["join_requests"] == []


def test_plan_settings_are_fixed_while_the_plan_is_reviewed(planned):
    from django.core.exceptions import ValidationError

    services.session_transition(session=planned.session, by=planned.gm, to="plan_submitted")
    with pytest.raises(ValidationError) as error:
        services.session_update(session=planned.session, by=planned.gm, roll_policy="players_own")
    assert "roll_policy" in error.value.error_dict
    planned.session.refresh_from_db()
    assert planned.session.roll_policy == "gm_only"
    # The title is not part of the plan.
    services.session_update(session=planned.session, by=planned.gm, title="Nowy tytuł")


def test_settings_form_disables_plan_settings_under_review(planned, client_for):
    client = client_for(planned.gm)
    _submit(client, planned)
    url = reverse("diary:session_edit", args=[planned.session.pk])
    response = client.post(
        url,
        {
            "title": "Bród",
            "description": "",
            "criticals_enabled": "",
            "npc_mode": "fixed_modifiers",
            "roll_policy": "players_own",
        },
    )
    assert response.status_code == 302
    planned.session.refresh_from_db()
    assert planned.session.title == "Bród"
    assert (planned.session.criticals_enabled, planned.session.npc_mode) == (True, "gm_character")
    assert planned.session.roll_policy == "gm_only"


def test_seed_demo_plan_was_returned_once_then_accepted():
    from django.core.management import call_command

    from demo.ford.story import SESSION_TITLE
    from diary.models import GameSession

    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    assert "kupiec" in session.plan.scenario.lower()
    returned, accepted = session.plan_submissions.order_by("number")
    assert returned.decision == PlanDecision.RETURNED and returned.comment
    assert returned.reviewed_by.username == "moderator"
    assert accepted.decision == PlanDecision.ACCEPTED
    assert accepted.scenario == session.plan.scenario != returned.scenario


def test_admin_shows_submissions_read_only(planned, client):
    from django.contrib.auth import get_user_model

    services.session_transition(session=planned.session, by=planned.gm, to="plan_submitted")
    superuser = get_user_model().objects.create_superuser("szef", password="x-Sekret-1000")
    client.force_login(superuser)
    submission = PlanSubmission.objects.get()
    url = reverse("admin:diary_plansubmission_change", args=[submission.pk])
    assert client.get(url).status_code == 200
    client.post(url, {"comment": "zmiana", "decision": "accepted"})
    submission.refresh_from_db()
    assert submission.decision == PlanDecision.PENDING and submission.comment == ""


def test_the_plan_shows_the_npc_designs_and_each_submission_keeps_them(planned, client_for):
    """Seed 000 line 53: the plan includes the NPC designs; a submission keeps them as sent."""
    from diary.npcs.services import npc_create, npc_modifier_create

    session = planned.session
    session.npc_mode = "fixed_modifiers"
    session.save()
    merchant = npc_create(
        session=session,
        by=session.gm,
        name="Stary kupiec",
        description="Handluje solą.",
        visible_to_players=True,
    )
    npc_modifier_create(
        npc=merchant,
        by=merchant.session.gm,
        interaction="perswazja",
        value=100,
        reason="łatwowierny",
    )
    gm = client_for(planned.gm)
    page = gm.get(planned.plan_url).content.decode()
    assert "Stary kupiec" in page and "perswazja" in page and "+100" in page
    _submit(gm, planned)
    submission = PlanSubmission.objects.get(session=session)
    assert submission.npcs == [
        {
            "name": "Stary kupiec",
            "description": "Handluje solą.",
            "visible": True,
            "stand_in": None,
            "modifiers": [{"interaction": "perswazja", "value": 100, "reason": "łatwowierny"}],
        }
    ]
    # A later change of the roster does not rewrite what was submitted.
    npc_modifier_create(
        npc=merchant, by=merchant.session.gm, interaction="targowanie", value=-100, reason="skąpy"
    )
    submission.refresh_from_db()
    assert len(submission.npcs[0]["modifiers"]) == 1
    moderator_page = client_for(planned.moderator).get(planned.plan_url).content.decode()
    assert moderator_page.count("perswazja") >= 2  # the plan now, and submission 1


# --- Saving and submitting are one form ----------------------------------------------------


def _plan_forms(page: str) -> list[str]:
    """The plan page's <form> elements, each as its HTML."""
    import re

    return re.findall(r"<form\b.*?</form>", page, flags=re.S)


def test_save_and_submit_are_two_buttons_of_the_scenario_form(planned, client_for):
    page = client_for(planned.gm).get(planned.plan_url).content.decode()
    (scenario_form,) = [form for form in _plan_forms(page) if 'name="scenario"' in form]
    assert 'name="action" value="save"' in scenario_form
    assert 'name="action" value="submit"' in scenario_form
    assert polish("Submit the plan to moderators") in scenario_form
    # No second form that would send the stored plan and drop what is typed.
    assert 'value="plan_submitted"' not in page


def test_submit_saves_what_is_typed_and_sends_it(planned, client_for):
    response = client_for(planned.gm).post(
        planned.plan_url, {"scenario": "Most na *Wiśle*.", "action": "submit"}
    )
    assert response.status_code == 302
    assert response.url == reverse("diary:session", args=[planned.session.pk])
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.PLAN_SUBMITTED
    assert planned.session.plan.scenario == "Most na *Wiśle*."
    submission = PlanSubmission.objects.get(session=planned.session)
    assert submission.scenario == "Most na *Wiśle*."
    assert "<em>Wiśle</em>" in submission.scenario_html


def test_an_empty_plan_is_refused_next_to_the_scenario_and_nothing_is_stored(planned, client_for):
    response = client_for(planned.gm).post(
        planned.plan_url, {"scenario": "  \n ", "action": "submit"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="id_scenario_error"' in page
    assert polish("Write the scenario before you submit the plan.") in page
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.DRAFT
    assert planned.session.plan.scenario == "Wilki przy **brodzie**."
    assert not PlanSubmission.objects.exists()


def test_saving_an_empty_scenario_is_still_a_draft(planned, client_for):
    response = client_for(planned.gm).post(planned.plan_url, {"scenario": "", "action": "save"})
    assert response.status_code == 302
    planned.session.plan.refresh_from_db()
    assert planned.session.plan.scenario == ""
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.DRAFT


def test_the_status_button_does_not_send_an_empty_plan(planned, client_for):
    gm = client_for(planned.gm)
    gm.post(planned.plan_url, {"scenario": "", "action": "save"})
    response = gm.post(planned.status_url, {"status": "plan_submitted"}, follow=True)
    messages = [str(m) for m in response.context["messages"]]
    assert messages[-1] == polish("Write the scenario before you submit the plan.")
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.DRAFT
    assert not PlanSubmission.objects.exists()


def test_service_refuses_an_empty_plan(planned):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        services.session_plan_submit(session=planned.session, by=planned.gm, scenario=" ")
    assert "scenario" in refused.value.error_dict
    planned.session.refresh_from_db()
    assert planned.session.status == SessionStatus.DRAFT
    assert planned.session.plan.scenario == "Wilki przy **brodzie**."
    assert not PlanSubmission.objects.exists()
