"""A session at scale, fast: N posts and M valid chained rolls in its current turn.

The first roll is made through the real service (rolls.services.roll_make or
roll_make_case), so its record is one the site writes; the rest are copies of it with their
own seq, post, time, hash and signature, written with bulk_create. The chain verifies
(rolls.ledger.verify.verify_session, with --recompute too: a copy keeps its case and dice) and the
session's head (GameSession.chain_seq / chain_hash) is moved to the last row, as
rolls.ledger.chain_writer.chain_append would have left it.
"""

from __future__ import annotations

import uuid

from django.utils import timezone

from diary.models import GameSession, Post
from rolls.ledger import signing
from rolls.ledger.chain import chain_hash
from rolls.models import Roll
from tests.scale import foreign_keys_unchecked

BATCH = 2000


def add_posts(session: GameSession, author, count: int) -> None:
    """`count` narration posts by `author` in the session's current turn."""
    turn = session.turns.order_by("-number").first()
    for start in range(0, count, BATCH):
        size = min(BATCH, count - start)
        # No revisions: nothing these tests read shows a post's history.
        with foreign_keys_unchecked():
            Post.objects.bulk_create(
                Post(
                    session=session,
                    turn=turn,
                    author=author,
                    narration=f"Post {start + i}",
                    narration_html=f"<p>Post {start + i}</p>",
                )
                for i in range(size)
            )


def add_rolls(session: GameSession, count: int, *, make_first=None) -> None:
    """`count` more rolls at the end of the session's chain, each a copy of its last roll
    (`make_first()` makes one through the real service when the chain is still empty)."""
    last = Roll.objects.filter(session=session).order_by("-seq").first()
    if last is None:
        make_first()
        count -= 1
        last = Roll.objects.filter(session=session).order_by("-seq").get()
    seq, prev_hash = last.seq, last.hash
    posts = list(
        Post.objects.filter(session=session, turn__number=last.turn_number)
        .order_by("-id")
        .values_list("pk", flat=True)[:500]
    ) or [last.post_id]
    while count > 0:
        rows = []
        for _ in range(min(BATCH, count)):
            seq += 1
            post_id = posts[seq % len(posts)]
            now = timezone.now()
            record = last.record | {"seq": seq, "post": post_id, "rolled_at": now.isoformat()}
            row_hash = chain_hash(prev_hash, record)
            key_id, signature = signing.sign(row_hash)
            rows.append(
                Roll(
                    session_id=session.pk,
                    seq=seq,
                    post_id=post_id,
                    rolled_by_id=last.rolled_by_id,
                    character_id=last.character_id,
                    system=last.system,
                    test=last.test,
                    turn_number=last.turn_number,
                    is_action=last.is_action,
                    record=record,
                    prev_hash=prev_hash,
                    hash=row_hash,
                    token=uuid.uuid4(),
                    request_digest=last.request_digest,
                    created_at=now,
                    key_id=key_id,
                    signature=signature,
                )
            )
            prev_hash = row_hash
        with foreign_keys_unchecked():
            Roll.objects.bulk_create(rows)
        count -= len(rows)
    # The head, as chain_append leaves it (the session's row holds it).
    GameSession.objects.filter(pk=session.pk).update(chain_seq=seq, chain_hash=prev_hash)
