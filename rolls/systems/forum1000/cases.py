"""A forum1000 request (rolls.systems.forum1000.requests) as the Case the shared path rolls:
the engine test built from the sheets as they are now, who it is for, what it does beyond
its record (healing, an initiative event, an NPC targeted), and the request in words."""

from __future__ import annotations

from characters.models import Skill
from characters.numbers import signed_number
from rolls.engine import forum1000 as f1000
from rolls.plugins import Case, RequestError
from rolls.selectors import sheets_in_play
from rolls.systems.forum1000.effects import Heals, OpensInitiativeEvent, TargetsNpc
from rolls.systems.forum1000.requests import SIDE_TESTS, RollRequest, build_test, npc_target


def case_for(session, request: RollRequest, *, event_name: str = "") -> Case:
    """The Case of a request in a session, reading the sheets now (the demo's rolls, and
    anything else that rolls without the panel's forms)."""
    sheets = sheets_in_play(session, ids=request.character_ids)
    return case_of(request, sheets, session, event_name=event_name)


def request_fields_of(request: RollRequest) -> dict:
    """What a request of the initiator's test names, as the panel's fields send it (the
    answer link prefills these; an answer is held against them)."""
    side = request.a
    if side is None:
        return {}
    sources = [f"trait:{pk}" for pk in side.trait_ids] + [f"item:{pk}" for pk in side.item_ids]
    fields = {"a-character": str(side.character_id), "a-sources": sorted(sources)}
    if side.test == "skill":
        fields["a-skill"] = str(side.skill_id)
    elif side.attribute_ids:
        fields["a-attribute"] = str(side.attribute_ids[0])
        if side.test == "combined":
            fields["a-attribute_2"] = str(side.attribute_ids[1])
    return fields


def case_of(request: RollRequest, characters: dict, session, *, event_name: str = "") -> Case:
    """The Case of a request, reading `characters` (id → sheet, the session's playing ones);
    RequestError or RuleError for what cannot be rolled."""
    test = build_test(request, characters, session.criticals_enabled, session)
    people: dict = {}
    names: dict = {}
    if request.a:
        people["a"] = request.a.character_id
    if request.b:
        people["b"] = request.b.character_id
    if request.patient_id:
        people["patient"] = request.patient_id
    if request.initiative:
        people["initiative"] = [line.character_id for line in request.initiative]
    for role, value in people.items():
        if isinstance(value, int):
            names[role] = characters[value].name
    effects = []
    if request.kind == "healing":
        effects.append(
            Heals(
                patient_id=request.patient_id,
                effect_id=request.effect_id,
                heals=_healing_kind(request),
            )
        )
    if request.kind == "initiative":
        effects.append(OpensInitiativeEvent(name=event_name.strip()))
    if request.kind in SIDE_TESTS and (target := npc_target(request.a, session)) is not None:
        effects.append(TargetsNpc(target=target, modifier_id=request.a.npc_modifier_id))
    return Case(
        system=f1000.SYSTEM,
        mode=request.kind,
        test=test.kind,
        input=test.to_input(),
        people=people,
        names=names,
        is_action=request.kind != "initiative",
        what=_what(test),
        gm_typed=request.uses_gm_modifiers or request.uses_action_modifiers,
        request_fields=request_fields_of(request),
        effects=tuple(effects),
    )


def _healing_kind(request: RollRequest) -> str:
    skill = Skill.objects.filter(pk=request.a.skill_id).first() if request.a else None
    if skill is None or not skill.heals:
        raise RequestError("a-skill", "not_a_healing_skill")
    return skill.heals


def _what(test) -> str:
    """The test in catalog words (the same in every language): "Uwodzenie (Charyzma)",
    "Siła + Zręczność", "Zręczność"; an opposed roll names its initiator's."""
    if isinstance(test, f1000.OpposedTest):
        test = test.a
    if isinstance(test, f1000.HealingTest):
        test = test.skill
    if isinstance(test, f1000.InitiativeTest):
        return ", ".join(entry.name for entry in test.characters)
    if isinstance(test, f1000.CombinedTest):
        return " + ".join(a.name for a in test.attributes)
    if isinstance(test, f1000.SkillTest):
        if not test.skill:
            return f"{test.attribute.name} ÷ 2"
        return f"{test.skill} ({test.attribute.name})"
    return test.attribute.name


def summary(case: Case) -> str:
    """A request in words, from the sheet as it was: "Uwodzenie (Charyzma) · Seksapil +50"."""
    sources = [
        f"{m['label']} {signed_number(m['value'])}"
        for m in case.input.get("modifiers", [])
        if m.get("scope") == "attribute" and m.get("label")
    ]
    return " · ".join([case.what, *sources])
