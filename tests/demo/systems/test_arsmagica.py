"""demo.systems.arsmagica: the demo's Ars Magica rolls, on the demo's own session, made
through the panel's path."""

import pytest

from demo.systems.arsmagica import seed_arsmagica_rolls
from rolls.ledger.verify import verify_session
from rolls.systems.arsmagica import display

pytestmark = pytest.mark.django_db


def test_the_demo_rolls_every_ars_magica_test_through_the_panels_path(make_user):
    """The rolls match the demo's narration: Magnus reads the Latin inscription
    (Inteligencja + Łacina, a simple die against 9), Wilhelm and Agnieszka climb the cliff
    in the wind (Siła + Atletyka, stress dice, two botch dice each)."""
    from demo.systems import seed_system_sessions

    users = {name: make_user(name) for name in ("gm", "gracz", "gracz2", "gracz3")}
    users["moderator"] = make_user("moderator", moderator=True)
    session, characters = seed_system_sessions(users)["arsmagica"]
    made = seed_arsmagica_rolls(session, characters, users)
    assert [roll.record["what"].split(" (")[0] for roll in made] == [
        "Inteligencja + Łacina",
        "Siła + Atletyka",
        "Siła + Atletyka",
    ]
    assert [roll.record["characters"]["a"]["name"] for roll in made] == [
        characters[key].name for key in ("magnus", "wilhelm", "agnieszka")
    ]
    simple, doubling, botch = (roll.record["result"] for roll in made)
    assert (simple["test"], simple["dice"], simple["success"]) == ("simple", [7], True)
    assert simple["input"]["ease_factor"] == 9
    assert doubling["test"] == "stress" and doubling["die_faces"] == [1, 1, 5]
    assert doubling["doublings"] == 2 and doubling["die"] == 20
    assert doubling["input"]["modifiers"][0]["label"] == "Lina z hakiem"
    assert doubling["input"]["botch_dice"] == botch["input"]["botch_dice"] == 2
    assert botch["die_faces"] == [0] and botch["botch_faces"] == [4, 0]
    assert botch["botch"] and botch["outcome"] == "botch" and botch["total"] == 0
    assert [roll.seq for roll in made] == [1, 2, 3]
    assert all(roll.rolled_by == users["gm"] for roll in made)
    assert verify_session(session.pk).ok
    (line,) = display.lines(made[2].record)
    assert line.details[0] == "Kość stresu: 0 — kości fuszerki: 4, 0 — fuszerka! 1 zero"


def test_the_demo_rolls_work_on_the_demo_saga(make_user):
    """On the demo's own Ars Magica session (demo/systems/__init__.py), as seed_demo
    will call it."""
    from demo.systems import seed_system_sessions

    users = {name: make_user(name) for name in ("gm", "gracz", "gracz2", "gracz3")}
    users["moderator"] = make_user("moderator", moderator=True)
    session, characters = seed_system_sessions(users)["arsmagica"]
    made = seed_arsmagica_rolls(session, characters, users)
    outcomes = [roll.record["result"]["outcome"] for roll in made]
    assert outcomes[2] == "botch"
    assert made[1].record["result"]["die"] == 20
    assert {roll.session_id for roll in made} == {session.pk}
    assert verify_session(session.pk).ok
