"""Reads for character pages: the sheet with its derived numbers."""

import dataclasses
from dataclasses import dataclass

from django.db.models import F, Subquery
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from characters.models import (
    HOLDING_EFFECT_KINDS,
    Attribute,
    AttributeValue,
    CatalogVersion,
    Character,
    GrammaticalGender,
    Item,
    ItemHolding,
    NegativeEffect,
    ProposalStatus,
    SheetProposal,
    Skill,
    SkillLevel,
    Trait,
)
from characters.systems import (
    DERIVED_LABELS,
    MOVEMENT_RULES,
    SOURCE_TEST_LABELS,
    SPEED_ATTRIBUTE,
    RuleSystem,
    SystemWords,
    attribute_with_source,
    skill_numbers,
    skill_with_source,
    words_for,
)


@dataclass(frozen=True)
class SkillRow:
    skill: Skill
    level: int
    attribute_value: int
    threshold: int | None  # d1000: what a roll must not exceed, before modifiers
    # The system's derived number, as the sheet shows it (characters.systems.skill_numbers):
    # the threshold, q10's pool "XzY" of a developed skill, Ars Magica's characteristic +
    # ability; None: nothing.
    derived: str | None = None
    # The same number with each of the sheet's sources of the skill's attribute: "395 z
    # Precyzyjny" ("" when there is none, or the system shows no derived number).
    with_sources: str = ""


@dataclass(frozen=True)
class AttributeRow:
    attribute: Attribute
    value: int
    # What a test uses with each of the sheet's sources tied to it, when it applies:
    # "(test cechy: 690 z Dobry Wzrok, gdy ma zastosowanie)"; "" when none is.
    with_sources: str = ""


@dataclass(frozen=True)
class SheetSource:
    """An ability, flaw or item on the sheet that changes tests of one attribute."""

    name: str
    attribute_id: int
    dice: int  # the modifier: threshold points, q10's dice, Ars Magica's bonus
    keep: int = 0  # q10's kept dice


@dataclass(frozen=True)
class Sheet:
    character: Character
    attributes: list[AttributeRow]  # in catalog order
    skills: list[SkillRow]
    abilities: list[Trait]
    flaws: list[Trait]
    movement_on_foot: int | None
    movement_mounted: int | None
    words: SystemWords | None = None
    derived_label: str = ""  # the skills table's column for SkillRow.derived ("" hides it)
    reroll_sources: list = dataclasses.field(default_factory=list)  # ciernie: Trait/Item rows

    @property
    def has_sources(self) -> bool:
        """Whether an attribute says what a test uses with the sheet's sources."""
        return any(row.with_sources for row in self.attributes)


def characters_of(user):
    return Character.objects.owned_by(user).order_by("name")


def character_with_sheet(pk: int) -> Character:
    return Character.objects.with_sheet().get(pk=pk)


def sheet_for(character: Character) -> Sheet:
    """The sheet as shown: every catalog skill (level 0 when undeveloped) and derived numbers."""
    system = character.system
    values_by_attribute = {row.attribute_id: row.value for row in character.attribute_values.all()}
    traits = list(character.traits.all())
    sources = sheet_sources(character, traits)
    skills = []
    for skill in Skill.objects.filter(system=system).select_related("attribute"):
        level = character.skill_level(skill.pk)
        value = values_by_attribute.get(skill.attribute_id, 0)
        threshold, derived = skill_numbers(system, level, value)
        with_sources = [
            (
                source,
                skill_with_source(
                    system, skill.attribute.name, level, value, source.dice, source.keep
                ),
            )
            for source in sources
            if source.attribute_id == skill.attribute_id
        ]
        shown = "; ".join(
            _("%(number)s with %(source)s") % {"number": number, "source": source.name}
            for source, number in with_sources
            if number is not None
        )
        skills.append(SkillRow(skill, level, value, threshold, derived, shown))
    speed = character.value_of(SPEED_ATTRIBUTE)
    on_foot = mounted = None
    movement = MOVEMENT_RULES.get(system)
    if movement is not None and speed is not None:
        on_foot, mounted = movement.movement_metres(speed)
        if not any(h.item.is_mount for h in character.item_holdings.all()):
            mounted = None  # RULES 1.5: mounted movement only for a character with a mount
    reroll_sources = []
    if system == RuleSystem.CIERNIE:
        reroll_sources = [t for t in traits if t.rerolls] + [
            h.item for h in character.item_holdings.all() if h.item.rerolls
        ]
    label = DERIVED_LABELS.get(system, "")
    return Sheet(
        character=character,
        attributes=[
            _attribute_row(system, row, sources) for row in character.attribute_values.all()
        ],
        skills=skills,
        abilities=[t for t in traits if t.kind == "ability"],
        flaws=[t for t in traits if t.kind == "flaw"],
        movement_on_foot=on_foot,
        movement_mounted=mounted,
        words=words_for(system),
        derived_label=str(label) if label else "",
        reroll_sources=reroll_sources,
    )


