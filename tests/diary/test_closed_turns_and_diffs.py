"""A closed turn is read-only for its players (diary.access, diary.services.post_edit and
post_hide); post revisions and plan resubmissions show word-level changes (diary.posts.diffs)."""

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client
from django.urls import reverse

from diary import services
from diary.models import PlanSubmission, Post, SessionStatus
from diary.posts.diffs import word_diff
from tests.conftest import polish

pytestmark = pytest.mark.django_db

CLOSED = (
    "This turn is closed: its posts can no longer be edited or hidden by their authors. "
    "Write in the current turn, or ask the GM."
)


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="pl")
    client.force_login(user)
    return client


def write(t, narration="Lirael skrada się pod bramę."):
    return services.post_create(
        session=t.session, author=t.alice, character=t.lirael, narration=narration, nc_note=""
    )


def edit(post, by, narration):
    return services.post_edit(
        post=post, by=by, character=post.character, narration=narration, nc_note=""
    )


def test_a_player_edits_their_post_while_its_turn_is_open(table):
    post = write(table)
    assert edit(post, table.alice, "Lirael biegnie pod bramę.").version == 2


def test_after_the_turn_closes_the_player_may_neither_edit_nor_hide_it(table):
    post = write(table)
    services.turn_open_next(session=table.session, by=table.gm)
    with pytest.raises(PermissionDenied) as refused:
        edit(post, table.alice, "Zmieniona historia.")
    assert str(refused.value) == polish(CLOSED)
    with pytest.raises(PermissionDenied):
        services.post_hide(post=post, by=table.alice, reason="")
    post.refresh_from_db()
    assert (post.version, post.narration, post.is_hidden) == (
        1,
        "Lirael skrada się pod bramę.",
        False,
    )


def test_the_gm_and_a_moderator_still_hide_a_closed_turns_post(table):
    first, second = write(table), write(table, "Drugi post.")
    services.turn_open_next(session=table.session, by=table.gm)
    assert services.post_hide(post=first, by=table.gm, reason="spoiler").is_hidden
    assert services.post_hide(post=second, by=table.moderator, reason="").is_hidden


def test_the_diary_shows_no_edit_link_and_a_post_is_refused_in_polish(table):
    post = write(table)
    diary = reverse("diary:session", args=[table.session.pk])
    edit_url = reverse("diary:post_edit", args=[post.pk])
    assert f'href="{edit_url}"' in logged_in(table.alice).get(diary).content.decode()
    services.turn_open_next(session=table.session, by=table.gm)
    page = logged_in(table.alice).get(diary + "?turn=1").content.decode()
    assert f'id="post-{post.pk}"' in page and f'href="{edit_url}"' not in page
    data = {"character": table.lirael.pk, "narration": "Nowa wersja.", "nc_note": ""}
    for response in (
        logged_in(table.alice).get(edit_url),
        logged_in(table.alice).post(edit_url, data),
        logged_in(table.alice).post(reverse("diary:post_hide", args=[post.pk]), {"reason": ""}),
    ):
        assert response.status_code == 403
        assert polish(CLOSED) in response.content.decode()
    post.refresh_from_db()
    assert post.version == 1 and not post.is_hidden


# --- Word diffs -----------------------------------------------------------------------


def test_word_diff_marks_insertions_and_deletions_and_escapes_the_text():
    diff = word_diff("Ala ma kota <b>i</b> psa.", "Ala ma <script>x</script> i psa.")
    html = str(diff.html)
    assert "<script>" not in html and "&lt;script&gt;x&lt;/script&gt;" in html
    assert "<del>" in html and "<ins>" in html and "&lt;b&gt;" in html
    assert html.startswith("Ala ma ")
    assert (diff.insertions, diff.deletions) == (2, 2)
    assert not word_diff("bez zmian", "bez zmian").changed


def test_a_long_rewrite_is_shown_whole_without_waiting_on_difflib():
    diff = word_diff("a " * 10_000, "b a " * 5_000)
    assert diff.changed and "<ins>" in str(diff.html)


def test_the_post_history_shows_each_version_against_the_one_before(table):
    post = write(table, "Lirael skrada się pod bramę.")
    edit(post, table.alice, "Lirael biegnie pod <em>bramę</em>.")
    page = logged_in(table.alice).get(reverse("diary:post_history", args=[post.pk]))
    text = page.content.decode()
    assert page.status_code == 200 and text.count('data-testid="word-diff"') == 1
    assert '<del><span class="visually-hidden">' in text and "skrada" in text
    assert "&lt;em&gt;bramę&lt;/em&gt;" in text and "<em>bramę</em>" not in text


def test_a_plan_resubmission_shows_the_scenarios_changes(make_user, make_session):
    gm, moderator = make_user("mg_plan"), make_user("mod_plan", moderator=True)
    session = make_session(gm, status=SessionStatus.DRAFT)
    services.session_plan_submit(session=session, by=gm, scenario="Karawana jedzie przez las.")
    services.session_plan_review(
        session=session, by=moderator, accept=False, comment="Więcej szczegółów."
    )
    services.session_plan_submit(session=session, by=gm, scenario="Karawana płynie przez las.")
    assert PlanSubmission.objects.filter(session=session).count() == 2
    page = logged_in(moderator).get(reverse("diary:session_plan", args=[session.pk]))
    text = page.content.decode()
    assert text.count('data-testid="plan-diff"') == 1
    assert "jedzie" in text and "płynie" in text and "<ins>" in text and "<del>" in text
    assert Post.objects.count() == 0
