from django.core.management.base import BaseCommand

from diary.deadlines.selectors import sessions_that_may_be_due
from diary.services import turn_open_due


class Command(BaseCommand):
    help = (
        "Open the next turn of the sessions whose GM lets the site do it, once every "
        "character has acted or the deadline passed (as the GM, through the GM's own turn "
        "opening; each session checked under its lock: safe to run every few minutes, and "
        "twice at once; make serve does)."
    )

    def handle(self, *args, **options):
        opened = 0
        for session_id in sessions_that_may_be_due():
            # One transaction a session: one that fails leaves the others to open.
            if turn_open_due(session_id=session_id) is not None:
                opened += 1
        self.stdout.write(f"Turns opened: {opened}")
