"""The recruiting board's filters (rule system, free places, posting pace, language, a
tag), each narrowing the sessions shown and all of them together; a GET form that keeps
what was chosen. The GM sets pace, language and tags in the session's settings; bad tags
are refused next to the field and nothing is stored."""

import pytest
from django.urls import reverse

from characters.systems import RuleSystem
from diary import services
from diary.models import GameSession
from tests.conftest import polish

pytestmark = pytest.mark.django_db

BOARD = "/sessions/recruiting/"


def _settings(session, **changes):
    data = {
        "title": session.title,
        "criticals_enabled": "on",
        "npc_mode": "fixed_modifiers",
        "roll_policy": "gm_only",
        "recruiting": "on",
        "player_slots": str(session.player_slots),
        "language": "pl",
    }
    data.update(changes)
    return data


def test_the_gm_sets_pace_language_and_tags_in_the_settings(table, client_for):
    response = client_for(table.gm).post(
        reverse("diary:session_edit", args=[table.session.pk]),
        _settings(
            table.session,
            posting_pace="every_2_3_days",
            language="en",
            tags=" Horror ,dla   Początkujących, horror,, ",
        ),
    )
    assert response.status_code == 302
    table.session.refresh_from_db()
    assert table.session.posting_pace == "every_2_3_days"
    assert table.session.language == "en"
    assert table.session.tags == "horror,dla początkujących"
    assert table.session.tag_list == ["horror", "dla początkujących"]
    form = client_for(table.gm).get(reverse("diary:session_edit", args=[table.session.pk]))
    page = form.content.decode()
    assert polish("every 2–3 days") == "co 2–3 dni"
    assert "co 2–3 dni" in page
    assert "kilka razy dziennie" in page and "raz w tygodniu" in page and "codziennie" in page


@pytest.mark.parametrize(
    ("tags", "message"),
    [
        (",".join(f"t{n}" for n in range(9)), "Najwyżej 8 tagów"),
        ("horror, " + "x" * 31, "najwyżej 30 znaków"),
        ("hor\x1bror", "znaków sterujących"),
    ],
)
def test_bad_tags_are_refused_next_to_the_field(table, client_for, tags, message):
    response = client_for(table.gm).post(
        reverse("diary:session_edit", args=[table.session.pk]),
        _settings(table.session, tags=tags, posting_pace="daily"),
    )
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert message in " ".join(errors["tags"])
    assert 'id="id_tags_error"' in response.content.decode()
    table.session.refresh_from_db()
    assert table.session.tags == "" and table.session.posting_pace == ""


@pytest.mark.parametrize(("field", "value"), [("posting_pace", "hourly"), ("language", "de")])
def test_an_unknown_pace_or_language_is_refused(table, client_for, field, value):
    response = client_for(table.gm).post(
        reverse("diary:session_edit", args=[table.session.pk]),
        _settings(table.session, **{field: value}),
    )
    assert response.status_code == 200
    assert response.context["form"].errors[field]


@pytest.fixture
def board(make_user, make_character, make_session):
    """Four recruiting sessions that differ in each thing the board filters by."""
    gm = make_user("mistrz")

    def session(title, *, slots, pace, language, tags, system=RuleSystem.FORUM1000):
        s = services.session_create(
            gm=gm,
            title=title,
            description="",
            system=system,
            criticals_enabled=True,
            npc_mode="fixed_modifiers",
            roll_policy="gm_only",
            recruiting=True,
            player_slots=slots,
            posting_pace=pace,
            language=language,
            tags=tags,
        )
        return services.session_transition(session=s, by=gm, to="plan_submitted")

    class Board:
        horror = session("Dom", slots=4, pace="daily", language="pl", tags="horror,mroczna")
        newbies = session(
            "Szkółka", slots=1, pace="weekly", language="pl", tags="dla początkujących"
        )
        english = session("Keep", slots=3, pace="daily", language="en", tags="horror")
        q10 = session("Dziesiątka", slots=2, pace="", language="pl", tags="", system=RuleSystem.Q10)

    Board.all = [Board.horror, Board.newbies, Board.english, Board.q10]
    return Board


def _shown(client, **query) -> set[int]:
    response = client.get(BOARD, query)
    assert response.status_code == 200
    page = response.content.decode()
    return {
        pk
        for pk in GameSession.objects.values_list("pk", flat=True)
        if f'data-testid="recruiting-{pk}"' in page
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({}, {"horror", "newbies", "english", "q10"}),
        ({"system": "q10"}, {"q10"}),
        ({"places": "3"}, {"horror", "english"}),
        ({"places": "1"}, {"horror", "newbies", "english", "q10"}),
        ({"pace": "daily"}, {"horror", "english"}),
        ({"pace": "weekly"}, {"newbies"}),
        ({"language": "en"}, {"english"}),
        ({"tag": "horror"}, {"horror", "english"}),
        ({"tag": "  Dla  Początkujących "}, {"newbies"}),
        ({"tag": "mroczna"}, {"horror"}),
        # A part of a tag is not the tag.
        ({"tag": "hor"}, set()),
        ({"tag": "horror", "language": "pl"}, {"horror"}),
        ({"pace": "daily", "places": "4"}, {"horror"}),
        ({"system": "forum1000", "pace": "weekly", "language": "en"}, set()),
    ],
)
def test_each_filter_narrows_the_board_and_they_combine(
    board, make_user, client_for, query, expected
):
    client = client_for(make_user())
    assert _shown(client, **query) == {getattr(board, name).pk for name in expected}


def test_the_form_keeps_the_choices_and_the_cards_show_pace_language_and_tags(
    board, make_user, client_for
):
    page = client_for(make_user()).get(BOARD, {"pace": "daily", "tag": "horror", "places": "2"})
    html = page.content.decode()
    assert '<option value="daily" selected>' in html
    assert 'name="tag" value="horror"' in html
    assert 'name="places" value="2"' in html
    card = html[html.index(f'data-testid="recruiting-{board.english.pk}"') :]
    assert ">codziennie<" in card
    assert polish("English") in card
    assert f'href="{BOARD}?tag=horror"' in card


@pytest.mark.parametrize(
    ("field", "value"),
    [("places", "0"), ("places", "dużo"), ("pace", "hourly"), ("language", "xx")],
)
def test_a_bad_filter_is_said_next_to_its_field(board, make_user, client_for, field, value):
    response = client_for(make_user()).get(BOARD, {field: value})
    assert response.status_code == 400
    assert f'id="id_{field}_error"' in response.content.decode()


def test_the_join_page_says_pace_language_and_tags(board, make_user, client_for):
    page = client_for(make_user()).get(reverse("diary:session_join", args=[board.english.pk]))
    html = page.content.decode()
    assert 'data-testid="posting-pace">codziennie<' in html
    assert f'data-testid="language">{polish("English")}<' in html
    assert 'data-testid="tags">horror<' in html
