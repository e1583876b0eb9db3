"""Catalogs per rule system and character sheets (karta postaci, KP)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from characters.systems import RuleSystem

# Bounds on free text: forms refuse more, next to the field.
CHARACTER_DESCRIPTION_MAX = 5_000
CATALOG_TEXT_MAX = 2_000
NOTE_MAX = 200  # effect descriptions, freed notes, potion effects, revision notes
COMMENT_MAX = 1_000  # a GM's comment on a sheet proposal

# ---------------------------------------------------------------------------
# Catalogs: what a system offers, edited in the admin, seeded by migrations.
# ---------------------------------------------------------------------------


class Attribute(models.Model):
    """A characteristic (cecha), e.g. Percepcja."""

    system = models.CharField(_("rule system"), max_length=20, choices=RuleSystem.choices)
    name = models.CharField(_("name"), max_length=60)
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["system", "position", "name"]
        constraints = [
            models.UniqueConstraint(fields=["system", "name"], name="attribute_unique_name"),
        ]
        verbose_name = _("attribute")
        verbose_name_plural = _("attributes")

    def __str__(self) -> str:
        return self.name


class HealingKind(models.TextChoices):
    """What a healing skill removes; also the kind of a negative effect."""

    WOUND = "wound", _("wound")
    DISEASE = "disease", _("disease or poison")


class EffectKind(models.TextChoices):
    """What a negative effect is. Healing frees wounds, or illness and poison;
    stun and immobilisation also drop the character to the end of the initiative order."""

    WOUND = "wound", _("wound")
    ILLNESS = "illness", _("illness")
    POISON = "poison", _("poison")
    STUN = "stun", _("stun")
    IMMOBILISATION = "immobilisation", _("immobilisation")
    SPELL = "spell", _("spell")
    OTHER = "other", _("other")


# The negative-effect kinds a healing skill of each kind frees (RULES 1.6).
HEALED_EFFECT_KINDS = {
    HealingKind.WOUND: frozenset({EffectKind.WOUND}),
    HealingKind.DISEASE: frozenset({EffectKind.ILLNESS, EffectKind.POISON}),
}
# Effects holding a character at the end of the initiative order (seed 000 line 119).
HOLDING_EFFECT_KINDS = frozenset({EffectKind.STUN, EffectKind.IMMOBILISATION})


class Skill(models.Model):
    """A skill (umiejętność), bound to exactly one attribute."""

    system = models.CharField(_("rule system"), max_length=20, choices=RuleSystem.choices)
    name = models.CharField(_("name"), max_length=80)
    attribute = models.ForeignKey(
        Attribute, on_delete=models.PROTECT, related_name="skills", verbose_name=_("attribute")
    )
    description = models.TextField(_("description"), blank=True, max_length=CATALOG_TEXT_MAX)
    heals = models.CharField(
        _("heals"),
        max_length=10,
        choices=HealingKind.choices,
        blank=True,
        help_text=_("For healing skills: the kind of negative effect the skill removes."),
    )

    class Meta:
        ordering = ["system", "name"]
        constraints = [
            models.UniqueConstraint(fields=["system", "name"], name="skill_unique_name"),
        ]
        verbose_name = _("skill")
        verbose_name_plural = _("skills")

    def __str__(self) -> str:
        return self.name


class TraitKind(models.TextChoices):
    ABILITY = "ability", _("ability")
    FLAW = "flaw", _("flaw")


class Trait(models.Model):
    """An ability (zdolność) or flaw (wada): a signed modifier to one attribute."""

    system = models.CharField(_("rule system"), max_length=20, choices=RuleSystem.choices)
    kind = models.CharField(_("kind"), max_length=10, choices=TraitKind.choices)
    name = models.CharField(_("name"), max_length=80)
    attribute = models.ForeignKey(
        Attribute, on_delete=models.PROTECT, related_name="traits", verbose_name=_("attribute")
    )
    modifier = models.SmallIntegerField(_("modifier"))
    # q10: `modifier` adds to the pool's X (dice) and this to its Y (kept dice).
    keep_modifier = models.SmallIntegerField(
        _("kept dice modifier"),
        default=0,
        help_text=_("Q10: added to the dice kept (Y); the modifier adds to the dice rolled (X)."),
    )
    # ciernie (seed 002, "Przerzut"): equipment or abilities allowing a reroll.
    rerolls = models.BooleanField(
        _("reroll source"),
        default=False,
        help_text=_("Ciernie i Gwiazdy: allows one reroll of a failed test."),
    )
    # arsmagica (seed 003): "zdolności, które redukują liczbę kości fuszerki".
    botch_dice_reduction = models.PositiveSmallIntegerField(
        _("fewer botch dice"),
        default=0,
        help_text=_("Ars Magica: this many fewer botch dice on every stress roll (not below 0)."),
    )
    description = models.TextField(_("description"), blank=True, max_length=CATALOG_TEXT_MAX)

    class Meta:
        ordering = ["system", "kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["system", "name"], name="trait_unique_name"),
        ]
        verbose_name = _("ability or flaw")
        verbose_name_plural = _("abilities and flaws")

    def __str__(self) -> str:
        return self.name


class Item(models.Model):
    """A story item (przedmiot fabularny), optionally a modifier to one attribute."""

    system = models.CharField(_("rule system"), max_length=20, choices=RuleSystem.choices)
    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True, max_length=CATALOG_TEXT_MAX)
    attribute = models.ForeignKey(
        Attribute,
        on_delete=models.PROTECT,
        related_name="items",
        null=True,
        blank=True,
        verbose_name=_("attribute"),
    )
    modifier = models.SmallIntegerField(_("modifier"), default=0)
    # RULES 1.5: a character holding a mount moves Szybkość/10 m per action when riding it.
    is_mount = models.BooleanField(
        _("mount"),
        default=False,
        help_text=_("A mount: whoever holds it may move mounted (Szybkość/10 m per action)."),
    )
    keep_modifier = models.SmallIntegerField(
        _("kept dice modifier"),
        default=0,
        help_text=_("Q10: added to the dice kept (Y); the modifier adds to the dice rolled (X)."),
    )
    rerolls = models.BooleanField(
        _("reroll source"),
        default=False,
        help_text=_("Ciernie i Gwiazdy: allows one reroll of a failed test."),
    )

    class Meta:
        ordering = ["system", "name"]
        constraints = [
            models.UniqueConstraint(fields=["system", "name"], name="item_unique_name"),
            # A modifier needs an attribute to apply to.
            models.CheckConstraint(
                condition=Q(modifier=0) | Q(attribute__isnull=False),
                name="item_modifier_needs_attribute",
            ),
            models.CheckConstraint(
                condition=Q(keep_modifier=0) | Q(attribute__isnull=False),
                name="item_keep_modifier_needs_attribute",
            ),
        ]
        verbose_name = _("story item")
        verbose_name_plural = _("story items")

    def __str__(self) -> str:
        return self.name


class CatalogVersion(models.Model):
    """One row: a random token database triggers replace on every write of the catalogs a
    roll form reads (attributes, skills), in the writing transaction. A process caches the
    catalogs under it (characters.selectors.system_catalog); a missing row means no version
    is known, and nothing is cached."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1)
    token = models.CharField(max_length=64)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(id=1), name="catalog_version_one_row")]

    def __str__(self) -> str:
        return self.token


