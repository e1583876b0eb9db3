"""demo.systems.ciernie: the demo's ciernie rolls, made through the system's forms and
`roll_make`, stored with the engine's case, recomputed from the record alone, chained
and verified."""

import pytest

from demo.systems.ciernie import seed_ciernie_rolls
from rolls.engine import systems
from rolls.engine.dice import ScriptedDice
from rolls.ledger.verify import verify_session
from rolls.presenters import roll_view
from rolls.systems.ciernie import display
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table, flag_reroll_sources

pytestmark = pytest.mark.django_db


@pytest.fixture
def ciernie(make_user):
    table = build_ciernie_table(make_user)
    flag_reroll_sources()
    return table


def recomputed(record) -> dict:
    """The roll again from its record alone: the engine's case and its dice."""
    result = record["result"]
    test = systems.parse_test(result["system"], result["test"], result["input"])
    return systems.roll(result["system"], test, ScriptedDice(result["dice"])).to_dict()


def test_the_demo_rolls_every_ciernie_test(ciernie):
    characters = {"vera": ciernie.vera, "tomasz": ciernie.tomasz, "najemnik": ciernie.stand_in}
    rolls = seed_ciernie_rolls(ciernie.session, characters, {"gm": ciernie.gm})
    assert [r.seq for r in rolls] == [1, 2, 3, 4, 5, 6, 7]
    records = [r.record for r in rolls]
    assert [r["kind"] for r in records] == [
        "attribute",
        "combined",
        "comparative",
        "effect_test",
        "skill",
        "attribute",
        "attribute",
    ]
    attribute, combined, comparative, effect, skill, failed, reroll = (r["result"] for r in records)
    assert attribute["test"] == "attribute" and attribute["success"]
    assert combined["test"] == "combined" and len(combined["input"]["attributes"]) == 2
    # Against the NPC's stand-in, read off its sheet.
    assert comparative["test"] == "comparative"
    assert records[2]["characters"]["b"]["name"] == "Najemnik"
    assert effect["test"] == "effect" and not effect["success"]
    assert effect["duration"] >= 1 and effect["unit"] == "minutes"
    assert skill["test"] == "skill" and skill["outcome"] == "delay"
    assert skill["time_multiplier"] >= 2
    # The reroll chosen after the failure: its own entry, naming the failed roll, which stays.
    assert failed["outcome"] in ("failure", "critical_failure")
    assert records[5]["reroll_offer"]["sources"]
    assert reroll["test"] == "reroll_of" and reroll["rerolled"]
    assert records[6]["rerolls"] == {"seq": rolls[5].seq, "hash": rolls[5].hash}
    assert reroll["first"] == failed
    assert rolls[6].post_id == rolls[5].post_id
    assert reroll["success"] == reroll["second"]["success"] is True
    assert reroll["input"]["reroll_sources"] == 2
    for roll in rolls:
        assert recomputed(roll.record) == roll.record["result"]
        assert roll.post.author == ciernie.gm
        # Every stored roll reads in words where the site shows it (an effect test is no
        # diary entry, though the engine calls it "effect").
        lines = roll_view(roll).body
        assert lines and lines == display.lines(roll.record)
    assert verify_session(ciernie.session.pk).ok
    # Each line of the post reads right, the effect in its unit's plural.
    [line] = display.lines(records[3])
    assert any(d.startswith("efekt trwa") and "minut" in d for d in line.details)
    first, second = display.lines(records[6])
    assert f"pierwszy rzut (#{rolls[5].seq})" in first.what and "rozstrzyga" in second.what


def test_the_demo_rolls_in_the_demo_ciernie_session():
    """The demo command's ciernie session (demo.systems): every test rolls
    there, the reroll from Vera's own reroll sources, the comparative against its stand-in."""
    from demo.systems import seed_system_sessions
    from demo.users import demo_users

    users = demo_users()
    session, characters = seed_system_sessions(users)["ciernie"]
    rolls = seed_ciernie_rolls(session, characters, users)
    results = [r.record["result"] for r in rolls]
    assert [r["test"] for r in results] == [
        "attribute",
        "combined",
        "comparative",
        "effect",
        "skill",
        "attribute",
        "reroll_of",
    ]
    assert rolls[2].record["characters"]["b"]["id"] == characters["najemnik"].pk
    assert results[4]["outcome"] == "delay"
    assert not results[5]["success"]
    assert results[6]["rerolled"] and results[6]["second"]["success"]
    assert not results[3]["success"] and results[3]["duration"] >= 1
    assert verify_session(session.pk).ok
