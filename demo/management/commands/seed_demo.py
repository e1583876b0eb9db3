"""Demo data for `make run`: users, three forum1000 sessions (the main one, a second whose
NPCs play on the GM's stand-in sheets, one recruiting), and a running q10, ciernie and
arsmagica session (demo/systems/).

Everything goes through the same services the pages use. Running it again
changes nothing and prints the credentials again; what a newer demo adds to an older
database (another system's sessions, portraits, table talk) is added then.
"""

from django.core.management.base import BaseCommand
from django.db import transaction

from characters.systems import RuleSystem
from demo.absences import seed_absences
from demo.application_session import seed_application
from demo.board import seed_board
from demo.board_polls import seed_board_and_polls
from demo.deadlines import seed_deadlines
from demo.ford.session import seed_ford
from demo.ford.story import SESSION_TITLE
from demo.ford.talk import seed_table_talk
from demo.handover import seed_handover
from demo.portraits import seed_portraits
from demo.recap import seed_recap
from demo.search_words import seed_search_words
from demo.stand_in_session import seed_stand_in_session
from demo.systems import ROLLS, SESSIONS, seed_system_sessions
from demo.users import DEMO_USERS, demo_users
from diary.models import GameSession
from rolls.ledger import fair_dice


class Command(BaseCommand):
    help = (
        "Create the demo users, characters, running forum1000 sessions and one running "
        "session of each other system (idempotent)."
    )

    def handle(self, *args, **options):
        with transaction.atomic():
            users = demo_users()
            added = [
                seed_forum1000_sessions(users),
                # A running session of each other system (added to an older demo too).
                seed_other_systems(users),
                # Portraits for the forum1000 demo characters (added to an older demo too).
                seed_portraits(users),
                # Table talk beside the diary (added to an older demo too).
                seed_table_talk(users),
                # A player back after a while finds "since you were last here" (added to an
                # older demo too).
                seed_recap(users),
                # The deadline's rules: a turn passed on, a character the GM plays (added
                # to an older demo too).
                seed_deadlines(users),
                # A co-GM and a session handed over (added to an older demo too).
                seed_handover(users),
                # The board's pace, language and tags, a player's ad and a quiet session
                # (added to an older demo too).
                seed_board(users),
                # An absence and a GM's nudge (added to an older demo too).
                seed_absences(users),
                # The GM's notice board and polls in the OOC thread (added to an older demo
                # too).
                seed_board_and_polls(users),
            ]
        if any(added):
            self.stdout.write(self.style.SUCCESS("Demo data created."))
        else:
            self.stdout.write("Demo data already present.")
        self.stdout.write("Development logins (user / password):")
        for username, password in DEMO_USERS.items():
            self.stdout.write(f"  {username} / {password}")


def seed_forum1000_sessions(users: dict) -> bool:
    """The forum1000 sessions, unless the main one is there. Whether they were added."""
    if GameSession.objects.filter(title=SESSION_TITLE, gm=users["gm"]).exists():
        return False
    seed_ford(users)
    seed_stand_in_session(users)
    seed_application(users)
    seed_search_words(users)
    return True


def seed_other_systems(users: dict) -> bool:
    """A running session of each other system with a roll of every test, through the
    service the panel uses, unless the q10 one is there. Whether they were added."""
    title = SESSIONS[RuleSystem.Q10]["title"]
    if GameSession.objects.filter(title=title, gm=users["gm"]).exists():
        return False
    # Their scenes roll the faces their narration tells, so their turns are played as turns
    # opened before dice seeds were committed (server dice, no fair part); the forum1000
    # session shows the fair dice, and the next turn a user opens in these is committed too.
    with fair_dice.turns_open_unseeded():
        for system, (session, characters) in seed_system_sessions(users).items():
            ROLLS[system](session, characters, users)
    return True