# ---------------------------------------------------------------------------
# Characters
# ---------------------------------------------------------------------------


class CharacterQuerySet(models.QuerySet):
    def owned_by(self, user):
        return self.filter(owner=user) if user.is_authenticated else self.none()

    def with_values(self):
        """What a roll reads off the sheet: values, levels, abilities, flaws, items."""
        return self.select_related("owner").prefetch_related(
            models.Prefetch(
                "attribute_values", queryset=AttributeValue.objects.select_related("attribute")
            ),
            models.Prefetch(
                "skill_levels", queryset=SkillLevel.objects.select_related("skill__attribute")
            ),
            models.Prefetch("traits", queryset=Trait.objects.select_related("attribute")),
            models.Prefetch(
                "item_holdings", queryset=ItemHolding.objects.select_related("item__attribute")
            ),
        )

    def with_sheet(self):
        """Everything the sheet shows, in a fixed number of queries."""
        return self.with_values().prefetch_related("effects", "potions")


class GrammaticalGender(models.TextChoices):
    """Which form a Polish participle or adjective about the character takes: "Borys
    ogłuszony", "Lirael ogłuszona", "Stado ogłuszone"."""

    MASCULINE = "masculine", _("masculine (he: stunned)")
    FEMININE = "feminine", _("feminine (she: stunned)")
    NEUTER = "neuter", _("neuter or a group (it, they: stunned)")


