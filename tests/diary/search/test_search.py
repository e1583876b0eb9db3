"""Search: who finds what, what a result shows, and bad input never a 500.

Run on both databases: PostgreSQL's full text (unaccent, prefixes, websearch syntax) has the
tests marked postgres_only; everything else holds for the SQLite fallback too."""

import re

import pytest
from django.urls import reverse

from diary import services as diary_services
from diary.models import Participation, ParticipationStatus, Post
from diary.search.selectors import fold, parse_query
from tests.conftest import polish

pytestmark = pytest.mark.django_db

SEARCH = reverse("diary:search")


def write(session, author, narration, *, character=None, nc_note=""):
    return diary_services.post_create(
        session=session, author=author, character=character, narration=narration, nc_note=nc_note
    )


def found(client, query, **params):
    response = client.get(SEARCH, {"q": query, **params})
    assert response.status_code == 200
    return response, [post.pk for post in response.context["page"] or []]


@pytest.fixture
def other_table(make_user, make_character, make_session):
    """A second running session none of `table`'s players is in."""
    gm = make_user("inny_mg")
    carol = make_user("celina")
    session = make_session(gm, [make_character(carol, "Cyra")], title="Cudza sesja")
    return gm, carol, session


# --- Who finds what ---


def test_a_player_finds_a_post_of_their_session_and_its_details(table, client_for):
    post = write(table.session, table.bob, "Borys widzi smoka nad rzeką.", character=table.borys)
    response, pks = found(client_for(table.alice), "smoka")
    assert pks == [post.pk]
    html = response.content.decode()
    assert reverse("diary:post_link", args=[post.pk]) in html
    assert "Borys" in html and table.session.title in html
    assert "<mark>smoka</mark>" in html


def test_nothing_from_a_session_the_user_may_not_read(table, other_table, client_for):
    _gm, carol, session = other_table
    cyra = session.participations.get().character
    write(session, carol, "Cyra znajduje smoka w jaskini.", character=cyra)
    for user in (table.alice, table.gm, table.outsider):
        _response, pks = found(client_for(user), "smoka")
        assert pks == [], user


def test_the_gm_and_the_moderator_find_it_but_an_outsider_does_not(table, client_for):
    post = write(table.session, table.alice, "Lirael nuci pieśń o gryfie.", character=table.lirael)
    assert found(client_for(table.gm), "gryfie")[1] == [post.pk]
    assert found(client_for(table.moderator), "gryfie")[1] == [post.pk]
    assert found(client_for(table.outsider), "gryfie")[1] == []


def test_an_invited_character_opens_the_diary_to_search_but_a_request_does_not(
    table, make_user, make_character, client_for
):
    post = write(table.session, table.gm, "Mistrz gry opisuje wieżę zegarową.")
    invited = make_character(make_user("zaproszona"), "Iwa")
    diary_services.participation_invite(session=table.session, by=table.gm, character=invited)
    asking = make_character(make_user("prosi"), "Ulf")
    Participation.objects.create(
        session=table.session, character=asking, status=ParticipationStatus.REQUESTED
    )
    assert found(client_for(invited.owner), "zegarową")[1] == [post.pk]
    assert found(client_for(asking.owner), "zegarową")[1] == []


def test_a_withdrawn_player_finds_nothing_any_more(table, client_for):
    write(table.session, table.gm, "Karczma pod Złotym Dzikiem.")
    participation = table.session.participations.get(character=table.borys)
    diary_services.participation_withdraw(participation=participation, by=table.bob)
    assert found(client_for(table.bob), "Dzikiem")[1] == []


def test_a_hidden_post_is_found_only_by_a_moderator(table, client_for):
    post = write(table.session, table.bob, "Obraźliwy tekst o trollu.", character=table.borys)
    diary_services.post_hide(post=post, by=table.moderator, reason="obraza")
    for user in (table.alice, table.bob, table.gm):
        assert found(client_for(user), "trollu")[1] == [], user
    response, pks = found(client_for(table.moderator), "trollu")
    assert pks == [post.pk]
    assert polish("hidden") in response.content.decode()


