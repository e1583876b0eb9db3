"""A big session, fast: the `table` fixture's running forum1000 session filled with N posts
spread over turns by bulk_create, then a newest page as play leaves it, made through the real
services (posts, rolls, a request for a roll, a GM's diary entry, a hidden post), so the page
under test shows every kind of thing a real page shows and the chain stays a real chain.

100 k posts build in seconds on PostgreSQL: the bulk part writes rows in batches, without
the per-post lock, revision and activity bump that post_create does one by one."""

import uuid

from characters.models import Skill, Trait
from characters.systems import RuleSystem
from diary.markdown import render_narration
from diary.models import Post, PostRevision, Turn
from diary.services import post_create, post_hide
from rolls.requests import RollRequest, SideRequest
from rolls.services import roll_ask_create, roll_make
from tests.diary_entries import hp_entry

BATCH = 5_000


def _skill(name: str) -> int:
    return Skill.objects.get(system=RuleSystem.FORUM1000, name=name).pk


def _trait(name: str) -> int:
    return Trait.objects.get(system=RuleSystem.FORUM1000, name=name).pk


def fill_bulk(table, posts: int, *, per_turn: int = 50) -> None:
    """`posts` posts by the two players (every fifth by the GM, as no one), `per_turn` to a
    turn, after the turns the session already has; each with its first revision."""
    session = table.session
    first = Turn.objects.filter(session=session).order_by("-number").first().number + 1
    turns = Turn.objects.bulk_create(
        Turn(session=session, number=first + n, opened_by=table.gm)
        for n in range((posts + per_turn - 1) // per_turn)
    )
    if not turns[0].pk:  # SQLite before RETURNING: read the ids back
        turns = list(Turn.objects.filter(session=session, number__gte=first).order_by("number"))
    writers = [(table.alice, table.lirael), (table.bob, table.borys)]
    html = render_narration("Wpis *ze skali*: drużyna idzie dalej.")
    for start in range(0, posts, BATCH):
        rows = []
        for n in range(start, min(start + BATCH, posts)):
            author, character = (table.gm, None) if n % 5 == 4 else writers[n % 2]
            rows.append(
                Post(
                    session=session,
                    turn=turns[n // per_turn],
                    author=author,
                    character=character,
                    narration=f"Wpis {n} *ze skali*: drużyna idzie dalej.",
                    narration_html=html,
                )
            )
        made = Post.objects.bulk_create(rows)
        if not made[0].pk:
            made = list(Post.objects.filter(session=session).order_by("-id")[: len(rows)])[::-1]
        PostRevision.objects.bulk_create(
            PostRevision(
                post=post,
                version=1,
                narration=post.narration,
                character=post.character,
                written_by=post.author,
            )
            for post in made
        )


def play_newest_page(table) -> dict:
    """The newest page as play leaves it, through the services: narration, a request for a
    roll, the GM's answering roll, a plain roll, an opposed roll, an HP entry and a hidden
    post. Returns what a test may look for."""
    session, gm = table.session, table.gm
    borys_post = post_create(
        session=session, author=table.bob, character=table.borys, narration="Zamek.", nc_note=""
    )
    picklock = SideRequest(table.borys.pk, "skill", skill_id=_skill("Otwieranie zamków"))
    ask = roll_ask_create(session=session, by=table.bob, side=picklock, post=borys_post)
    answer = roll_make(
        session=session,
        by=gm,
        request=RollRequest(kind="skill", a=picklock),
        token=uuid.uuid4(),
        answers=ask,
    ).roll
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
    plain = roll_make(
        session=session, by=gm, request=RollRequest(kind="skill", a=charm), token=uuid.uuid4()
    ).roll
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