class Character(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="characters",
        verbose_name=_("owner"),
    )
    name = models.CharField(_("name"), max_length=80)
    system = models.CharField(_("rule system"), max_length=20, choices=RuleSystem.choices)
    description = models.TextField(
        _("description"), blank=True, max_length=CHARACTER_DESCRIPTION_MAX
    )
    # Polish's generic masculine for a sheet that does not say (every sheet made before
    # the field); the owner picks it on the sheet.
    grammatical_gender = models.CharField(
        _("grammatical gender"),
        max_length=10,
        choices=GrammaticalGender.choices,
        default=GrammaticalGender.MASCULINE,
        help_text=_("How the site writes about the character: stunned, wounded, next."),
    )
    hp_current = models.PositiveIntegerField(_("current HP"))
    hp_max = models.PositiveIntegerField(_("maximum HP"))
    traits = models.ManyToManyField(
        Trait, blank=True, related_name="characters", verbose_name=_("abilities and flaws")
    )
    # NPC mode gm_character: the GM's stand-in sheet for an NPC. It carries no
    # items, never joins a session as a participant, and plays only through its NPC.
    is_stand_in = models.BooleanField(_("NPC stand-in"), default=False, editable=False)
    # The re-encoded portrait (characters/portraits.py) under a content-hash name;
    # its size is kept so pages set width/height and the layout does not jump.
    portrait = models.FileField(_("portrait"), blank=True, max_length=120, editable=False)
    portrait_width = models.PositiveSmallIntegerField(default=0, editable=False)
    portrait_height = models.PositiveSmallIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(hp_current__lte=models.F("hp_max")), name="character_hp_within_max"
            ),
            models.CheckConstraint(condition=Q(hp_max__gte=1), name="character_hp_max_positive"),
        ]
        verbose_name = _("character")
        verbose_name_plural = _("characters")

    def __str__(self) -> str:
        return self.name

    def attribute_value(self, attribute_id: int) -> int:
        """Value of one attribute; uses the prefetched rows when there are any."""
        for row in self.attribute_values.all():
            if row.attribute_id == attribute_id:
                return row.value
        return 0

    def value_of(self, attribute_name: str) -> int | None:
        """Value of an attribute by its name (e.g. Szybkość), or None if the sheet lacks it."""
        for row in self.attribute_values.all():
            if row.attribute.name == attribute_name:
                return row.value
        return None

    def skill_level(self, skill_id: int) -> int:
        """Level of one skill; an undeveloped skill has level 0."""
        for row in self.skill_levels.all():
            if row.skill_id == skill_id:
                return row.level
        return 0

    def active_effects(self):
        return [effect for effect in self.effects.all() if effect.freed_at is None]

    @property
    def is_down(self) -> bool:
        """At 0 HP: what happens is the GM's call; the site only marks it."""
        return self.hp_current == 0


class AttributeValue(models.Model):
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="attribute_values"
    )
    attribute = models.ForeignKey(Attribute, on_delete=models.PROTECT, related_name="+")
    value = models.IntegerField(_("value"))

    class Meta:
        ordering = ["attribute__position", "attribute__name"]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "attribute"], name="attribute_value_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.attribute}: {self.value}"


class SkillLevel(models.Model):
    """A developed skill. Skills without a row have level 0."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="skill_levels")
    skill = models.ForeignKey(Skill, on_delete=models.PROTECT, related_name="+")
    level = models.PositiveSmallIntegerField(_("level"))

    class Meta:
        ordering = ["skill__name"]
        constraints = [
            models.UniqueConstraint(fields=["character", "skill"], name="skill_level_unique"),
            models.CheckConstraint(condition=Q(level__gte=1), name="skill_level_developed"),
        ]

    def __str__(self) -> str:
        return f"{self.skill}: {self.level}"


class ItemHolding(models.Model):
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="item_holdings")
    item = models.ForeignKey(Item, on_delete=models.PROTECT, related_name="+")
    quantity = models.PositiveSmallIntegerField(_("quantity"), default=1)

    class Meta:
        ordering = ["item__name"]
        constraints = [
            models.UniqueConstraint(fields=["character", "item"], name="item_holding_unique"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="item_holding_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.item} ×{self.quantity}"


class NegativeEffect(models.Model):
    """A wound, illness, stun, spell…: healing (of its kind) or the GM frees it; never deleted."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="effects")
    kind = models.CharField(_("kind"), max_length=20, choices=EffectKind.choices)
    description = models.CharField(_("description"), max_length=NOTE_MAX)
    created_at = models.DateTimeField(_("since"), auto_now_add=True)
    freed_at = models.DateTimeField(_("freed"), null=True, blank=True)
    freed_note = models.CharField(_("how it was freed"), max_length=NOTE_MAX, blank=True)
    # The turn it began, counted in the game session it began in (characters know
    # no sessions: a plain number, not a foreign key); both empty for an effect added on the
    # sheet, outside any session's turn. With a length of N turns, an effect that began in
    # turn t is active in turns t..t+N-1 and ends by itself when turn t+N opens.
    began_in_session = models.PositiveBigIntegerField(_("session"), null=True, blank=True)
    began_turn = models.PositiveIntegerField(_("began in turn"), null=True, blank=True)
    length_turns = models.PositiveSmallIntegerField(_("length in turns"), null=True, blank=True)
    ended_by_itself = models.BooleanField(_("ended by itself"), default=False)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            # A length counts turns, so it needs the turn (and session) it began in.
            models.CheckConstraint(
                condition=Q(length_turns__isnull=True)
                | Q(began_turn__isnull=False, began_in_session__isnull=False, length_turns__gte=1),
                name="effect_length_needs_turn",
            ),
        ]
        verbose_name = _("negative effect")
        verbose_name_plural = _("negative effects")

    def __str__(self) -> str:
        return self.description

    @property
    def ends_at_turn(self) -> int | None:
        """The turn whose opening ends it by itself (t+N), or None when it lasts until freed."""
        if self.length_turns is None or self.began_turn is None:
            return None
        return self.began_turn + self.length_turns

    @property
    def last_turn(self) -> int | None:
        """The last turn it is active in (t+N-1)."""
        ends = self.ends_at_turn
        return None if ends is None else ends - 1


