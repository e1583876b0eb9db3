"""Free-form rolls in dice notation in the demo's main session: the GM's, and a player's
where the GM allows them."""

import uuid

from diary.models import GameSession
from rolls.free.services import FreeRoll, roll_make_free

# The GM's free-form rolls in the demo, as (expression, label, character name).
DEMO_FREE_ROLLS = (
    ("2k6+3", "Obrażenia od topora strażnika", "Borys"),
    ("4k6kh3", "Tabela spotkań na szlaku: kto nadjeżdża", None),
    # Labelled terms: the post shows each term's dice under its label.
    ("1k8[cięcie] + 2k6[ogień]", "Płonący miecz strażnika", "Borys"),
    # A success count: how many of the ten guards notice the party (8 or more on a k10).
    ("10k10>=8", "Ilu strażników zauważa drużynę", None),
)

# A player's free-form roll in the demo session (the GM allows them there).
DEMO_PLAYER_FREE_ROLL = ("2k6+1", "Ile monet wypada z sakiewki", "Borys")


def seed_free_rolls(session: GameSession, gm, characters: dict) -> None:
    """The GM rolls damage, a keep-highest table roll, a labelled damage roll and a success
    count in dice notation, through the service the free-form roll page uses; all land in
    the GM's post of the turn."""

    for expression, label, name in DEMO_FREE_ROLLS:
        roll_make_free(
            session=session,
            by=gm,
            free=FreeRoll(
                expression=expression,
                label=label,
                character_id=characters[name].pk if name else None,
            ),
            token=uuid.uuid4(),
        )
    # The GM allows players' free-form rolls here: a player rolls one into their own post,
    # marked as theirs in the diary and counted per player in the audit.
    GameSession.objects.filter(pk=session.pk).update(players_free_rolls=True)
    session.refresh_from_db()
    player = characters[DEMO_PLAYER_FREE_ROLL[2]]
    roll_make_free(
        session=session,
        by=player.owner,
        free=FreeRoll(
            expression=DEMO_PLAYER_FREE_ROLL[0],
            label=DEMO_PLAYER_FREE_ROLL[1],
            character_id=player.pk,
        ),
        token=uuid.uuid4(),
    )
