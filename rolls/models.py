"""The roll ledger: one append-only, hash-chained row per roll.

A roll is written once, in the transaction that gives it its sequence number
and its hash, and never again: the model refuses updates and deletes, the
QuerySet refuses bulk ones, and database triggers (migration 0002) refuse
UPDATE, DELETE and TRUNCATE for any client that gets past the ORM.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from diary.models import GameSession, Post

# Chain rows that are diary entries, not rolls (no die; rolls.entries.services): an HP
# change, an effect, an effect freed early, an item granted, an item used, a spell or
# ability used without a roll. `Roll.test` holds the kind.
ENTRY_KINDS = ("hp", "effect", "effect_free", "item_grant", "item_use", "ability_use")

# The entries that are the turn's action without a roll (seed 000 VII.1): counted with the
# action rolls, through rolls.services.check_turn_action.
ACTIONS_WITHOUT_ROLL = ("item_use", "ability_use")

# A free-form roll's record `roller` when a player made it (rolls.free.services); the GM's
# records have no `roller`, as they had before players could roll free-form dice.
PLAYER_ROLLER = "player"


def is_player_free_roll(record: dict) -> bool:
    return record.get("roller") == PLAYER_ROLLER


def is_entry_record(record: dict) -> bool:
    """A diary entry's record (it holds "entry" and no die), or one of the chain's own
    entries of no post; a case roll's mode may share a kind's name (a system's "effect"
    test), so the kind alone does not tell."""
    return (record.get("kind") in ENTRY_KINDS and "entry" in record) or record.get(
        "kind"
    ) in POSTLESS_KINDS


# A turn's own chain entries (rolls.ledger.fair_dice): its dice seeds committed and revealed. No
# post, no die, no character.
TURN_ENTRY_KINDS = ("dice_commit", "dice_reveal")
# The session's end (rolls.services.session_finishing): the chain's last entry, after every
# reveal the end makes. No post, no die.
SESSION_END_KIND = "session_end"
POSTLESS_KINDS = (*TURN_ENTRY_KINDS, SESSION_END_KIND)


class LedgerError(Exception):
    """An attempt to change or delete a roll."""


class RollQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise LedgerError("Rolls are append-only: a roll is never updated.")

    def delete(self):
        raise LedgerError("Rolls are append-only: a roll is never deleted.")

    # bulk_update goes through update(); _raw_delete is what Collector uses for fast deletes.
    def _raw_delete(self, using):
        raise LedgerError("Rolls are append-only: a roll is never deleted.")

    def in_chain_order(self):
        return self.order_by("seq")


class Roll(models.Model):
    session = models.ForeignKey(
        GameSession, on_delete=models.PROTECT, related_name="rolls", verbose_name=_("session")
    )
    seq = models.PositiveIntegerField(_("number in the session's chain"))
    # None only for the chain's own entries that belong to a turn, not to a post: a turn's
    # dice seed committed and revealed (rolls.ledger.fair_dice).
    post = models.ForeignKey(
        Post,
        on_delete=models.PROTECT,
        related_name="rolls",
        null=True,
        blank=True,
        verbose_name=_("post"),
    )
    rolled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="rolls_made",
        verbose_name=_("rolled by"),
    )
    # The acting character (side "a" of an opposed roll); none for initiative.
    character = models.ForeignKey(
        Character,
        on_delete=models.PROTECT,
        related_name="rolls",
        null=True,
        blank=True,
        verbose_name=_("character"),
    )
    system = models.CharField(_("rule system"), max_length=20)
    test = models.CharField(_("test"), max_length=20)
    turn_number = models.PositiveIntegerField(_("turn"))
    # Counts against the acting character's one action roll per turn (RULES 1.5).
    is_action = models.BooleanField(_("action roll"), default=True)
    # Everything needed to re-render and re-check the roll, hashed as canonical JSON.
    record = models.JSONField(_("record"))
    prev_hash = models.CharField(_("previous hash"), max_length=64)
    hash = models.CharField(_("hash"), max_length=64, unique=True)
    # The panel form's one-time token and a digest of what it asked for.
    token = models.UUIDField(_("form token"))
    request_digest = models.CharField(max_length=64)
    created_at = models.DateTimeField(_("rolled at"))
    # Signing (rolls.ledger.signing): the app's Ed25519 signature over `hash`, and which key
    # made it.
    # Nullable so that adding them is a plain ADD COLUMN: SQLite would otherwise rebuild the
    # table and lose its append-only triggers.
    key_id = models.CharField(_("signing key"), max_length=16, null=True, blank=True)  # noqa: DJ001
    signature = models.CharField(_("signature"), max_length=100, null=True, blank=True)  # noqa: DJ001

    objects = RollQuerySet.as_manager()

    class Meta:
        ordering = ["session", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["session", "seq"], name="roll_unique_seq"),
            models.UniqueConstraint(fields=["session", "token"], name="roll_unique_token"),
            models.CheckConstraint(condition=models.Q(seq__gte=1), name="roll_seq_from_one"),
        ]
        indexes = [
            models.Index(fields=["character", "turn_number"], name="roll_character_turn"),
        ]
        verbose_name = _("roll")
        verbose_name_plural = _("rolls")

    def __str__(self) -> str:
        return f"#{self.seq} ({self.session_id})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise LedgerError("Rolls are append-only: a roll is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LedgerError("Rolls are append-only: a roll is never deleted.")


# The GM's reason for answering a request differently, or for declining it.
ASK_NOTE_MAX_LENGTH = 300


class AskStatus(models.TextChoices):
    OPEN = "open", _("waiting for the GM")
    ANSWERED = "answered", _("answered")
    # The GM rolled something other than what was asked, and said why (RollAsk.note).
    ANSWERED_DIFFERENTLY = "answered_differently", _("answered differently")
    DECLINED = "declined", _("declined")
    WITHDRAWN = "withdrawn", _("withdrawn")


ANSWERED_STATUSES = (AskStatus.ANSWERED, AskStatus.ANSWERED_DIFFERENTLY)


class RollAsk(models.Model):
    """A player's request for a roll, attached to the post that describes the action: the
    mode and what it names of their own sheet (the test, the abilities, flaws and items that
    apply), as the system's form has them. Checked against the rules when made; the GM
    answers it with one roll, which lands in a new post placed as the answer (seed 000: the
    player says what applies, the GM rolls) — as asked, or by the GM's judgment with a
    reason — or declines it with a reason."""

    session = models.ForeignKey(GameSession, on_delete=models.PROTECT, related_name="roll_asks")
    post = models.ForeignKey(Post, on_delete=models.PROTECT, related_name="roll_asks")
    asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="roll_asks"
    )
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="roll_asks")
    test = models.CharField(_("test"), max_length=20)  # the panel's mode
    # What the request names, by the mode form's field names (RollSystem.ask_fields), as the
    # panel's link prefills them for the GM's answer.
    case_fields = models.JSONField(default=dict, blank=True)
    # The request in words, as checked when it was made (the sheet may change later).
    summary = models.CharField(_("request"), max_length=300)
    status = models.CharField(
        _("status"), max_length=20, choices=AskStatus.choices, default=AskStatus.OPEN
    )
    # The GM's reason: why the answer differs from the request, or why it was declined.
    note = models.CharField(
        _("GM's reason"), max_length=ASK_NOTE_MAX_LENGTH, blank=True, default=""
    )
    created_at = models.DateTimeField(_("asked at"), auto_now_add=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    # Who closed it (the GM or a co-GM who declined it; the player who withdrew it): the
    # answering roll names its roller itself.
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
        verbose_name=_("closed by"),
    )
    answer = models.OneToOneField(
        Roll,
        on_delete=models.PROTECT,
        related_name="answers_ask",
        null=True,
        blank=True,
        verbose_name=_("answering roll"),
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=ANSWERED_STATUSES, answer__isnull=False)
                | (~models.Q(status__in=ANSWERED_STATUSES) & models.Q(answer__isnull=True)),
                name="roll_ask_answered_has_roll",
            ),
            # A double send asks once (rolls.services.roll_ask_create checks it first).
            models.UniqueConstraint(
                fields=["post", "character"],
                condition=models.Q(status="open"),
                name="roll_ask_one_open_per_post",
            ),
        ]
        verbose_name = _("roll request")
        verbose_name_plural = _("roll requests")

    def __str__(self) -> str:
        return f"#{self.pk} {self.summary}"

    @property
    def is_open(self) -> bool:
        return self.status == AskStatus.OPEN


# ---------------------------------------------------------------------------
# The initiative event (RULES 1.4): opened by an initiative roll, ended by the GM.


class InitiativeEventQuerySet(models.QuerySet):
    def running(self):
        return self.filter(ended_at__isnull=True)


class InitiativeEvent(models.Model):
    """A fight, a duel or a contest: its order comes from the roll that opened it and the
    changes recorded in its history (InitiativeChange); it runs until the GM ends it. At most
    one runs in a session at a time (seed 000 line 109: one initiative roll per event)."""

    session = models.ForeignKey(
        GameSession,
        on_delete=models.PROTECT,
        related_name="initiative_events",
        verbose_name=_("session"),
    )
    name = models.CharField(_("name"), max_length=100, blank=True)
    opened_by_roll = models.OneToOneField(
        Roll,
        on_delete=models.PROTECT,
        related_name="initiative_event",
        verbose_name=_("initiative roll"),
    )
    opened_turn = models.PositiveIntegerField(_("opened in turn"))
    opened_at = models.DateTimeField(_("opened at"))
    ended_at = models.DateTimeField(_("ended at"), null=True, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
        verbose_name=_("ended by"),
    )
    ended_turn = models.PositiveIntegerField(_("ended in turn"), null=True, blank=True)

    objects = InitiativeEventQuerySet.as_manager()

    class Meta:
        ordering = ["-opened_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["session"],
                condition=models.Q(ended_at__isnull=True),
                name="initiative_event_one_running",
            ),
        ]
        verbose_name = _("initiative event")
        verbose_name_plural = _("initiative events")

    def __str__(self) -> str:
        return self.name or f"#{self.pk}"

    @property
    def is_running(self) -> bool:
        return self.ended_at is None


class InitiativeParticipant(models.Model):
    """One character or one NPC in an event, with its place in the order: a character with
    what the opening roll gave it (never changed), an NPC with what the GM gave it when it
    joined in the tracker (RULES 1.7: a fixed-modifier NPC has no sheet to roll)."""

    event = models.ForeignKey(
        InitiativeEvent, on_delete=models.PROTECT, related_name="participants"
    )
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    npc = models.ForeignKey(
        "diary.Npc", on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    name = models.CharField(_("name"), max_length=200)  # as it was at the roll
    speed = models.IntegerField(_("speed"))
    score = models.IntegerField(_("score"))
    rolled_position = models.PositiveSmallIntegerField(_("place after the roll"))
    # A sheet-less NPC's HP, where the GM gives it some; an NPC with a stand-in sheet (and
    # every character) keeps its HP on the sheet.
    hp_max = models.PositiveIntegerField(_("max HP"), null=True, blank=True)
    hp_current = models.IntegerField(_("HP"), null=True, blank=True)

    class Meta:
        ordering = ["event", "rolled_position"]
        constraints = [
            models.UniqueConstraint(
                fields=["event", "character"], name="initiative_participant_once"
            ),
            models.UniqueConstraint(
                fields=["event", "npc"], name="initiative_participant_npc_once"
            ),
            models.CheckConstraint(
                condition=(
                    models.Q(character__isnull=False, npc__isnull=True)
                    | models.Q(character__isnull=True, npc__isnull=False)
                ),
                name="initiative_participant_character_or_npc",
            ),
            models.CheckConstraint(
                condition=models.Q(hp_max__isnull=True) | models.Q(npc__isnull=False),
                name="initiative_participant_hp_only_npc",
            ),
        ]
        verbose_name = _("initiative participant")
        verbose_name_plural = _("initiative participants")

    def __str__(self) -> str:
        return self.name

    @property
    def key(self) -> int:
        """The participant's key in the order and its history: a character's id, or an
        NPC's id negated (ids are positive, so the two never meet, and the history rows
        written before NPCs could join keep their meaning)."""
        return self.character_id if self.character_id is not None else -self.npc_id


def npc_key(npc_id: int) -> int:
    return -npc_id


class ChangeKind(models.TextChoices):
    OPENED = "opened", _("event opened")
    MARKER = "marker", _("marker moved")
    MODIFIER = "modifier", _("speed or initiative modifier")
    HANDOVER = "handover", _("initiative handed over or taken over")
    JOINED = "joined", _("NPC joined")
    ENDED = "ended", _("event ended")


class InitiativeChangeQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise LedgerError("An event's history is append-only: a change is never updated.")

    def delete(self):
        raise LedgerError("An event's history is append-only: a change is never deleted.")

    def _raw_delete(self, using):
        raise LedgerError("An event's history is append-only: a change is never deleted.")


class InitiativeChange(models.Model):
    """One row of an event's history: who changed what, when, in which turn, and why.
    Written in the transaction that makes the change, never changed or deleted."""

    event = models.ForeignKey(InitiativeEvent, on_delete=models.PROTECT, related_name="changes")
    kind = models.CharField(_("kind"), max_length=10, choices=ChangeKind.choices)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", verbose_name=_("by")
    )
    created_at = models.DateTimeField(_("when"))
    turn_number = models.PositiveIntegerField(_("turn"))
    reason = models.CharField(_("reason"), max_length=200, blank=True)
    # What changed, with the names as they were: character, value, turns, position, other.
    details = models.JSONField(_("details"), default=dict)
    # The GM's form's one-time token (rolls.access): a repeated click answers with the change
    # it already made. None for the rows no form writes (opened, ended).
    token = models.UUIDField(_("form token"), null=True, blank=True)

    objects = InitiativeChangeQuerySet.as_manager()

    class Meta:
        ordering = ["event", "id"]
        constraints = [
            models.UniqueConstraint(fields=["by", "token"], name="initiative_change_unique_token"),
        ]
        verbose_name = _("initiative change")
        verbose_name_plural = _("initiative changes")

    def __str__(self) -> str:
        return f"{self.kind} ({self.event_id})"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise LedgerError("An event's history is append-only: a change is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LedgerError("An event's history is append-only: a change is never deleted.")


# ---------------------------------------------------------------------------
# Secret GM rolls (rolls.ledger.secret): the chain holds a commitment, this table the rest.


class SecretRollQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise LedgerError("A secret roll's hidden record is never updated in bulk.")

    def delete(self):
        raise LedgerError("A secret roll's hidden record is never deleted.")

    def _raw_delete(self, using):
        raise LedgerError("A secret roll's hidden record is never deleted.")


class SecretRoll(models.Model):
    """The hidden half of a secret roll: the full record its chain entry commits to and the
    salt, readable by the session's GM (and moderators, for audit) only, never by players,
    the export or the API until revealed. `reveal` is the chain entry that revealed it (at
    most one: the reveal's token is derived from the secret roll, and the pointer is
    unique). The record and the salt are never changed; only `reveal` is set, once."""

    roll = models.OneToOneField(
        Roll, on_delete=models.PROTECT, related_name="secret", verbose_name=_("secret roll")
    )
    record = models.JSONField(_("full record"))
    salt = models.CharField(_("salt"), max_length=64)
    reveal = models.OneToOneField(
        Roll,
        on_delete=models.PROTECT,
        related_name="revealed_secret",
        null=True,
        blank=True,
        verbose_name=_("reveal"),
    )

    objects = SecretRollQuerySet.as_manager()

    class Meta:
        ordering = ["roll"]
        verbose_name = _("secret roll")
        verbose_name_plural = _("secret rolls")

    def __str__(self) -> str:
        return f"secret {self.roll}"

    # The database refuses the same (rolls/migrations/0010_secret_roll_guard.py): a record
    # or salt changed after the commitment would make the reveal a lie.
    def save(self, *args, **kwargs):
        if not self._state.adding and kwargs.get("update_fields") != ["reveal"]:
            raise LedgerError("A secret roll's hidden record is never changed; only revealed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LedgerError("A secret roll's hidden record is never deleted.")

    @property
    def is_revealed(self) -> bool:
        return self.reveal_id is not None


class StressBotchFloor(models.Model):
    """Ars Magica: the fewest botch dice a player's own stress roll in the session takes,
    as the GM last set it with a roll of theirs (rolls.systems.arsmagica.effects)."""

    session = models.OneToOneField(
        GameSession,
        on_delete=models.CASCADE,
        related_name="stress_botch_floor",
        verbose_name=_("session"),
    )
    dice = models.PositiveSmallIntegerField(_("botch dice"))
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    roll = models.ForeignKey(Roll, on_delete=models.PROTECT, related_name="+")
    set_at = models.DateTimeField(_("set"), auto_now=True)

    class Meta:
        verbose_name = _("players' fewest botch dice")
        verbose_name_plural = _("players' fewest botch dice")

    def __str__(self) -> str:
        return f"{self.session_id}: {self.dice}"


class TurnSeedQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise LedgerError("A turn's dice seeds are never updated in bulk.")

    def delete(self):
        raise LedgerError("A turn's dice seeds are never deleted.")

    def _raw_delete(self, using):
        raise LedgerError("A turn's dice seeds are never deleted.")


# The only columns of a TurnSeed ever written after its insert: each reveal, once.
TURN_SEED_REVEALS = frozenset({"public_reveal", "secret_reveal"})


class TurnSeed(models.Model):
    """A turn's dice seeds (rolls.ledger.fair_dice): drawn when the turn opens, chained only as
    commitments (`commit`), revealed in the chain when the turn closes (`public_reveal`) and,
    for the secret rolls' own stream, once none of the turn's secret rolls is still sealed
    (`secret_reveal`). Seen by nobody until revealed: not the GM, not a moderator. The seeds
    are never changed; a changed one would no longer give its chained commitment. The
    database refuses the same (rolls/migrations/0016_turn_seed_guard.py): every change but
    filling a reveal once, and every delete."""

    session = models.ForeignKey(
        GameSession, on_delete=models.PROTECT, related_name="dice_seeds", verbose_name=_("session")
    )
    turn_number = models.PositiveIntegerField(_("turn"))
    seed = models.CharField(_("seed"), max_length=64)
    secret_seed = models.CharField(_("secret rolls' seed"), max_length=64)
    commit = models.OneToOneField(
        Roll, on_delete=models.PROTECT, related_name="+", verbose_name=_("commitment")
    )
    public_reveal = models.OneToOneField(
        Roll, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    secret_reveal = models.OneToOneField(
        Roll, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )

    objects = TurnSeedQuerySet.as_manager()

    class Meta:
        ordering = ["session", "turn_number"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "turn_number"], name="turn_seed_one_per_turn"
            ),
        ]
        verbose_name = _("turn's dice seed")
        verbose_name_plural = _("turns' dice seeds")

    def __str__(self) -> str:
        return f"dice seed of turn {self.turn_number} ({self.session_id})"

    def save(self, *args, **kwargs):
        fields = kwargs.get("update_fields")
        if not self._state.adding and not (fields and set(fields) <= TURN_SEED_REVEALS):
            raise LedgerError("A turn's dice seeds are never changed; only revealed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise LedgerError("A turn's dice seeds are never deleted.")


# ---------------------------------------------------------------------------
# Dice inside a post's narration (rolls.inline): `[[2k6+1 obrażenia]]`, `[[test: Percepcja]]`.


class InlineRoll(models.Model):
    """A dice marker of a post's narration and what publishing it made: a free-form roll in
    the chain (its number is written into the marker: `[[2k6+1 obrażenia #41]]`), or a
    player's request for a sheet test (`[[test: Percepcja #7]]`, the request's number).
    Never deleted: a marker taken out of the text leaves its result shown, struck through."""

    post = models.ForeignKey(Post, on_delete=models.PROTECT, related_name="inline_rolls")
    # The marker's words when it was rolled: the expression and its label, or the test's name.
    words = models.CharField(_("marker"), max_length=200)
    roll = models.OneToOneField(
        Roll, on_delete=models.PROTECT, related_name="inline", null=True, blank=True
    )
    ask = models.OneToOneField(
        RollAsk, on_delete=models.PROTECT, related_name="inline", null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["post", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(roll__isnull=False, ask__isnull=True)
                | models.Q(roll__isnull=True, ask__isnull=False),
                name="inline_roll_one_kind",
            ),
        ]
        verbose_name = _("dice in a post")
        verbose_name_plural = _("dice in posts")

    def __str__(self) -> str:
        return f"[[{self.words}]] in post {self.post_id}"

    @property
    def number(self) -> int:
        """What the marker carries: the roll's number in the chain, or the request's."""
        return self.roll.seq if self.roll_id else self.ask_id
