"""Drafts through the site: saved as JSON for the composer's script, offered back in the form
on any device (rendered into the textarea, so without JS too), refused in Polish when too
long or when the author may no longer write there, limited in rate, discarded by their
button, and read by their author alone."""

import html
import re
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import pytest
from django.contrib.auth import SESSION_KEY
from django.urls import reverse

from config import settings as project_settings
from diary import services
from diary.forms import NARRATION_MAX_LENGTH
from diary.models import Draft, DraftPlace, SessionStatus
from tests.conftest import PASSWORD, polish
from tests.diary.drafts.conftest import discard_url, draft_url, new_post, save

pytestmark = pytest.mark.django_db


def page(client, url) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def textarea(text: str, name: str) -> str:
    match = re.search(rf'<textarea name="{name}"[^>]*>(.*?)</textarea>', text, re.S)
    assert match, f"no textarea {name}"
    return match.group(1).strip("\r\n")


def diary_url(table):
    return reverse("diary:session", args=[table.session.pk])


def test_a_saved_draft_says_when_and_comes_back_on_another_device(table, client_for):
    answer = save(client_for(table.alice), draft_url(table), "Lirael **skrada** się", "k20?")
    assert answer.status_code == 200
    draft = Draft.objects.get()
    saved_at = draft.updated_at.astimezone(ZoneInfo(project_settings.TIME_ZONE))
    assert answer.json()["status"] == polish(
        "draft saved %(time)s", time=saved_at.strftime("%H:%M")
    )
    assert answer.json()["status"].startswith("szkic zapisany ")
    # Another browser of the same user: the form is filled, and says the draft is saved.
    other_device = page(client_for(table.alice), diary_url(table))
    assert textarea(other_device, "narration") == "Lirael **skrada** się"
    assert textarea(other_device, "nc_note") == "k20?"
    assert answer.json()["status"] in other_device
    assert polish("Discard draft") in other_device


def test_nobody_else_reads_the_draft(table, client_for):
    save(client_for(table.alice), draft_url(table), "Tajny plan Lirael")
    for user in (table.bob, table.gm, table.moderator):
        assert "Tajny plan Lirael" not in page(client_for(user), diary_url(table))


def test_a_quote_follows_the_draft(table, client_for):
    alice = client_for(table.alice)
    new_post(client_for(table.bob), table, "Borys otwiera zamek.")
    save(alice, draft_url(table), "Mój początek")
    post = table.session.posts.get()
    text = textarea(page(alice, f"{diary_url(table)}?quote={post.pk}"), "narration")
    assert text.startswith("Mój początek\n\n> ")
    assert "Borys otwiera zamek." in text


def test_publishing_deletes_the_draft(table, client_for):
    alice = client_for(table.alice)
    save(alice, draft_url(table), "Wchodzę do karczmy.")
    assert new_post(alice, table, "Wchodzę do karczmy.", table.lirael.pk).status_code == 302
    assert not Draft.objects.exists()
    assert textarea(page(alice, diary_url(table)), "narration") == ""


def test_a_draft_too_long_is_refused_in_polish_and_not_stored(table, client_for):
    answer = save(client_for(table.alice), draft_url(table), "a" * (NARRATION_MAX_LENGTH + 1))
    assert answer.status_code == 400
    assert answer.json()["error"] == polish(
        "The draft is too long to keep: at most %(limit_value)d characters (now %(show_value)d).",
        limit_value=NARRATION_MAX_LENGTH,
        show_value=NARRATION_MAX_LENGTH + 1,
    )
    assert not Draft.objects.exists()


def test_an_ooc_draft_is_as_long_as_an_ooc_message(table, client_for):
    answer = save(client_for(table.alice), draft_url(table, "ooc"), "a" * 5001)
    assert answer.status_code == 400
    assert not Draft.objects.exists()


def test_a_finished_session_refuses_the_draft_in_words(table, client_for):
    services.session_transition(session=table.session, by=table.gm, to=SessionStatus.FINISHED)
    answer = save(client_for(table.alice), draft_url(table), "Jeszcze słowo")
    assert answer.status_code == 403
    assert answer.json()["error"].startswith("Nie możesz już pisać w tej sesji")
    assert not Draft.objects.exists()


def test_an_expired_login_is_sent_to_log_in_and_nothing_is_stored(table, client_for):
    alice = client_for(table.alice)
    # The session row is gone (expired or cleared): the cookie no longer logs in.
    alice.session.flush()
    assert SESSION_KEY not in alice.session
    answer = save(alice, draft_url(table), "Po wygaśnięciu")
    assert answer.status_code == 302
    assert answer["Location"].startswith(reverse("login"))
    assert not Draft.objects.exists()