def sheet_sources(character: Character, traits: list[Trait]) -> list[SheetSource]:
    """The sheet's abilities, flaws and held items that change tests of one attribute, in the
    order the sheet lists them (what the roll panel offers to tick)."""
    keeps = character.system == RuleSystem.Q10
    entries = traits + [h.item for h in character.item_holdings.all()]
    return [
        SheetSource(entry.name, entry.attribute_id, entry.modifier, entry.keep_modifier or 0)
        for entry in entries
        if entry.attribute_id and (entry.modifier or (keeps and entry.keep_modifier))
    ]


def _attribute_row(system: str, row: AttributeValue, sources: list[SheetSource]) -> AttributeRow:
    tests = [
        _("%(number)s with %(source)s")
        % {
            "number": attribute_with_source(
                system, row.attribute.name, row.value, source.dice, source.keep
            ),
            "source": source.name,
        }
        for source in sources
        if source.attribute_id == row.attribute_id
    ]
    if not tests:
        return AttributeRow(row.attribute, row.value)
    shown = ngettext(
        "(%(test)s: %(tests)s, when it applies)",
        "(%(test)s: %(tests)s, when they apply)",
        len(tests),
    ) % {"test": SOURCE_TEST_LABELS.get(system, ""), "tests": "; ".join(tests)}
    return AttributeRow(row.attribute, row.value, shown)


def sheet_snapshot(character: Character) -> dict:
    """What a sheet revision keeps (names and numbers); `character` comes `with_sheet()`."""
    return {
        "name": character.name,
        "description": character.description,
        "hp": [character.hp_current, character.hp_max],
        "attributes": {r.attribute.name: r.value for r in character.attribute_values.all()},
        "skills": {r.skill.name: r.level for r in character.skill_levels.all()},
        "traits": sorted(t.name for t in character.traits.all()),
        "items": {h.item.name: h.quantity for h in character.item_holdings.all()},
        "effects": [f"{e.get_kind_display()}: {e.description}" for e in character.active_effects()],
        "potions": {p.effect: p.count for p in character.potions.all() if p.count},
    }


@dataclass(frozen=True)
class SheetChange:
    revision: object  # SheetRevision
    changes: list[tuple[str, object, object]]  # (what, before, after)


def sheet_history(character: Character) -> list[SheetChange]:
    """Each saved version of the sheet with what it changed against the one before."""
    revisions = list(
        character.revisions.select_related("edited_by", "proposal__proposed_by").order_by(
            "edited_at", "id"
        )
    )
    history, previous = [], {}
    for revision in revisions:
        now = _flatten(revision.snapshot, traits_label=str(words_for(character.system).traits))
        history.append(SheetChange(revision, _diff(previous, now) if previous else []))
        previous = now
    return list(reversed(history))


def _diff(before: dict, after: dict) -> list[tuple[str, object, object]]:
    keys = list(dict.fromkeys([*before, *after]))
    return [(k, before.get(k), after.get(k)) for k in keys if before.get(k) != after.get(k)]


def _flatten(snapshot: dict, traits_label: str) -> dict[str, object]:
    # Older snapshots lack description, effects and potions: .get keeps them readable.
    flat: dict[str, object] = {
        _("Name"): snapshot["name"],
        _("Description"): snapshot.get("description") or None,
        "HP": "/".join(map(str, snapshot["hp"])),
    }
    for group in ("attributes", "skills", "items"):
        flat.update(snapshot[group])
    flat[traits_label] = ", ".join(snapshot["traits"]) or None
    if "effects" in snapshot:
        flat[_("Negative effects")] = "; ".join(snapshot["effects"]) or None
    for effect, count in snapshot.get("potions", {}).items():
        flat[f"{_('Healing potions')}: {effect}"] = count
    return flat


# ---------------------------------------------------------------------------
# Proposals (the owner's edits in play, waiting for the GM)
# ---------------------------------------------------------------------------


def _proposable(character: Character) -> dict[str, object]:
    """The part of the sheet an owner may propose to change, flat and readable."""
    flat: dict[str, object] = {
        _("Name"): character.name,
        _("Description"): character.description or None,
        _("Grammatical gender"): str(character.get_grammatical_gender_display()),
        _("Maximum HP"): character.hp_max,
    }
    flat.update({r.attribute.name: r.value for r in character.attribute_values.all()})
    flat.update({r.skill.name: r.level for r in character.skill_levels.all()})
    flat.update({h.item.name: h.quantity for h in character.item_holdings.all()})
    flat[str(words_for(character.system).traits)] = (
        ", ".join(sorted(t.name for t in character.traits.all())) or None
    )
    return flat


