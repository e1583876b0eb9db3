"""Dice inside the narration in the demo's main session (rolls.inline): a player, where the
GM allows free rolls, writes two expressions into a post; publishing rolls each once into
the chain; an edit then takes one out of the text, and its result stays, struck through.
Another player names a sheet test in their narration, and the GM answers it."""

import uuid

from demo.sheets import forum1000_catalog
from diary import services as diary_services
from diary.models import GameSession
from rolls.models import RollAsk
from rolls.services import roll_make
from rolls.systems.forum1000.cases import case_for
from rolls.systems.forum1000.requests import RollRequest, SideRequest

DEMO_INLINE_NARRATION = (
    "Mira bierze rozbieg i skacze na śliski kamień pośrodku brodu. [[1k20+3 skok]] "
    "Spod jej butów osuwają się kamyki: [[1k6 ile kamyków wpada do wody]]"
)
DEMO_INLINE_EDITED = "Mira bierze rozbieg i skacze na śliski kamień pośrodku brodu. "
DEMO_INLINE_TEST = "Lirael nasłuchuje, czy ktoś idzie za Mirą. [[test: Percepcja]]"


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
    _named_test_answered(session, characters)


def _named_test_answered(session: GameSession, characters: dict) -> None:
    """Lirael's narration asks for her Percepcja test; the GM answers it as asked, and the
    narration shows the outcome where the marker stood."""
    lirael = characters["Lirael"]
    post = diary_services.post_create(
        session=session,
        author=lirael.owner,
        character=lirael,
        narration=DEMO_INLINE_TEST,
        nc_note="",
        token=uuid.uuid4(),
    )
    ask = RollAsk.objects.get(post=post)
    percepcja = forum1000_catalog().attribute["Percepcja"]
    request = RollRequest(
        kind="attribute", a=SideRequest(lirael.pk, "attribute", attribute_ids=(percepcja,))
    )
    roll_make(
        session=session,
        by=session.gm,
        case=case_for(session, request),
        token=uuid.uuid4(),
        answers=ask,
    )