def test_the_nc_note_is_found_by_those_who_read_the_post(table, client_for):
    post = write(
        table.session, table.alice, "Idzie.", character=table.lirael, nc_note="Pytanie o mapę"
    )
    response, pks = found(client_for(table.bob), "mapę")
    assert pks == [post.pk]
    assert "<mark>mapę</mark>" in response.content.decode()


def test_search_within_one_session(table, make_session, client_for):
    second = make_session(table.gm, title="Druga sesja")
    here = write(table.session, table.gm, "Wilk wyje w pierwszej.")
    there = write(second, table.gm, "Wilk wyje w drugiej.")
    client = client_for(table.gm)
    assert set(found(client, "Wilk")[1]) == {here.pk, there.pk}
    assert found(client, "Wilk", session=table.session.pk)[1] == [here.pk]
    assert found(client, "Wilk", session=second.pk)[1] == [there.pk]


def test_another_session_given_by_id_is_an_error_not_its_posts(table, other_table, client_for):
    _gm, carol, session = other_table
    write(session, carol, "Tajemny wilk.", character=session.participations.get().character)
    response = client_for(table.alice).get(SEARCH, {"q": "wilk", "session": session.pk})
    assert response.status_code == 200
    assert response.context["page"] is None
    assert polish("Choose one of your sessions.") in response.content.decode()
    assert session.title not in response.content.decode()


def test_the_session_picker_lists_only_readable_sessions(table, other_table, client_for):
    html = client_for(table.alice).get(SEARCH).content.decode()
    assert table.session.title in html
    assert other_table[2].title not in html


def test_anonymous_is_sent_to_log_in(client):
    response = client.get(SEARCH, {"q": "smok"})
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_results_are_paged(table, client_for):
    for number in range(23):
        write(table.session, table.gm, f"Kruk numer {number}.")
    client = client_for(table.gm)
    first = client.get(SEARCH, {"q": "Kruk"})
    assert len(first.context["page"].object_list) == 20
    assert first.context["page"].paginator.count == 23
    second = client.get(SEARCH, {"q": "Kruk", "page": 2})
    assert len(second.context["page"].object_list) == 3
    assert "page=2" in first.content.decode()


def test_turn_number_is_shown(table, client_for):
    diary_services.turn_open_next(session=table.session, by=table.gm)
    diary_services.turn_open_next(session=table.session, by=table.gm)
    post = write(table.session, table.gm, "Trzecia tura: burza.")
    assert post.turn.number == 3
    html = found(client_for(table.alice), "burza")[0].content.decode()
    assert polish("turn %(number)s", number=3) in html


def test_the_permalink_of_a_result_lands_on_the_post(table, client_for):
    post = write(table.session, table.gm, "Latarnia gaśnie.")
    client = client_for(table.alice)
    response = client.get(reverse("diary:post_link", args=[post.pk]))
    assert response.status_code == 302
    assert f"#post-{post.pk}" in response["Location"]


def test_the_search_boxes_are_in_the_header_and_the_diary_sidebar(table, client_for):
    client = client_for(table.alice)
    home = client.get(reverse("home")).content.decode()
    assert 'data-testid="header-search"' in home
    diary = client.get(reverse("diary:session", args=[table.session.pk])).content.decode()
    assert 'data-testid="session-search"' in diary
    assert f'name="session" value="{table.session.pk}"' in diary


# --- Bad input: a clear Polish error next to the field, never a 500 ---


def test_an_empty_query_asks_for_a_word(table, client_for):
    response = client_for(table.alice).get(SEARCH, {"q": "   "})
    assert response.status_code == 200
    assert response.context["page"] is None
    assert polish("Type a word to search for.") in response.content.decode()


def test_the_page_without_a_query_shows_the_form_and_no_error(table, client_for):
    response = client_for(table.alice).get(SEARCH)
    assert response.status_code == 200
    assert response.context["page"] is None
    assert 'class="error"' not in response.content.decode()


def test_a_too_long_query_is_an_error_next_to_the_field(table, client_for):
    response = client_for(table.alice).get(SEARCH, {"q": "a" * 201})
    assert response.status_code == 200
    assert response.context["page"] is None
    html = response.content.decode()
    assert 'id="id_q_error"' in html
    assert polish("Keep the search to %(limit_value)d characters at most.", limit_value=200) in html


