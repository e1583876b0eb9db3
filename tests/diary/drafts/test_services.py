"""Drafts as the services keep them: one per author and place, emptied by an empty text,
refused to whoever may no longer write there, and gone with the post, message or plan they
became, in the same transaction (never when the write is refused)."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied, ValidationError

from diary import services
from diary.drafts import services as draft_services
from diary.drafts.selectors import draft_for
from diary.models import Draft, DraftPlace, SessionStatus
from diary.talk import services as talk_services
from tests.conftest import polish
from tests.diary.drafts.conftest import place

pytestmark = pytest.mark.django_db


def test_one_draft_per_author_and_place_holds_the_last_text(table):
    where = place(table.alice, table.session)
    draft_services.draft_save(place=where, author=table.alice, text="Pierwsza wersja")
    saved = draft_services.draft_save(
        place=where, author=table.alice, text="Druga wersja", note="rzut?", character=table.lirael
    )
    assert Draft.objects.count() == 1
    draft = draft_for(table.alice, table.session, DraftPlace.POST)
    assert (draft.pk, draft.text, draft.note, draft.character) == (
        saved.pk,
        "Druga wersja",
        "rzut?",
        table.lirael,
    )
    # Another place, another author: drafts of their own.
    draft_services.draft_save(
        place=place(table.alice, table.session, "ooc"), author=table.alice, text="Poza grą"
    )
    draft_services.draft_save(place=place(table.bob, table.session), author=table.bob, text="B")
    assert Draft.objects.count() == 3
    assert draft_for(table.bob, table.session, DraftPlace.POST).text == "B"


def test_an_empty_text_leaves_no_draft(table):
    where = place(table.alice, table.session)
    draft_services.draft_save(place=where, author=table.alice, text="Coś")
    assert draft_services.draft_save(place=where, author=table.alice, text="  \n") is None
    assert not Draft.objects.exists()


def test_only_the_authors_own_character_is_kept(table):
    draft = draft_services.draft_save(
        place=place(table.alice, table.session),
        author=table.alice,
        text="Jako Borys?",
        character=table.borys,
    )
    assert draft.character is None


def test_a_finished_session_refuses_the_draft_in_words(table):
    services.session_transition(session=table.session, by=table.gm, to=SessionStatus.FINISHED)
    table.session.refresh_from_db()
    with pytest.raises(PermissionDenied) as refusal:
        draft_services.draft_save(
            place=place(table.alice, table.session), author=table.alice, text="Za późno"
        )
    assert str(refusal.value) == polish(
        "You can no longer post in this session (it is finished, or you no longer play in it), "
        "so the draft is not kept. Copy your text if you need it."
    )
    assert not Draft.objects.exists()


def test_a_player_who_left_may_not_keep_a_draft(table):
    participation = table.session.participations.get(character=table.lirael)
    services.participation_withdraw(participation=participation, by=table.alice)
    with pytest.raises(PermissionDenied):
        draft_services.draft_save(
            place=place(table.alice, table.session), author=table.alice, text="Jeszcze jedno"
        )


def test_posting_deletes_the_post_draft_and_no_other(table):
    draft_services.draft_save(place=place(table.alice, table.session), author=table.alice, text="W")
    draft_services.draft_save(
        place=place(table.alice, table.session, "ooc"), author=table.alice, text="OOC"
    )
    draft_services.draft_save(place=place(table.bob, table.session), author=table.bob, text="B")
    services.post_create(
        session=table.session,
        author=table.alice,
        character=table.lirael,
        narration="Wchodzę.",
        nc_note="",
        token=uuid.uuid4(),
    )
    assert sorted(Draft.objects.values_list("author__username", "place")) == [
        ("alicja", "ooc"),
        ("bartek", "post"),
    ]


def test_a_refused_post_keeps_its_draft(table):
    draft_services.draft_save(place=place(table.alice, table.session), author=table.alice, text="W")
    with pytest.raises(ValidationError):
        # Empty: refused, so the draft the author still needs stays.
        services.post_create(
            session=table.session,
            author=table.alice,
            character=table.lirael,
            narration="",
            nc_note="",
            token=uuid.uuid4(),
        )
    assert Draft.objects.filter(author=table.alice, place=DraftPlace.POST).exists()


def test_a_message_deletes_its_threads_draft(table, whisper_thread):
    ooc = place(table.alice, table.session, "ooc")
    whisper = place(table.alice, table.session, f"whisper-{whisper_thread.pk}")
    draft_services.draft_save(place=ooc, author=table.alice, text="OOC")
    draft_services.draft_save(place=whisper, author=table.alice, text="Szept")
    talk_services.whisper_message_create(
        thread=whisper_thread, author=table.alice, text="Szept", token=uuid.uuid4()
    )
    assert list(Draft.objects.values_list("place", flat=True)) == ["ooc"]
    talk_services.ooc_message_create(
        session=table.session, author=table.alice, text="OOC", token=uuid.uuid4()
    )
    assert not Draft.objects.exists()


def test_saving_the_plan_deletes_its_draft(make_user, make_session):
    gm = make_user("planista")
    session = make_session(gm, status=SessionStatus.DRAFT)
    draft_services.draft_save(place=place(gm, session, "plan"), author=gm, text="Wilki")
    services.session_plan_update(session=session, by=gm, scenario="Wilki przy brodzie.")
    assert not Draft.objects.exists()


def test_discarding_deletes_only_the_authors_draft(table):
    draft_services.draft_save(place=place(table.alice, table.session), author=table.alice, text="A")
    draft_services.draft_save(place=place(table.bob, table.session), author=table.bob, text="B")
    draft_services.draft_discard(place=place(table.alice, table.session), author=table.alice)
    assert list(Draft.objects.values_list("text", flat=True)) == ["B"]
