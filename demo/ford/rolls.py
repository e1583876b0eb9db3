"""The GM's rolls in the demo's main session: a roll of every tab over its three turns, and
two secret rolls, through the same service the panel uses."""

import uuid

from characters.models import Attribute
from characters.systems import RuleSystem
from demo.sheets import CatalogIds, forum1000_catalog
from diary import services as diary_services
from diary.models import GameSession
from rolls.services import roll_make, secret_roll_reveal
from rolls.systems.forum1000.cases import case_for
from rolls.systems.forum1000.requests import GmModifier, InitiativeLine, RollRequest, SideRequest

DEMO_GATE_FIGHT_NAME = "Walka u bramy"


def seed_tab_rolls(session: GameSession, gm, characters: dict) -> None:
    """A roll of every tab, through the same service the panel uses: the boat in turn 1,
    the watchtower in turn 2, the fight at the gate in turn 3."""
    catalog = forum1000_catalog()
    _gm_post(session, gm, "Rybak mięknie, skrzynia ustępuje, Mira opatruje ramię.")
    _roll_each(session, gm, _at_the_boat(characters, catalog))
    diary_services.turn_open_next(session=session, by=gm)
    _gm_post(session, gm, "Z mgły wyłania się strażnica; ktoś zamyka bramę.")
    # RULES 1.5: Mira rides her horse 50 m, one move action at Szybkość 500.
    mira = characters["Mira"]
    diary_services.post_create(
        session=session,
        author=mira.owner,
        character=mira,
        narration="Mira wskakuje na konia i podjeżdża pod strażnicę.",
        nc_note="",
        move_metres=50,
        move_mounted=True,
    )
    _roll_each(session, gm, _at_the_watchtower(characters, catalog))
    diary_services.turn_open_next(session=session, by=gm)
    _gm_post(session, gm, "Strażnik rzuca się na Borysa. Walka!")
    _roll_each(session, gm, _at_the_gate(characters, catalog))


def _gm_post(session: GameSession, gm, narration: str) -> None:
    diary_services.post_create(
        session=session, author=gm, character=None, narration=narration, nc_note=""
    )


def _roll_each(session: GameSession, gm, requests: list[RollRequest]) -> None:
    for request in requests:
        # The initiative roll opens the fight at the gate, left running.
        name = DEMO_GATE_FIGHT_NAME if request.kind == "initiative" else ""
        roll_make(
            session=session,
            by=gm,
            case=case_for(session, request, event_name=name),
            token=uuid.uuid4(),
        )


def _at_the_boat(characters: dict, catalog: CatalogIds) -> list[RollRequest]:
    """Lirael charms the fisherman, Borys picks the chest's lock, Mira treats his wound."""
    skill, trait = catalog.skill, catalog.trait
    lirael, borys, mira = characters["Lirael"], characters["Borys"], characters["Mira"]
    wound = borys.effects.filter(kind="wound", freed_at__isnull=True).first()
    seduce = SideRequest(
        lirael.pk,
        "skill",
        skill_id=skill["Uwodzenie"],
        trait_ids=(trait["Seksapil"], trait["Przystojny"]),
        gm_bonus=GmModifier(50, "Przemyślany podarek dla rybaka"),
    )
    lockpick = SideRequest(
        borys.pk,
        "skill",
        skill_id=skill["Otwieranie zamków"],
        trait_ids=(trait["Precyzyjny"],),
        gm_difficulty=GmModifier(-100, "Zamek zardzewiały od wilgoci"),
    )
    return [
        RollRequest(kind="skill", a=seduce),
        RollRequest(kind="skill", a=lockpick),
        RollRequest(
            kind="healing",
            a=SideRequest(mira.pk, "skill", skill_id=skill["Leczenie ran"]),
            patient_id=borys.pk,
            effect_id=wound.pk if wound else None,
        ),
    ]


def _at_the_watchtower(characters: dict, catalog: CatalogIds) -> list[RollRequest]:
    """Lirael looks into the mist, Borys jumps over the side."""
    attribute, trait = catalog.attribute, catalog.trait
    lirael, borys = characters["Lirael"], characters["Borys"]
    look = SideRequest(
        lirael.pk, "attribute", (attribute["Percepcja"],), trait_ids=(trait["Dobry Wzrok"],)
    )
    jump = SideRequest(
        borys.pk,
        "combined",
        (attribute["Zręczność"], attribute["Szybkość"]),
        action_value=50,
        action_reason="skok przez burtę",
    )
    return [RollRequest(kind="attribute", a=look), RollRequest(kind="combined", a=jump)]


def _at_the_gate(characters: dict, catalog: CatalogIds) -> list[RollRequest]:
    """The fight's initiative, then Borys and Lirael wrestle, strength against strength."""
    strength = (catalog.attribute["Siła"],)
    lirael, borys, mira = characters["Lirael"], characters["Borys"], characters["Mira"]
    initiative = (
        InitiativeLine(lirael.pk),
        InitiativeLine(borys.pk),
        InitiativeLine(mira.pk, 50, "eliksir zwinności"),
    )
    return [
        RollRequest(kind="initiative", initiative=initiative),
        RollRequest(
            kind="opposed",
            a=SideRequest(borys.pk, "attribute", strength),
            b=SideRequest(lirael.pk, "attribute", strength),
        ),
    ]


def seed_secret_rolls(session: GameSession, gm, characters: dict) -> None:
    """Two secret GM rolls in the current turn, hidden checks for a trap under the
    gate: Mira's, revealed (the diary shows its result beside its commitment), and Borys's,
    still a commitment only."""

    percepcja = Attribute.objects.get(system=RuleSystem.FORUM1000, name="Percepcja").pk
    trap = GmModifier(-100, "Wnyki ukryte pod liśćmi przy bramie")
    made = [
        roll_make(
            session=session,
            by=gm,
            case=case_for(
                session,
                RollRequest(
                    kind="attribute",
                    a=SideRequest(
                        characters[name].pk, "attribute", (percepcja,), gm_difficulty=trap
                    ),
                ),
            ),
            token=uuid.uuid4(),
            secret=True,
        ).roll
        for name in ("Mira", "Borys")
    ]
    secret_roll_reveal(session=session, by=gm, seq=made[0].seq)
