"""demo.systems.q10: the demo's q10 rolls go through the panel's form and service."""

import pytest

from demo.systems.q10 import seed_q10_rolls
from rolls.ledger.verify import verify_session

pytestmark = pytest.mark.django_db


def test_the_demo_rolls_a_pool_with_a_ten_and_an_achieved_raise(q10):
    rolls = seed_q10_rolls(q10.session, {"Eryk": q10.eryk, "Runa": q10.runa}, {"gm": q10.gm})
    first = rolls[0].record["result"]
    assert first["tens"] >= 1 and first["extra"]
    assert first["success"] and first["raises"] == 1 and first["raises_achieved"] == 1
    assert first["input"]["circumstances"][0]["reason"] == "Śliska, omszała krawędź"
    assert rolls[0].post.author == q10.gm
    assert not rolls[1].record["result"]["success"]
    assert [r.seq for r in rolls] == [1, 2]
    assert verify_session(q10.session.pk).ok


def test_the_demo_jump_is_rolled_on_sila_and_atletyka(make_user):
    """Seed 001: "Za przeskoczenie ponad przepaścią odpowiada Siła i Atletyka"; the demo's
    narration jumps, so its rolls test Siła + Atletyka (not the sheet's best pair)."""
    from demo.systems import seed_system_sessions

    users = {name: make_user(name) for name in ("gm", "gracz", "gracz2", "gracz3")}
    users["moderator"] = make_user("moderator", moderator=True)
    session, characters = seed_system_sessions(users)["q10"]
    rolls = seed_q10_rolls(session, characters, users)
    assert [roll.record["what"] for roll in rolls] == ["Siła + Atletyka"] * len(rolls)
    eragon = rolls[0].record["result"]["input"]
    assert (eragon["attribute"], eragon["skill"]) == (3, 2)  # Eragon: Siła 3, Atletyka 2
    assert rolls[0].record["result"]["success"]
