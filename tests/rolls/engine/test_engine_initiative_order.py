"""The initiative event's running order (RULES 1.4): rolls.engine.initiative."""

from rolls.engine.initiative import Entry, Handover, OrderModifier, current_order, next_after

ANNA = Entry(1, "Anna", speed=600, score=300)
BORYS = Entry(2, "Borys", speed=500, score=200)
CYRA = Entry(3, "Cyra", speed=700, score=100)
WILK = Entry(4, "Wilk", speed=650, score=-50)
ALL = (CYRA, WILK, ANNA, BORYS)  # the order of the entries does not matter


def names(order) -> list[str]:
    return [p.name for p in order]


def test_highest_score_first():
    assert names(current_order(ALL, turn=1)) == ["Anna", "Borys", "Cyra", "Wilk"]


def test_ties_go_to_the_higher_speed_then_the_name_in_polish_order():
    fast = Entry(5, "Zofia", speed=900, score=200)
    cma = Entry(6, "Ćma", speed=500, score=200)
    # By code point "Dorota" < "Ćma"; in Polish order C < Ć < D.
    dorota = Entry(7, "Dorota", speed=500, score=200)
    order = current_order((dorota, BORYS, cma, fast), turn=1)
    assert names(order) == ["Zofia", "Borys", "Ćma", "Dorota"]
    # A tie made by a modifier is broken the same way: Anna (Szybkość 600) 300 − 100 = 200.
    slowed = OrderModifier(character_id=1, value=-100, from_turn=1, turns=1)
    order = current_order((dorota, BORYS, cma, fast, ANNA), turn=1, modifiers=[slowed])
    assert names(order) == ["Zofia", "Anna", "Borys", "Ćma", "Dorota"]


def test_a_modifier_counts_from_its_turn_for_n_turns_and_ends_by_itself():
    haste = OrderModifier(character_id=3, value=250, from_turn=3, turns=2)
    assert haste.last_turn == 4
    assert names(current_order(ALL, turn=2, modifiers=[haste]))[0] == "Anna"
    for turn in (3, 4):
        order = current_order(ALL, turn=turn, modifiers=[haste])
        assert names(order)[0] == "Cyra"
        assert (order[0].base_score, order[0].modifier, order[0].score) == (100, 250, 350)
    expired = current_order(ALL, turn=5, modifiers=[haste])
    assert names(expired) == ["Anna", "Borys", "Cyra", "Wilk"]
    assert expired[2].modifier == 0


def test_modifiers_add_up_and_may_lower():
    slow = OrderModifier(1, -500, 1, 1)
    also = OrderModifier(1, 100, 1, 3)
    order = current_order(ALL, turn=1, modifiers=[slow, also])
    # Anna: 300 − 500 + 100 = −100, behind the wolf's −50.
    assert names(order) == ["Borys", "Cyra", "Wilk", "Anna"]
    assert order[3].modifier == -400


def test_held_characters_drop_to_the_end_keeping_their_order_and_return_when_freed():
    held = current_order(ALL, turn=1, held={1, 2})
    assert names(held) == ["Cyra", "Wilk", "Anna", "Borys"]
    assert [p.held for p in held] == [False, False, True, True]
    assert names(current_order(ALL, turn=1, held=set())) == ["Anna", "Borys", "Cyra", "Wilk"]


def test_a_handover_puts_the_character_at_the_stated_place():
    order = current_order(ALL, turn=1, handovers=[Handover(character_id=4, position=1)])
    assert names(order) == ["Wilk", "Anna", "Borys", "Cyra"]
    assert order[0].moved and not order[1].moved


def test_handovers_apply_in_order_places_are_clamped_and_unknown_characters_ignored():
    handovers = [Handover(4, 1), Handover(1, 99), Handover(99, 1), Handover(2, 0)]
    assert names(current_order(ALL, turn=1, handovers=handovers)) == [
        "Borys",
        "Wilk",
        "Cyra",
        "Anna",
    ]


def test_a_handover_holds_through_modifiers_but_a_held_character_still_goes_last():
    haste = OrderModifier(3, 1000, 1, 5)
    order = current_order(ALL, turn=2, modifiers=[haste], handovers=[Handover(4, 1)], held={4})
    assert names(order) == ["Cyra", "Anna", "Borys", "Wilk"]


def test_the_marker_moves_to_the_next_and_wraps_to_the_top():
    order = current_order(ALL, turn=1)
    assert next_after(order, 1) == 2
    assert next_after(order, 4) == 1
    assert next_after(order, None) == 1
    assert next_after(order, 99) == 1
    assert next_after((), 1) is None