@pytest.mark.parametrize("query", ["%", "_", "\\", "'", "--", "&|!:*()<>"])
def test_a_query_of_no_words_is_an_error(table, client_for, query):
    write(table.session, table.gm, "100% _ \\ ' -- & | ! : * ( ) < >")
    response = client_for(table.alice).get(SEARCH, {"q": query})
    assert response.status_code == 200
    assert response.context["page"] is None
    assert polish("Search for at least one word of letters or digits.") in response.content.decode()


def test_sql_in_the_query_is_only_text(table, client_for):
    post = write(table.session, table.gm, "Napis na murze: DROP TABLE diary_post.")
    other = write(table.session, table.gm, "Zwykły post.")
    query = "'; DROP TABLE diary_post; --"
    _response, pks = found(client_for(table.alice), query)
    assert pks == [post.pk]
    assert Post.objects.filter(pk=other.pk).exists()


@pytest.mark.parametrize("query", ["smok%", "smok_", "smok\\", "%smok%", "_smok"])
def test_like_wildcards_are_no_wildcards(table, client_for, query):
    dragon = write(table.session, table.gm, "Smok śpi.")
    write(table.session, table.gm, "Zupełnie inny tekst.")
    assert found(client_for(table.alice), query)[1] == [dragon.pk]


def test_html_in_the_query_is_escaped_in_the_form_and_the_results(table, client_for):
    post = write(table.session, table.gm, "Widzę <script>alert(1)</script> na murze & dalej.")
    query = "<script>alert(1)</script>"
    response, pks = found(client_for(table.alice), query)
    assert pks == [post.pk]
    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html
    assert 'value="&lt;script&gt;alert(1)&lt;/script&gt;"' in html
    assert "&lt;<mark>script</mark>&gt;" in html
    assert "&amp; dalej" in html


def test_a_nul_byte_is_an_error_not_a_500(table, client_for):
    response = client_for(table.alice).get(SEARCH, {"q": "smok\x00"})
    assert response.status_code == 200
    assert response.context["page"] is None
    assert response.context["form"].errors["q"]


@pytest.mark.parametrize("session", ["abc", "-1", "99999999999999999999999", "1.5", "\x00"])
def test_a_bad_session_is_an_error(table, client_for, session):
    response = client_for(table.alice).get(SEARCH, {"q": "smok", "session": session})
    assert response.status_code == 200
    assert response.context["page"] is None
    assert response.context["form"].errors["session"]
    assert 'id="id_session_error"' in response.content.decode()


@pytest.mark.parametrize("page", ["0", "-3", "abc", "99999999999999999999"])
def test_a_bad_page_number_is_a_page_not_a_500(table, client_for, page):
    write(table.session, table.gm, "Sowa.")
    response = client_for(table.alice).get(SEARCH, {"q": "Sowa", "page": page})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "query", ['"', '"smok', "-", "- -", "or", "smok or", "or or or", '-"a b"', "!!! smok"]
)
def test_websearch_operators_never_fail(table, client_for, query):
    write(table.session, table.gm, "Smok śpi.")
    response = client_for(table.alice).get(SEARCH, {"q": query})
    assert response.status_code == 200


def test_excluding_a_word(table, client_for):
    both = write(table.session, table.gm, "Smok i rycerz.")
    dragon = write(table.session, table.gm, "Sam smok.")
    assert set(found(client_for(table.alice), "smok")[1]) == {both.pk, dragon.pk}
    assert found(client_for(table.alice), "smok -rycerz")[1] == [dragon.pk]


def test_every_word_must_be_there(table, client_for):
    both = write(table.session, table.gm, "Smok i rycerz.")
    write(table.session, table.gm, "Sam smok.")
    assert found(client_for(table.alice), "smok rycerz")[1] == [both.pk]


def test_the_post_method_is_refused(table, client_for):
    assert client_for(table.alice).post(SEARCH, {"q": "smok"}).status_code == 405


# --- PostgreSQL's full text ---


