"""What the demo player has read in the demo's main session."""

from diary.models import GameSession, Post
from diary.reading import read_mark_advance

# The demo player has read all but the last few posts others wrote, so the home
# page and the session list show a count and the diary marks the first one "Nowe".
DEMO_UNREAD_POSTS = 3


def seed_read_marks(session: GameSession, users: dict) -> None:
    player = users["gracz"]
    others = list(
        Post.objects.filter(session=session, hidden_at__isnull=True)
        .exclude(author=player)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    first_unread = others[-DEMO_UNREAD_POSTS]
    read_mark_advance(user=player, session_id=session.pk, post_id=first_unread - 1)