class HealingPotion(models.Model):
    """Healing potions the GM allowed: how many, and what exactly they do."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="potions")
    count = models.PositiveSmallIntegerField(_("count"))
    effect = models.CharField(_("effect"), max_length=NOTE_MAX)
    # The structured part of the effect, applied without a roll when it is used;
    # whatever else `effect` says is the GM's to apply.
    restores_hp = models.PositiveSmallIntegerField(_("restores HP"), null=True, blank=True)
    frees_kind = models.CharField(
        _("frees one effect of kind"), max_length=20, choices=EffectKind.choices, blank=True
    )

    class Meta:
        ordering = ["id"]
        verbose_name = _("healing potion")
        verbose_name_plural = _("healing potions")

    def __str__(self) -> str:
        return f"{self.count}× {self.effect}"

    @property
    def is_structured(self) -> bool:
        return bool(self.restores_hp or self.frees_kind)


class SheetChangeKind(models.TextChoices):
    """What a sheet revision records: the history says what happened, not only what changed."""

    CREATED = "created", _("created")
    EDITED = "edited", _("edited by the owner")
    PROPOSAL = "proposal", _("proposal approved")
    HP = "hp", _("current HP set")
    EFFECT_ADDED = "effect_added", _("negative effect added")
    EFFECT_FREED = "effect_freed", _("negative effect freed")
    POTION_GRANTED = "potion_granted", _("healing potions granted")
    POTION_USED = "potion_used", _("healing potion used")
    HEALING = "healing", _("healing roll")
    DAMAGE = "damage", _("HP changed in the diary")
    EFFECT_ENDED = "effect_ended", _("negative effect ended by itself")
    OTHER = "other", _("other change")


class SheetRevision(models.Model):
    """A snapshot of the sheet after each change, so GMs and moderators can see what changed,
    when, who did it and how (values are names and numbers, not ids, to stay readable)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="revisions")
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    edited_at = models.DateTimeField(auto_now_add=True)
    snapshot = models.JSONField()
    kind = models.CharField(
        _("kind"), max_length=20, choices=SheetChangeKind.choices, default=SheetChangeKind.EDITED
    )
    note = models.CharField(_("revision note"), max_length=NOTE_MAX, blank=True)
    proposal = models.ForeignKey(
        "SheetProposal", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-edited_at", "-id"]

    def __str__(self) -> str:
        return f"{self.character} @ {self.edited_at:%Y-%m-%d %H:%M}"


class ProposalStatus(models.TextChoices):
    PENDING = "pending", _("waiting for the GM")
    APPROVED = "approved", _("approved by the GM")
    REJECTED = "rejected", _("rejected by the GM")
    SUPERSEDED = "superseded", _("replaced by a newer proposal")


class SheetProposal(models.Model):
    """The owner's edit of a sheet in play: it waits for the GM of the running session.

    `values` holds catalog ids and numbers ({"name", "description", "hp_max",
    "attributes": {id: value}, "skills": {id: level}, "traits": [id], "items": {id: qty}});
    approval re-checks them against the catalog of that moment. Current HP is never
    proposed: in play it is the GM's.
    """

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="proposals")
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    proposed_at = models.DateTimeField(auto_now_add=True)
    values = models.JSONField()
    status = models.CharField(
        _("status"), max_length=12, choices=ProposalStatus.choices, default=ProposalStatus.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    comment = models.TextField(_("GM's comment"), blank=True, max_length=COMMENT_MAX)

    class Meta:
        ordering = ["-proposed_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["character"],
                condition=Q(status="pending"),
                name="sheet_proposal_one_pending",
            ),
        ]
        verbose_name = _("sheet change proposal")
        verbose_name_plural = _("sheet change proposals")

    def __str__(self) -> str:
        return f"{self.character} ({self.get_status_display()})"
