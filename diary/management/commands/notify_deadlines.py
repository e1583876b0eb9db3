from django.core.management.base import BaseCommand

from diary.notifications.notices import notify_deadlines


class Command(BaseCommand):
    help = (
        "Tell the players who have not posted that their turn's deadline is near (once per "
        "turn per player: safe to run every few minutes; make serve does)."
    )

    def handle(self, *args, **options):
        told = notify_deadlines()
        self.stdout.write(f"Deadline notices: {told}")