def test_words_are_found_without_their_accents_and_case(table, client_for):
    post = write(table.session, table.gm, "Na brzegu leży wielki żółw.")
    response, pks = found(client_for(table.alice), "zolw")
    assert pks == [post.pk]
    assert "<mark>żółw</mark>" in response.content.decode()
    assert found(client_for(table.alice), "ŻÓŁW")[1] == [post.pk]


def test_a_word_finds_its_inflected_forms_as_a_prefix(table, client_for):
    post = write(table.session, table.gm, "Lirael podchodzi do żółwia i głaszcze go.")
    response, pks = found(client_for(table.alice), "żółw")
    assert pks == [post.pk]
    assert "<mark>żółwia</mark>" in response.content.decode()


@pytest.mark.postgres_only
def test_postgres_websearch_phrase_and_or(table, client_for):
    phrase = write(table.session, table.gm, "Czarny kot przebiegł drogę.")
    apart = write(table.session, table.gm, "Kot był czarny jak noc.")
    owl = write(table.session, table.gm, "Sowa pohukuje.")
    client = client_for(table.alice)
    assert found(client, '"czarny kot"')[1] == [phrase.pk]
    assert set(found(client, "sowa or kot")[1]) == {phrase.pk, apart.pk, owl.pk}


@pytest.mark.postgres_only
def test_postgres_ranks_the_better_match_first(table, client_for):
    once = write(table.session, table.gm, "Smok.  Potem długo nic, las, rzeka, góry i doliny.")
    many = write(table.session, table.gm, "Smok, smok i jeszcze raz smok.")
    assert found(client_for(table.alice), "smok")[1] == [many.pk, once.pk]


@pytest.mark.postgres_only
def test_postgres_has_the_search_configuration():
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT to_tsvector('codziennik_search', 'Żółw Łódź')::text")
        assert cursor.fetchone()[0] == "'lodz':2 'zolw':1"


def crowd_the_session(table) -> None:
    """Enough posts in the session that its own index is no way to find one word: a plan
    then says which index finds it, not which a tiny table happened to favour."""
    from django.db import connection

    from tests.scale import fill_bulk

    fill_bulk(table, 3000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE diary_post")


def search_plan(query) -> str:
    """PostgreSQL's plan for a search's queryset, with only the scans an index may do."""
    from django.db import connection

    sql, params = query.query.sql_with_params()
    with connection.cursor() as cursor:
        # Without these the planner may walk any btree whole instead (a full index scan is
        # no index use); GIN is read by a bitmap scan, which stays allowed.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_indexscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.postgres_only
def test_postgres_searches_through_the_gin_index(table):
    """The index of migration 0012 is on the very expression the search uses."""
    from diary.search.selectors import posts_matching

    write(table.session, table.gm, "Smok śpi.")
    plan = search_plan(posts_matching(table.moderator, "smok"))
    assert "diary_post_search" in plan, plan


@pytest.mark.postgres_only
def test_postgres_searches_a_players_posts_through_both_gin_indexes(table):
    """A player searches the narration without the parts for chosen eyes where they may not
    read every part, and the whole of it where they may: each through its own index."""
    from diary.search.selectors import posts_matching

    crowd_the_session(table)
    write(table.session, table.gm, "Smok śpi.")
    plan = search_plan(posts_matching(table.alice, "smok"))
    assert "diary_post_search_public" in plan, plan
    assert re.search(r"diary_post_search\b(?!_)", plan), plan


# --- The helpers ---


def test_fold_keeps_one_character_for_one():
    assert fold("Żółw Łódź ąęść") == "zolw lodz aesc"
    assert len(fold("Ǆ ﬁ ŁŻ")) == len("Ǆ ﬁ ŁŻ")


def test_parse_query_finds_words_exclusions_and_websearch():
    parsed = parse_query('smok -rycerz "stara wieża" or kot')
    assert parsed.wanted == ("smok", "stara", "wieża", "kot")
    assert parsed.excluded == ("rycerz",)
    assert parsed.websearch
    assert not parse_query("żółw smok").websearch
    assert parse_query("'; DROP TABLE diary_post; --").wanted == ("DROP", "TABLE", "diary", "post")