def test_the_log_in_page_returns_to_the_page_it_was_sent_from(table, client):
    back = diary_url(table) + "#write"
    response = client.post(
        f"{reverse('login')}?{urlencode({'next': back})}",
        {"username": "alicja", "password": PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == back


def test_saving_is_rate_limited(table, client_for, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "draft_user": "2/m"}
    alice = client_for(table.alice)
    assert save(alice, draft_url(table), "1").status_code == 200
    assert save(alice, draft_url(table), "2").status_code == 200
    refused = save(alice, draft_url(table), "3")
    assert refused.status_code == 429
    assert polish(
        "Too many draft saves in a short time. Your text is kept here; wait a moment."
    ) in html.unescape(refused.content.decode())
    assert Draft.objects.get().text == "2"


def test_the_default_draft_limit_allows_a_save_every_few_seconds():
    count, seconds = project_settings.DEFAULT_RATE_LIMITS["draft_user"].split("/")
    assert int(count) >= 20 and seconds == "m"


def test_discard_without_js_goes_back_to_the_empty_form(table, client_for):
    alice = client_for(table.alice)
    save(alice, draft_url(table), "Do kosza")
    response = alice.post(discard_url(table), {"narration": "Do kosza"})
    assert response.status_code == 302
    assert response["Location"] == diary_url(table) + "#write"
    assert not Draft.objects.exists()
    after = page(alice, diary_url(table))
    assert polish("Draft discarded.") in after
    assert textarea(after, "narration") == ""


def test_without_js_the_save_button_keeps_the_draft_and_goes_back(table, client_for):
    alice = client_for(table.alice)
    form = {"character": table.lirael.pk, "narration": "Bez skryptu", "nc_note": "notka"}
    response = alice.post(draft_url(table), form)
    assert response.status_code == 302
    assert response["Location"] == diary_url(table) + "#write"
    after = page(alice, diary_url(table))
    assert textarea(after, "narration") == "Bez skryptu"
    assert textarea(after, "nc_note") == "notka"
    assert "szkic zapisany" in after


def test_without_js_a_refusal_is_a_page_that_says_why(table, client_for):
    alice = client_for(table.alice)
    response = alice.post(draft_url(table), {"narration": "a" * (NARRATION_MAX_LENGTH + 1)})
    assert response.status_code == 400
    text = html.unescape(response.content.decode())
    assert 'role="alert"' in text and "Szkic jest za długi" in text
    assert not Draft.objects.exists()


def test_discard_with_js_answers_json(table, client_for):
    alice = client_for(table.alice)
    save(alice, draft_url(table), "Do kosza")
    response = alice.post(discard_url(table), HTTP_ACCEPT="application/json")
    assert response.json() == {"discarded": True, "status": "Szkic odrzucony."}
    assert not Draft.objects.exists()


def test_an_unknown_place_is_not_found(table, client_for):
    assert save(client_for(table.alice), draft_url(table, "elsewhere")).status_code == 404
    assert save(client_for(table.alice), draft_url(table, "whisper-999999")).status_code == 404


def test_someone_elses_whisper_takes_no_draft(table, client_for, whisper_thread):
    slug = f"whisper-{whisper_thread.pk}"
    assert save(client_for(table.bob), draft_url(table, slug)).status_code == 403
    assert save(client_for(table.alice), draft_url(table, slug), "Szept").status_code == 200
    thread_page = page(client_for(table.alice), whisper_thread.get_absolute_url())
    assert textarea(thread_page, "text") == "Szept"
    assert Draft.objects.get().thread == whisper_thread


def test_the_ooc_thread_offers_its_draft(table, client_for):
    save(client_for(table.alice), draft_url(table, "ooc"), "Gramy w piątek?")
    ooc = page(client_for(table.alice), reverse("diary:ooc", args=[table.session.pk]))
    assert textarea(ooc, "text") == "Gramy w piątek?"
    assert Draft.objects.get().place == DraftPlace.OOC


def test_the_plan_offers_its_draft(make_user, make_session, client_for):
    gm = make_user("planista")
    session = make_session(gm, status=SessionStatus.DRAFT)
    services.session_plan_update(session=session, by=gm, scenario="Zapisany plan")
    gm_client = client_for(gm)
    url = reverse("diary:draft_save", args=[session.pk, "plan"])
    assert save(gm_client, url, "Plan w toku").status_code == 200
    plan = page(gm_client, reverse("diary:session_plan", args=[session.pk]))
    assert textarea(plan, "scenario") == "Plan w toku"
    # Submitted, the plan is no longer edited: no draft of it either.
    services.session_plan_submit(session=session, by=gm, scenario="Plan w toku")
    assert not Draft.objects.exists()
    assert save(gm_client, url, "Jeszcze").status_code == 403


def test_the_live_poll_never_carries_the_form(table, client_for):
    """The poll swaps the posts only: what is being typed in the form below stays."""
    alice = client_for(table.alice)
    save(alice, draft_url(table), "Piszę właśnie")
    new_post(client_for(table.bob), table, "Borys coś robi.")
    live = alice.get(reverse("diary:session_live", args=[table.session.pk]))
    assert live.status_code == 200
    body = live.content.decode()
    assert "Borys coś robi." in body
    assert "<textarea" not in body and "Piszę właśnie" not in body
