"""Users, forum1000 characters and running sessions for databases seeded outside the test
run, through the services the pages use: the load tests' (tests/load/server_db.py) and the
HTTP benchmark's (bench/http_seed.py). Call from inside a set-up Django."""


def user_who_logs_in(username: str, password_hash: str):
    """A user with a precomputed password hash (each PBKDF2 hash costs about a second)."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.create_user(username=username)
    user.password = password_hash
    user.save(update_fields=["password"])
    return user


def moderator(username: str = "moderator"):
    """A moderator with no password: accepts plans, never logs in."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from config.roles import MODERATOR_GROUP

    user = get_user_model().objects.create_user(username=username)
    Group.objects.get(name=MODERATOR_GROUP).user_set.add(user)
    return user


def forum1000_character(owner, name: str):
    """Every attribute 500, 80 of 100 HP, no skills, traits or items."""
    from characters import services as character_services
    from characters.models import Attribute
    from characters.systems import RuleSystem

    attributes = Attribute.objects.filter(system=RuleSystem.FORUM1000)
    return character_services.character_create(
        owner=owner,
        system=RuleSystem.FORUM1000,
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


def running_forum1000_session(gm, moderator_user, title: str, cast):
    """A forum1000 session where players roll for their own characters, `cast` (owner,
    character) pairs playing, the plan accepted and the session running in turn 1."""
    from characters.systems import RuleSystem
    from diary import services as diary_services
    from diary.models import NpcMode, RollPolicy, SessionStatus

    session = diary_services.session_create(
        gm=gm,
        title=title,
        description="",
        system=RuleSystem.FORUM1000,
        criticals_enabled=True,
        npc_mode=NpcMode.FIXED_MODIFIERS,
        roll_policy=RollPolicy.PLAYERS_OWN,
        player_slots=max(4, len(cast)),  # a place for everyone in the cast
    )
    for owner, sheet in cast:
        invitation = diary_services.participation_invite(session=session, by=gm, character=sheet)
        diary_services.participation_decide(participation=invitation, by=owner, accept=True)
    for step, by in [
        (SessionStatus.PLAN_SUBMITTED, gm),
        (SessionStatus.ACCEPTED, moderator_user),
        (SessionStatus.RUNNING, gm),
    ]:
        session = diary_services.session_transition(session=session, by=by, to=step)
    return session
