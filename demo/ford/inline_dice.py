"""Dice inside the narration in the demo's main session (rolls.inline): a player, where the
GM allows free rolls, writes two expressions into a post; publishing rolls each once into
the chain; an edit then takes one out of the text, and its result stays, struck through."""

import uuid

from diary import services as diary_services
from diary.models import GameSession

DEMO_INLINE_NARRATION = (
    "Mira bierze rozbieg i skacze na śliski kamień pośrodku brodu. [[1k20+3 skok]] "
    "Spod jej butów osuwają się kamyki: [[1k6 ile kamyków wpada do wody]]"
)
DEMO_INLINE_EDITED = "Mira bierze rozbieg i skacze na śliski kamień pośrodku brodu. "


def seed_inline_dice(session: GameSession, characters: dict) -> None:
    """Through post_create and post_edit, as the diary's form sends them (the GM allowed
    players' free rolls in an earlier scene)."""
    mira = characters["Mira"]
    post = diary_services.post_create(
        session=session,
        author=mira.owner,
        character=mira,
        narration=DEMO_INLINE_NARRATION,
        nc_note="",
        token=uuid.uuid4(),
    )
    # The edit keeps the jump's marker (now numbered) and drops the pebbles' one.
    jump = post.narration[len(DEMO_INLINE_EDITED) :].split("]]")[0] + "]]"
    diary_services.post_edit(
        post=post,
        by=mira.owner,
        character=mira,
        narration=DEMO_INLINE_EDITED + jump + " Ląduje pewnie.",
        nc_note="",
    )
