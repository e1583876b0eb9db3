"""The load test's own database, seen from inside Django: `seed` and `check`.

Run as `python -m tests.load.server_db seed|check` with DATABASE_URL naming the load
test's throwaway cluster (tests/load/test_faults.py does): the test process itself is
configured for the suite's database, so it reaches this one through a subprocess with
the server's environment. Both print one JSON object.

- `seed`: users, characters and a running forum1000 session whose policy lets players
  roll for their own characters, through the same services the pages use (as
  tests/conftest.py's fixtures do). Prints the ids and the log-ins.
- `check`: what the ledger holds after the storm: every roll's token, seq and post, the
  chain verified by `rolls.ledger.verify_session`, and roll-holding posts without a roll.
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
    from django.contrib.auth.models import Group

    from characters import services as character_services
    from characters.models import Attribute
    from characters.roles import MODERATOR_GROUP
    from characters.systems import RuleSystem
    from diary import services as diary_services
    from diary.models import NpcMode, RollPolicy, SessionStatus

    users = get_user_model().objects
    # One real (PBKDF2) hash for everyone who logs in: each costs about a second of CPU.
    password_hash = make_password(PASSWORD)

    def user_who_logs_in(username):
        user = users.create_user(username=username)
        user.password = password_hash
        user.save(update_fields=["password"])
        return user

    system = RuleSystem.FORUM1000
    attributes = list(Attribute.objects.filter(system=system).order_by("pk"))
    gm = user_who_logs_in("mg")
    moderator = users.create_user(username="moderator")  # no password: never logs in
    Group.objects.get(name=MODERATOR_GROUP).user_set.add(moderator)

    def character(owner, name):
        return character_services.character_create(
            owner=owner,
            system=system,
            values={
                "name": name,
                "description": "",
                "hp_current": 80,
                "hp_max": 100,
                "attributes": dict.fromkeys(attributes, 500),
                "skills": {},
                "traits": [],
                "items": {},
            },
        )

    players = {name: user_who_logs_in(name) for name in PLAYERS}
    companions = {name: users.create_user(username=name) for name in COMPANIONS}
    characters = {name: character(user, f"Postać {name}") for name, user in players.items()}
    characters |= {name: character(user, f"Postać {name}") for name, user in companions.items()}

    session = diary_services.session_create(
        gm=gm,
        title=SESSION_TITLE,
        description="",
        system=system,
        criticals_enabled=True,
        npc_mode=NpcMode.FIXED_MODIFIERS,
        roll_policy=RollPolicy.PLAYERS_OWN,
    )
    for owner_name, sheet in characters.items():
        invitation = diary_services.participation_invite(session=session, by=gm, character=sheet)
        owner = players.get(owner_name) or companions[owner_name]
        diary_services.participation_decide(participation=invitation, by=owner, accept=True)
    for step, by in [
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator),
        (SessionStatus.RUNNING, gm),
    ]:
        session = diary_services.session_transition(session=session, by=by, to=step)
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
    from rolls.ledger import verify_session
    from rolls.models import Roll

    rolls = list(
        Roll.objects.filter(session_id=session_id)
        .order_by("seq")
        .values_list("token", "seq", "post_id", "post__session_id", "rolled_by__username")
    )
    report = verify_session(session_id)
    # The panel's posts that hold only rolls: one left without a roll is half a roll.
    empty_posts = (
        Post.objects.filter(session_id=session_id, narration="", nc_note="", rolls__isnull=True)
        .values_list("pk", flat=True)
        .distinct()
    )
    per_character: dict[str, int] = {}
    for record in Roll.objects.filter(session_id=session_id).values_list("record", flat=True):
        key = str(record["characters"]["a"]["id"])
        per_character[key] = per_character.get(key, 0) + 1
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