def _proposed(system: str, values: dict, character: Character) -> dict[str, object]:
    """A proposal's ids as names; a row gone from the catalog shows as its id."""

    def names(model, ids):
        found = model.objects.filter(system=system, pk__in=[int(i) for i in ids]).in_bulk()
        return {str(i): (found[int(i)].name if int(i) in found else f"#{i}") for i in ids}

    attributes = names(Attribute, values["attributes"])
    skills = names(Skill, values["skills"])
    items = names(Item, values["items"])
    traits = names(Trait, values["traits"])
    flat: dict[str, object] = {
        _("Name"): values["name"],
        _("Description"): values["description"] or None,
        _("Grammatical gender"): str(
            GrammaticalGender(
                values.get("grammatical_gender") or character.grammatical_gender
            ).label
        ),
        _("Maximum HP"): values["hp_max"],
    }
    flat.update({attributes[k]: v for k, v in values["attributes"].items()})
    flat.update({skills[k]: v for k, v in values["skills"].items() if v})
    flat.update({items[k]: q for k, q in values["items"].items() if q})
    flat[str(words_for(system).traits)] = (
        ", ".join(sorted(traits[str(i)] for i in values["traits"])) or None
    )
    return flat


def proposal_changes(character: Character, values: dict) -> list[tuple[str, object, object]]:
    """(what, now, proposed) for each line a proposal would change; `character` comes
    `with_values()`."""
    return _diff(_proposable(character), _proposed(character.system, values, character))


@dataclass(frozen=True)
class PendingProposal:
    proposal: SheetProposal
    changes: list[tuple[str, object, object]]


def pending_proposal(character: Character) -> PendingProposal | None:
    proposal = (
        character.proposals.filter(status=ProposalStatus.PENDING)
        .select_related("proposed_by")
        .first()
    )
    if proposal is None:
        return None
    return PendingProposal(proposal, proposal_changes(character, proposal.values))


def last_decided_proposal(character: Character) -> SheetProposal | None:
    """The owner's latest decided proposal, to show a rejection and the GM's comment."""
    return (
        character.proposals.filter(status__in=(ProposalStatus.APPROVED, ProposalStatus.REJECTED))
        .select_related("decided_by")
        .order_by("-decided_at", "-id")
        .first()
    )


def proposals_waiting_for(user):
    """Pending proposals of the characters the user tends as GM of a running session."""
    from characters.access import tended_character_ids

    ids = tended_character_ids(user)
    if not ids:
        return SheetProposal.objects.none()
    return (
        SheetProposal.objects.filter(status=ProposalStatus.PENDING, character_id__in=ids)
        .select_related("character", "proposed_by")
        .order_by("proposed_at", "id")
    )


def catalog_entry_in_use(entry: Attribute | Skill | Trait | Item) -> bool:
    """Does a character's sheet hold this catalog row, so that changing it changes the sheet?

    An attribute is also in use when a held skill, ability, flaw or item is tied to it
    (its name and place are what those rows point at). The speed attribute is always
    in use: the engine finds initiative's and movement's attribute by its name.
    """
    if isinstance(entry, Attribute):
        return (
            (entry.system in MOVEMENT_RULES and entry.name == SPEED_ATTRIBUTE)
            or AttributeValue.objects.filter(attribute=entry).exists()
            or SkillLevel.objects.filter(skill__attribute=entry).exists()
            or Trait.objects.filter(attribute=entry, characters__isnull=False).exists()
            or ItemHolding.objects.filter(item__attribute=entry).exists()
        )
    if isinstance(entry, Skill):
        return SkillLevel.objects.filter(skill=entry).exists()
    if isinstance(entry, Trait):
        return entry.characters.exists()
    if isinstance(entry, Item):
        return ItemHolding.objects.filter(item=entry).exists()
    raise TypeError(f"not a catalog row: {entry!r}")


def held_character_ids(character_ids, turn_number: int | None = None) -> set[int]:
    """Characters a stun or an immobilisation holds now (seed 000 line 119: they drop to the
    end of the initiative order while it lasts). One query.

    An effect with a length ends by itself when turn began+length opens (opening the turn
    frees it: characters.services.effects_end_by_turn). `turn_number`, the caller's session's
    current turn, is a guard on top: an effect whose last turn is behind it never holds."""
    effects = NegativeEffect.objects.filter(
        character_id__in=list(character_ids),
        kind__in=HOLDING_EFFECT_KINDS,
        freed_at__isnull=True,
    )
    if turn_number is not None:
        effects = effects.exclude(
            length_turns__isnull=False,
            began_turn__lte=turn_number - F("length_turns"),
        )
    return set(effects.values_list("character_id", flat=True))


