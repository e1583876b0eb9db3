import logging

from django.core.management.base import BaseCommand

from diary.deadlines.selectors import sessions_that_may_be_due
from diary.services import turn_open_due

logger = logging.getLogger(__name__)


class Command(BaseCommand):
    help = (
        "Open the next turn of the sessions whose GM lets the site do it, once every "
        "character has acted or the deadline passed (as the GM, through the GM's own turn "
        "opening; each session checked under its lock: safe to run every few minutes, and "
        "twice at once; make serve does)."
    )

    def handle(self, *args, **options):
        opened = failed = 0
        for session_id in sessions_that_may_be_due():
            # One transaction a session: one that fails is logged and leaves the others to
            # open (it is tried again on the next run).
            try:
                turn = turn_open_due(session_id=session_id)
            except Exception:
                logger.exception("advance_turns: session %s failed", session_id)
                failed += 1
                continue
            opened += turn is not None
        self.stdout.write(f"Turns opened: {opened}" + (f"; failed: {failed}" if failed else ""))
