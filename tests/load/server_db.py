"""The load test's own database, seen from inside Django: `seed` and `check`.

Run as `python -m tests.load.server_db seed|check` with DATABASE_URL naming the load
test's throwaway cluster (tests/load/test_faults.py does): the test process itself is
configured for the suite's database, so it reaches this one through a subprocess with
the server's environment. Both print one JSON object.

- `seed`: users, characters and a running forum1000 session whose policy lets players
  roll for their own characters, through the same services the pages use (as
  tests/conftest.py's fixtures do). Prints the ids and the log-ins.
- `check`: what the ledger holds after the storm: every roll's token, seq and post, the
  chain verified by `rolls.ledger.verify.verify_session`, and roll-holding posts without a roll.
"""

import json
import os
import sys

PASSWORD = "Obciazenie-Rzutow-1000"
SESSION_TITLE = "Burza rzutów"
PLAYERS = [f"gracz{n}" for n in range(1, 9)]
COMPANIONS = [f"towarzysz{n}" for n in range(1, 5)]  # characters only the GM rolls for


def seed() -> dict:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from characters.models import Attribute
    from characters.systems import RuleSystem
    from diary import services as diary_services
    from tests.seeding import (
        forum1000_character,
        moderator,
        running_forum1000_session,
        user_who_logs_in,
    )

    users = get_user_model().objects
    # One real (PBKDF2) hash for everyone who logs in: each costs about a second of CPU.
    password_hash = make_password(PASSWORD)
    attributes = list(Attribute.objects.filter(system=RuleSystem.FORUM1000).order_by("pk"))
    gm = user_who_logs_in("mg", password_hash)
    players = {name: user_who_logs_in(name, password_hash) for name in PLAYERS}
    companions = {name: users.create_user(username=name) for name in COMPANIONS}
    owners = players | companions
    characters = {
        name: forum1000_character(user, f"Postać {name}") for name, user in owners.items()
    }
    session = running_forum1000_session(
        gm,
        moderator(),
        SESSION_TITLE,
        [(owners[name], sheet) for name, sheet in characters.items()],
    )
    assert diary_services.current_turn(session) is not None, "a running session has a turn"
    return {
        "session": session.pk,
        "password": PASSWORD,
        "gm": gm.username,
        "attribute": attributes[0].pk,
        "players": {name: characters[name].pk for name in PLAYERS},
        "companions": [characters[name].pk for name in COMPANIONS],
    }


def check(session_id: int) -> dict:
    from diary.models import Post
    from rolls.ledger.verify import verify_session
    from rolls.models import Roll

    # The rolls the browsers made, and the turn's own entries (its dice seed committed or
    # revealed: no post, made by the site as turns open).
    rows = Roll.objects.filter(session_id=session_id).order_by("seq")
    rolls = list(
        rows.filter(post__isnull=False).values_list(
            "token", "seq", "post_id", "post__session_id", "rolled_by__username"
        )
    )
    turn_entries = list(rows.filter(post__isnull=True).values_list("seq", "test"))
    report = verify_session(session_id)
    # The panel's posts that hold only rolls: one left without a roll is half a roll.
    empty_posts = (
        Post.objects.filter(session_id=session_id, narration="", nc_note="", rolls__isnull=True)
        .values_list("pk", flat=True)
        .distinct()
    )
    per_character: dict[str, int] = {}
    fair = 0
    for record in rows.filter(post__isnull=False).values_list("record", flat=True):
        key = str(record["characters"]["a"]["id"])
        per_character[key] = per_character.get(key, 0) + 1
        fair += "fair" in record
    return {
        "rolls": [
            {
                "token": str(token),
                "seq": seq,
                "post": post,
                "post_session": post_session,
                "by": by,
            }
            for token, seq, post, post_session, by in rolls
        ],
        "verify": {
            "ok": report.ok,
            "count": report.count,
            "head": report.head_hash,
            "problem": report.problem,
        },
        "turn_entries": [{"seq": seq, "kind": kind} for seq, kind in turn_entries],
        "fair": fair,
        "empty_posts": list(empty_posts),
        "per_character": per_character,
    }


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if argv[:1] == ["seed"]:
        result = seed()
    elif argv[:1] == ["check"] and len(argv) == 2:
        result = check(int(argv[1]))
    else:
        raise SystemExit("usage: python -m tests.load.server_db seed | check SESSION_ID")
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
