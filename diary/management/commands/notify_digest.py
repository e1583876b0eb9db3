from django.core.management.base import BaseCommand

from diary.notifications.delivery import send_digests


class Command(BaseCommand):
    help = (
        "Send the daily digest e-mail to each user who chose it and has news (at most once "
        "a day per user: safe to run every few minutes; make serve does)."
    )

    def handle(self, *args, **options):
        sent = send_digests()
        self.stdout.write(f"Digests sent: {sent}")