def mount_holder_ids(character_ids) -> set[int]:
    """Characters whose sheet holds a mount (RULES 1.5: only they move mounted). One query."""
    return set(
        ItemHolding.objects.filter(
            character_id__in=list(character_ids), item__is_mount=True
        ).values_list("character_id", flat=True)
    )


@dataclass(frozen=True)
class Catalog:
    """A system's catalog as its page lists it, with the ids of the rows in use on a sheet
    (their rule fields are fixed: `catalog_entry_in_use`, in bulk)."""

    system: str
    attributes: list
    skills: list
    abilities: list
    flaws: list
    items: list
    in_use: dict  # "attribute" / "skill" / "trait" / "item" -> set of ids


def catalog_for(system: str) -> Catalog:
    """Everything a system's catalog page shows, in a fixed number of queries."""
    attributes = list(Attribute.objects.filter(system=system))
    skills = list(Skill.objects.filter(system=system).select_related("attribute"))
    traits = list(Trait.objects.filter(system=system).select_related("attribute"))
    items = list(Item.objects.filter(system=system).select_related("attribute"))
    used_skills = set(
        SkillLevel.objects.filter(skill__system=system).values_list("skill_id", flat=True)
    )
    used_traits = set(
        Trait.objects.filter(system=system, characters__isnull=False).values_list("pk", flat=True)
    )
    used_items = set(
        ItemHolding.objects.filter(item__system=system).values_list("item_id", flat=True)
    )
    used_attributes = set(
        AttributeValue.objects.filter(attribute__system=system).values_list(
            "attribute_id", flat=True
        )
    )
    used_attributes |= {s.attribute_id for s in skills if s.pk in used_skills}
    used_attributes |= {t.attribute_id for t in traits if t.pk in used_traits}
    used_attributes |= {i.attribute_id for i in items if i.pk in used_items and i.attribute_id}
    if system == RuleSystem.FORUM1000:
        used_attributes |= {a.pk for a in attributes if a.name == SPEED_ATTRIBUTE}
    return Catalog(
        system=system,
        attributes=attributes,
        skills=skills,
        abilities=[t for t in traits if t.kind == "ability"],
        flaws=[t for t in traits if t.kind == "flaw"],
        items=items,
        in_use={
            "attribute": used_attributes,
            "skill": used_skills,
            "trait": used_traits,
            "item": used_items,
        },
    )


# ---------------------------------------------------------------------------
# The roll forms' catalogs, cached per process under the catalogs' version token
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SystemCatalog:
    """A system's attributes (catalog order) and skills (by name, each with its attribute).

    Shared: the same instances go to every form of this process while the version holds,
    so a caller reads them and never changes them (nor caches anything on them)."""

    attributes: tuple[Attribute, ...]
    skills: tuple[Skill, ...]


# (system, version token) -> catalog; a new version of a system drops the older ones.
_system_catalogs: dict[tuple[str, str], SystemCatalog] = {}
_SYSTEM_CATALOGS_MAX = 16


def catalog_version_subquery() -> Subquery:
    """The catalogs' version token (None: no row, no version known), for annotating onto a
    statement a request runs anyway (the roll panel's session) instead of a query of its own."""
    return Subquery(CatalogVersion.objects.filter(pk=1).values("token")[:1])


def system_catalog(system: str, version: str | None = None) -> SystemCatalog:
    """The system's catalog for the roll forms. With a `version` token this request read
    (`catalog_version_subquery`) and this process has cached: no query. Otherwise two
    queries, each reading the token in the same statement as its rows, cached under that
    token only when both saw the same one: a write between them or a missing token row
    caches nothing, and an uncommitted write's token is one no other transaction ever reads
    (the triggers of characters/migrations/0014 draw a new token on every catalog write)."""
    if version is not None:
        cached = _system_catalogs.get((system, version))
        if cached is not None:
            return cached
    token = catalog_version_subquery()
    attributes = tuple(Attribute.objects.filter(system=system).annotate(catalog_token=token))
    skills = tuple(
        Skill.objects.filter(system=system)
        .select_related("attribute")
        .annotate(catalog_token=token)
    )
    catalog = SystemCatalog(attributes=attributes, skills=skills)
    seen = {row.catalog_token for row in (*attributes, *skills)}
    if attributes and len(seen) == 1 and None not in seen:
        (read,) = seen
        # list(): a snapshot, safe beside another thread's write (gunicorn --threads).
        for key in list(_system_catalogs):
            if key[0] == system:
                _system_catalogs.pop(key, None)
        if len(_system_catalogs) >= _SYSTEM_CATALOGS_MAX:
            _system_catalogs.clear()
        _system_catalogs[(system, read)] = catalog
    return catalog
