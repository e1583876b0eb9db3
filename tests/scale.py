"""A big session, fast: the `table` fixture's running forum1000 session filled with N posts
spread over turns in one INSERT … SELECT, then a newest page as play leaves it, made
through the real services (posts, rolls, a request for a roll, a GM's diary entry, a hidden
post), so the page under test shows what a real page shows and the chain stays a real one.

100 k posts build in seconds on PostgreSQL: the bulk part is two statements the database
runs itself, without the per-post lock, revision and activity bump of post_create."""

from contextlib import contextmanager

from django.db import connection
from django.utils import timezone

from characters.models import Skill, Trait
from characters.systems import RuleSystem
from config.markdown import render_narration
from diary.models import GameSession, Post, PostRevision, Turn
from diary.services import post_create, post_hide
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.diary_entries import hp_entry
from tests.rolling import ask_roll, make_roll


def _skill(name: str) -> int:
    return Skill.objects.get(system=RuleSystem.FORUM1000, name=name).pk


def _trait(name: str) -> int:
    return Trait.objects.get(system=RuleSystem.FORUM1000, name=name).pk


# One INSERT … SELECT over a counter (a recursive CTE, the same SQL on SQLite and
# PostgreSQL): the rows are made by the database, not built one by one in Python (the ORM's
# bulk_create spent 40 s preparing 200 k rows' values).
_POSTS = """
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < %s)
INSERT INTO {post} (session_id, turn_id, author_id, character_id, narration, narration_html,
                    nc_note, move_metres, move_mounted, move_actions, version, created_at,
                    hidden_reason)
SELECT %s, t.id,
       CASE WHEN n.i %% 5 = 4 THEN %s WHEN n.i %% 2 = 0 THEN %s ELSE %s END,
       CASE WHEN n.i %% 5 = 4 THEN NULL WHEN n.i %% 2 = 0 THEN %s ELSE %s END,
       'Wpis ' || n.i || ' *ze skali*: drużyna idzie dalej.', %s, '', NULL, %s, 0, 1, %s, ''
FROM n JOIN {turn} t ON t.session_id = %s AND t.number = %s + n.i / %s
ORDER BY n.i
"""
_REVISIONS = """
INSERT INTO {revision} (post_id, version, narration, nc_note, character_id, move_metres,
                        move_mounted, written_by_id, written_at)
SELECT id, 1, narration, '', character_id, NULL, %s, author_id, created_at
FROM {post} WHERE session_id = %s AND id > %s
"""


@contextmanager
def foreign_keys_unchecked():
    """On PostgreSQL (as a superuser, as scripts/with-postgres connects), the rows written
    inside queue no foreign-key checks. The bulk rows of these helpers name rows that exist
    by construction, and the test's end would otherwise check each of them again (Django's
    test case sets every deferred constraint IMMEDIATE before its rollback): at 100 k posts
    that check ran for more than 20 minutes, for no test's benefit. The rows the services
    write afterwards are checked as ever. Only the foreign keys' triggers are off: the
    ledger's own triggers guard updates and deletes, which these inserts are not."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('is_superuser') = 'on'")
        superuser = cursor.fetchone()[0]
        if superuser:
            cursor.execute("SET LOCAL session_replication_role = replica")
    yield
    if superuser:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = DEFAULT")


def fill_bulk(table, posts: int, *, per_turn: int = 50) -> None:
    """`posts` posts by the two players (every fifth by the GM, as no one), `per_turn` to a
    turn, after the turns the session already has; each with its first revision."""
    if posts <= 0:
        return
    session = table.session
    first = Turn.objects.filter(session=session).order_by("-number").first().number + 1
    turns = Turn.objects.bulk_create(
        Turn(session=session, number=first + n, opened_by=table.gm)
        for n in range((posts + per_turn - 1) // per_turn)
    )
    # The session's head names its current turn, as turn_open_next keeps it.
    newest = Turn.objects.get(session=session, number=turns[-1].number)
    GameSession.objects.filter(pk=session.pk).update(current_turn=newest)
    session.current_turn = newest
    last = Post.objects.filter(session=session).order_by("-id").values_list("id", flat=True)
    before = last.first() or 0
    names = {
        "post": Post._meta.db_table,
        "turn": Turn._meta.db_table,
        "revision": PostRevision._meta.db_table,
    }
    html = render_narration("Wpis *ze skali*: drużyna idzie dalej.")
    with foreign_keys_unchecked(), connection.cursor() as cursor:
        cursor.execute(
            _POSTS.format(**names),
            [
                posts,
                session.pk,
                table.gm.pk,
                table.alice.pk,
                table.bob.pk,
                table.lirael.pk,
                table.borys.pk,
                html,
                False,
                timezone.now(),
                session.pk,
                first,
                per_turn,
            ],
        )
        cursor.execute(_REVISIONS.format(**names), [False, session.pk, before])


def play_newest_page(table) -> dict:
    """The newest page as play leaves it, through the services: narration, a request for a
    roll, the GM's answering roll, a plain roll, an opposed roll, an HP entry and a hidden
    post. Returns what a test may look for."""
    session, gm = table.session, table.gm
    borys_post = post_create(
        session=session, author=table.bob, character=table.borys, narration="Zamek.", nc_note=""
    )
    picklock = SideRequest(table.borys.pk, "skill", skill_id=_skill("Otwieranie zamków"))
    ask = ask_roll(session, table.bob, picklock, post=borys_post)
    answer = make_roll(session, gm, RollRequest(kind="skill", a=picklock), answers=ask).roll
    post_create(
        session=session,
        author=table.alice,
        character=table.lirael,
        narration="Uśmiech.",
        nc_note="",
    )
    charm = SideRequest(
        table.lirael.pk,
        "skill",
        skill_id=_skill("Uwodzenie"),
        trait_ids=(_trait("Seksapil"),),
    )
    plain = make_roll(session, gm, RollRequest(kind="skill", a=charm)).roll
    hp_entry(session, gm, table.borys, -10, reason="Pułapka")
    secret = post_create(
        session=session,
        author=table.alice,
        character=table.lirael,
        narration="Tajemnica Lirael.",
        nc_note="",
    )
    post_hide(post=secret, by=gm, reason="Spoiler")
    post_create(session=session, author=gm, character=None, narration="Noc zapada.", nc_note="")
    return {"ask": ask, "answer": answer, "plain": plain, "hidden": secret}


def build(table, posts: int, *, per_turn: int = 50) -> dict:
    """`posts` posts in all: the bulk part, then the newest page played (six posts, one of
    them the GM's post holding the rolls)."""
    fill_bulk(table, max(posts - 6, 0), per_turn=per_turn)
    return play_newest_page(table)
