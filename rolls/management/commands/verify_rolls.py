"""Verify the roll chains from the shell: `python manage.py verify_rolls [--session ID]
[--recompute]`.

Checks every session's chain, every row's place and signature against the site's trusted
keys, and every fair die whose turn's seed is revealed (rolls.ledger.fair_check);
`--recompute` also rolls every stored case again through the engine and compares the result.
Exits 1 if any chain is broken, naming the first broken number and what is wrong.
"""

from django.core.management.base import BaseCommand, CommandError

from diary.models import GameSession
from rolls.ledger.verify import verify_session


class Command(BaseCommand):
    help = "Verify every session's roll chain (or one session's); exit 1 on any break."

    def add_arguments(self, parser):
        parser.add_argument("--session", type=int, help="only this session (its id)")
        parser.add_argument(
            "--recompute",
            action="store_true",
            help="also recompute every roll from its stored case and dice with the engine",
        )

    def handle(self, *args, session=None, recompute=False, **options):
        sessions = GameSession.objects.order_by("pk")
        if session is not None:
            sessions = sessions.filter(pk=session)
            if not sessions.exists():
                raise CommandError(f"No session with id {session}.")
        broken = 0
        for game_session in sessions:
            report = verify_session(game_session.pk, recompute=recompute)
            if report.ok:
                self.stdout.write(
                    f"session {game_session.pk} ({game_session.title}): OK, "
                    f"{report.count} rolls, head {report.head_hash}"
                    + (", every result recomputed" if recompute else "")
                    + _fair_dice(report)
                )
            else:
                broken += 1
                self.stdout.write(
                    f"session {game_session.pk} ({game_session.title}): "
                    f"BROKEN at #{report.broken_seq}: {report.problem} — {report.problem_label}; "
                    f"{report.count} rolls verified before it"
                )
        if broken:
            raise SystemExit(1)


def _fair_dice(report) -> str:
    """The fair dice's counts (rolls.ledger.fair_check), where the session has any."""
    if not (report.dice_recomputed or report.dice_awaiting):
        return ""
    return (
        f", dice of {report.dice_recomputed} rolls recomputed from revealed seeds, "
        f"{report.dice_awaiting} awaiting their turn's close"
    )
