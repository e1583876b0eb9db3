"""The HTTP benchmark's database (bench/http_bench.py), built from inside Django.

Users, characters and running forum1000 sessions go through the services the pages use
(as tests/load/server_db.py does); the bulk of the big session's diary, which no service
makes fast, is written with bulk_create in past turns, and the newest turn is opened and
posted in through the services again, so whatever the services keep up to date (the
activity marker, the turn) is as the site leaves it.
"""

from __future__ import annotations

import uuid

PASSWORD = "Benchmark-Codziennika-1000"
POSTS_PER_TURN = 100
BATCH = 5000

# A few narrations of a realistic length, with Markdown, rendered once each.
NARRATIONS = [
    "Mgła gęstnieje nad brodem. **Wartownik** unosi latarnię i woła coś, czego nikt nie "
    "rozumie; konie parskają niespokojnie, a w oddali słychać plusk wioseł.",
    "Przeszukuję juki po raz drugi. Mapa jest wilgotna, ale *czytelna*: ścieżka skręca na "
    "północ, za starym młynem.\n\n- lina\n- dwie pochodnie\n- suchary na trzy dni",
    "Cisza. Tylko wiatr w trzcinach i skrzypienie mostu. Czekam, aż reszta drużyny "
    "przejdzie na drugi brzeg, i dopiero wtedy ruszam za nimi.",
    "> Kto idzie?\n\nOdpowiadam spokojnie, że jesteśmy kupcami z Dolnej Wsi, i pokazuję "
    "glejt z pieczęcią burmistrza.",
]


def seed(*, posts: int, spread: int) -> dict:
    """The big session (`posts` posts, a player and the GM) and `spread` more sessions the
    GM rolls in; returns ids for the benchmark (no secrets but the shared password)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.db import connection

    from characters.models import Attribute
    from characters.systems import RuleSystem
    from config.markdown import render_narration
    from diary import services as diary_services
    from diary.models import Post, PostRevision, Turn
    from tests.seeding import (
        forum1000_character,
        moderator,
        running_forum1000_session,
        user_who_logs_in,
    )

    users = get_user_model().objects
    password_hash = make_password(PASSWORD)  # one PBKDF2 hash for everyone who logs in
    attributes = list(Attribute.objects.filter(system=RuleSystem.FORUM1000).order_by("pk"))
    gm = user_who_logs_in("mg", password_hash)
    player = user_who_logs_in("gracz", password_hash)
    accepts_plans = moderator()
    character = forum1000_character

    def running_session(title, cast):
        return running_forum1000_session(gm, accepts_plans, title, cast)

    def companion(n):
        owner = users.create_user(username=f"towarzysz{n}")  # only the GM rolls for it
        return owner, character(owner, f"Towarzysz {n}")

    hero = character(player, "Bohater gracza")
    big_companion = companion(0)
    big = running_session("Kronika stu tysięcy wpisów", [(player, hero), big_companion])
    spread_sessions = []
    for n in range(1, spread + 1):
        owner, sheet = companion(n)
        spread_sessions.append((running_session(f"Rozproszenie {n}", [(owner, sheet)]), sheet))

    # The past: turns 2.. and their posts in bulk (turn 1 came with the running session).
    rendered = [(text, render_narration(text)) for text in NARRATIONS]
    turns = max(1, posts // POSTS_PER_TURN)
    Turn.objects.bulk_create(
        Turn(session=big, number=number, opened_by=gm) for number in range(2, turns + 1)
    )
    turn_ids = dict(big.turns.values_list("number", "pk"))
    made = 0
    while made < posts - 2:  # the last two through the services, below
        batch = []
        for n in range(made, min(posts - 2, made + BATCH)):
            text, html = rendered[n % len(rendered)]
            by_player = n % 3 != 0
            batch.append(
                Post(
                    session=big,
                    turn_id=turn_ids[min(turns, 1 + n // POSTS_PER_TURN)],
                    author=player if by_player else gm,
                    character=hero if by_player else None,
                    narration=text,
                    narration_html=html,
                )
            )
        created = Post.objects.bulk_create(batch)
        PostRevision.objects.bulk_create(
            PostRevision(
                post=post,
                version=1,
                narration=post.narration,
                character=post.character,
                written_by=post.author,
            )
            for post in created
        )
        made += len(batch)
    # The present: a new turn and two posts, as the site makes them.
    diary_services.turn_open_next(session=big, by=gm)
    for author, sheet in [(gm, None), (player, hero)]:
        diary_services.post_create(
            session=big,
            author=author,
            character=sheet,
            narration=NARRATIONS[0],
            nc_note="",
            token=uuid.uuid4(),
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {
        "password": PASSWORD,
        "gm": gm.username,
        "player": player.username,
        "attribute": attributes[0].pk,
        "big": {"session": big.pk, "character": big_companion[1].pk, "posts": posts},
        "spread": [{"session": s.pk, "character": sheet.pk} for s, sheet in spread_sessions],
    }


def issue_tokens(username: str, session_ids: list[int], count: int) -> list[tuple[int, str]]:
    """`count` panel tokens for this user, round-robin over the sessions (index, token)."""
    from django.contrib.auth import get_user_model

    from diary.models import GameSession
    from rolls.access import issue_token

    user = get_user_model().objects.get(username=username)
    sessions = list(GameSession.objects.filter(pk__in=session_ids))
    by_id = {s.pk: s for s in sessions}
    ordered = [by_id[pk] for pk in session_ids]
    return [(n % len(ordered), issue_token(user, ordered[n % len(ordered)])) for n in range(count)]


def rolls_after(session_ids: list[int], after_id: int) -> tuple[int, list[str]]:
    """The newest roll id and the tokens of the rolls stored after `after_id`."""
    from django.db.models import Max

    from rolls.models import Roll

    rolls = Roll.objects.filter(session_id__in=session_ids)
    newest = rolls.aggregate(newest=Max("pk"))["newest"] or 0
    tokens = [str(t) for t in rolls.filter(pk__gt=after_id).values_list("token", flat=True)]
    return newest, tokens


def rolls_in_current_turn(session_id: int) -> int:
    from diary.models import GameSession
    from diary.services import current_turn
    from rolls.models import Roll

    turn = current_turn(GameSession.objects.get(pk=session_id))
    return Roll.objects.filter(post__turn=turn).count()
