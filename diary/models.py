"""Game sessions, their participants, turns, and the diary's posts."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Count, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from characters.numbers import signed_number
from characters.systems import RuleSystem
from config.roles import is_moderator


class SessionStatus(models.TextChoices):
    DRAFT = "draft", _("draft")
    PLAN_SUBMITTED = "plan_submitted", _("plan submitted")
    ACCEPTED = "accepted", _("accepted")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")


class NpcMode(models.TextChoices):
    FIXED_MODIFIERS = "fixed_modifiers", _("fixed modifiers per NPC (recommended)")
    GM_CHARACTER = "gm_character", _("rolls on the GM's stand-in character")


class RollPolicy(models.TextChoices):
    GM_ONLY = "gm_only", _("only the GM rolls")
    PLAYERS_OWN = "players_own", _("players may also roll for their own characters")


class DeadlineRule(models.TextChoices):
    """What happens to the characters still awaited when a turn's deadline passes (the GM's
    rule per session; diary/deadlines/)."""

    WAIT = "wait", _("Wait for everyone")
    PASS = "pass", _("The turn passes on")
    GM_PLAYS = "gm_plays", _("The GM plays the character")


# The session form's and session_update's refusal of auto_next_turn under "wait".
AUTO_NEXT_TURN_NEEDS_A_RULE = _(
    "The site opens the next turn only when the turn does not wait for everyone: choose what "
    "happens after the deadline, or leave this off."
)


# Posts on one page of the diary (diary.selectors.diary_page); a post's URL depends on it.
DIARY_PAGE_SIZE = 20

# The chain's start (rolls.ledger.chain.GENESIS_HASH; diary does not import the rolls app).
GENESIS_HASH = "0" * 64


# The most places for characters a session may offer.
MAX_PLAYER_SLOTS = 20


# The recruiting board (diary/ads/): how often the table posts, the language it plays in,
# and the GM's few tags, as the board's filters and a player's ad name them.
class PostingPace(models.TextChoices):
    SEVERAL_A_DAY = "several_a_day", _("several times a day")
    DAILY = "daily", _("daily")
    EVERY_FEW_DAYS = "every_2_3_days", _("every 2–3 days")
    WEEKLY = "weekly", _("weekly")


class PlayLanguage(models.TextChoices):
    POLISH = "pl", _("Polish")
    ENGLISH = "en", _("English")


# A session's tags: at most this many, each at most TAG_MAX_LENGTH characters, stored
# normalised (lower case, single spaces) and joined by TAG_SEPARATOR.
MAX_TAGS = 8
TAG_MAX_LENGTH = 30
TAG_SEPARATOR = ","


class GameSessionQuerySet(models.QuerySet):
    def listed_for(self, user):
        """Sessions a user sees in the list: past the draft, or their own, or all for moderators."""
        if is_moderator(user):
            return self
        return self.filter(
            ~Q(status=SessionStatus.DRAFT) | Q(gm=user) | Q(pk__in=co_gm_sessions(user))
        )

    def run_by(self, user):
        """Sessions the user runs: as their GM or as a co-GM (CoGameMaster)."""
        return self.filter(Q(gm=user) | Q(pk__in=co_gm_sessions(user)))

    def with_places(self):
        """Each session with `players_accepted` and `open_places` (its places for characters
        less the characters playing), in the same query."""
        accepted = (
            Participation.objects.filter(
                session=OuterRef("pk"), status=ParticipationStatus.ACCEPTED
            )
            .order_by()
            .values("session")
            .annotate(count=Count("pk"))
            .values("count")
        )
        players = Coalesce(Subquery(accepted, output_field=IntegerField()), Value(0))
        return self.annotate(
            players_accepted=players,
            open_places=models.ExpressionWrapper(
                F("player_slots") - players, output_field=IntegerField()
            ),
        )

    def recruiting_now(self):
        """Sessions that take applications: recruitment open, past the draft and not
        finished, with a free place (see `with_places`)."""
        return (
            self.with_places()
            .filter(recruiting=True, open_places__gt=0)
            .exclude(status__in=(SessionStatus.DRAFT, SessionStatus.FINISHED))
        )


class GameSession(models.Model):
    title = models.CharField(_("title"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    gm = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="sessions_run",
        verbose_name=_("game master"),
    )
    system = models.CharField(
        _("rule system"), max_length=20, choices=RuleSystem.choices, default=RuleSystem.FORUM1000
    )
    status = models.CharField(
        _("status"), max_length=20, choices=SessionStatus.choices, default=SessionStatus.DRAFT
    )
    criticals_enabled = models.BooleanField(
        _("criticals"),
        default=True,
        help_text=_("Off = the simplified system: critical luck and bad luck are not shown."),
    )
    npc_mode = models.CharField(
        _("NPC mode"), max_length=20, choices=NpcMode.choices, default=NpcMode.FIXED_MODIFIERS
    )
    roll_policy = models.CharField(
        _("who may roll"), max_length=20, choices=RollPolicy.choices, default=RollPolicy.GM_ONLY
    )
    players_free_rolls = models.BooleanField(
        _("players may make free-form rolls"),
        default=False,
        help_text=_(
            "On = players roll dice notation (e.g. 2k6+1) into their own posts, in the chain "
            "like every roll."
        ),
    )
    # Recruitment: the GM opens and closes it; applications are taken while it is open
    # and a place is free (places count the characters playing, not those asking).
    recruiting = models.BooleanField(
        _("recruiting players"),
        default=False,
        help_text=_(
            "On = the session is on the recruiting board and players may ask to join "
            "while places are free."
        ),
    )
    player_slots = models.PositiveSmallIntegerField(
        _("places for characters"),
        default=4,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_PLAYER_SLOTS)],
    )
    posting_habits = models.CharField(
        _("schedule and posting habits"),
        max_length=200,
        blank=True,
        help_text=_("E.g. posts every 2–3 days, the turn closes on Sunday."),
    )
    # The deadline's rule (diary/deadlines/): what the turn does with whoever has not posted
    # by the deadline, and whether the site opens the next turn itself (never with "wait").
    deadline_rule = models.CharField(
        _("after the deadline"),
        max_length=20,
        choices=DeadlineRule.choices,
        default=DeadlineRule.WAIT,
        db_default=DeadlineRule.WAIT,
    )
    auto_next_turn = models.BooleanField(
        _("the site opens the next turn"),
        default=False,
        db_default=False,
        help_text=_(
            "Only with a rule other than waiting: the site opens the next turn, with a "
            "deadline as long as this turn's, once every character has acted or, when the "
            "turn passes on, at the deadline."
        ),
    )
    posting_pace = models.CharField(
        _("posting pace"), max_length=20, choices=PostingPace.choices, blank=True
    )
    language = models.CharField(
        _("language of play"), max_length=2, choices=PlayLanguage.choices, default="pl"
    )
    tags = models.CharField(
        _("tags"),
        max_length=MAX_TAGS * (TAG_MAX_LENGTH + 1),
        blank=True,
        help_text=_("A few words, separated by commas, e.g. horror, for beginners."),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    # Bumped by every post, edit, hide, turn and roll: open diaries poll it to refresh.
    activity_at = models.DateTimeField(_("last activity"), default=timezone.now)
    # The session's head, kept on its row so an append is one lock, one insert, one update:
    # the last roll's number and hash in the chain (rolls.ledger.chain_writer.chain_append is
    # their one writer) and the turn being played (diary.services opens turns).
    chain_seq = models.PositiveIntegerField(_("rolls in the chain"), default=0, editable=False)
    chain_hash = models.CharField(
        _("last roll's hash"), max_length=64, default=GENESIS_HASH, editable=False
    )
    current_turn = models.ForeignKey(
        "Turn",
        on_delete=models.SET_NULL,
        related_name="+",
        null=True,
        blank=True,
        editable=False,
        verbose_name=_("current turn"),
    )

    objects = GameSessionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("game session")
        verbose_name_plural = _("game sessions")

    def __str__(self) -> str:
        return self.title

    @property
    def offers_criticals_setting(self) -> bool:
        """Whether this session's system has "criticals off" (its roll plug-in says so)."""
        from diary.capabilities import offers_criticals_setting

        return offers_criticals_setting(self.system)

    @property
    def rules_locked(self) -> bool:
        """Criticals and NPC mode are fixed once the plan is accepted (RULES 1.1, 1.7)."""
        return self.status not in (SessionStatus.DRAFT, SessionStatus.PLAN_SUBMITTED)

    @property
    def recruiting_open(self) -> bool:
        """Takes applications now; needs `open_places` from GameSessionQuerySet.with_places."""
        return (
            self.recruiting
            and self.status not in (SessionStatus.DRAFT, SessionStatus.FINISHED)
            and self.open_places > 0
        )

    @property
    def tag_list(self) -> list[str]:
        return [tag for tag in self.tags.split(TAG_SEPARATOR) if tag]

    @property
    def is_running(self) -> bool:
        return self.status == SessionStatus.RUNNING

    @property
    def activity_marker(self) -> str:
        return str(int(self.activity_at.timestamp() * 1_000_000))

    def reread_stale_turn(self) -> "GameSession":
        """After `select_for_update(of=("self",)).select_related("current_turn")`: a statement
        that waited for the row lock (PostgreSQL, READ COMMITTED) re-reads only the locked row,
        so the turn joined to it is the one from before the wait. A turn opened meanwhile
        reads None or the old turn while the row names the new one: read it now (a rare
        path, one query). Returns the session."""
        turn = self.current_turn
        if (turn.pk if turn is not None else None) != self.current_turn_id:
            self.current_turn = (
                Turn.objects.get(pk=self.current_turn_id) if self.current_turn_id else None
            )
        return self

    @property
    def co_gm_ids(self) -> frozenset[int]:
        """The user ids of the session's co-GMs (see `co_gms_named`)."""
        return frozenset(pk for pk, _name in self.co_gms_named)

    @property
    def co_gm_names(self) -> list[str]:
        return [name for _pk, name in self.co_gms_named]

    @property
    def co_gms_named(self) -> tuple[tuple[int, str], ...]:
        """The session's co-GMs as (user id, username), by name: from `co_gm_list`
        when the session's own statement read it (`co_gm_list_annotation`, diary.access),
        else one query, kept on the instance."""
        known = self.__dict__.get("_co_gm_ids")
        if known is None:
            if "co_gm_list" in self.__dict__:
                # Usernames hold no "," or ":" (letters, digits and @.+-_ only).
                listed = self.__dict__["co_gm_list"] or ""
                pairs = (item.split(":", 1) for item in listed.split(",") if item)
                known = tuple(sorted(((int(pk), name) for pk, name in pairs), key=lambda p: p[1]))
            else:
                known = tuple(
                    CoGameMaster.objects.filter(session_id=self.pk)
                    .order_by("user__username")
                    .values_list("user_id", "user__username")
                )
            self.__dict__["_co_gm_ids"] = known
        return known

    def runs(self, user) -> bool:
        """The user has the GM's powers here: the session's GM or one of its co-GMs."""
        if not getattr(user, "is_authenticated", False):
            return False
        return self.gm_id == user.pk or user.pk in self.co_gm_ids

    def touch(self, **head) -> None:
        """Tell open diaries that something changed (see diary.views.session_live); `head`:
        fields of the session's head written in the same UPDATE (a new turn)."""
        self.activity_at = timezone.now()
        for name, value in head.items():
            setattr(self, name, value)
        GameSession.objects.filter(pk=self.pk).update(activity_at=self.activity_at, **head)


class ParticipationStatus(models.TextChoices):
    INVITED = "invited", _("invited by the GM")
    REQUESTED = "requested", _("requested by the owner")
    ACCEPTED = "accepted", _("playing")
    DECLINED = "declined", _("declined")
    WITHDRAWN = "withdrawn", _("withdrawn")


# What the statuses mean to the rules, beside the statuses themselves: diary/access.py
# decides with them, and the reads that say its rules in SQL (reading.py, search.py) too.
# Participations that let the owner read the diary: playing, or invited by the GM.
# Asking to join does not open the diary; the GM's acceptance does.
READING_STATUSES = (ParticipationStatus.ACCEPTED, ParticipationStatus.INVITED)
# Statuses that take a character off the session's list (it may be invited again).
GONE_STATUSES = (ParticipationStatus.DECLINED, ParticipationStatus.WITHDRAWN)
# A GM may read a sheet once its owner asked to join or accepted; an invitation alone,
# which the owner never agreed to, opens nothing.
SHEET_OPENING_STATUSES = (ParticipationStatus.ACCEPTED, ParticipationStatus.REQUESTED)


class Participation(models.Model):
    """A character's place in a session. Rows are kept; status tells the story."""

    session = models.ForeignKey(
        GameSession, on_delete=models.CASCADE, related_name="participations"
    )
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="participations"
    )
    status = models.CharField(_("status"), max_length=20, choices=ParticipationStatus.choices)
    # An application's message to the GM, and the GM's note with the answer.
    message = models.TextField(_("message to the GM"), blank=True, default="")
    gm_note = models.TextField(_("GM's note"), blank=True, default="")
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decided"), null=True, blank=True)
    # Who took the character off the list (its owner leaving, or the GM removing it), and the
    # GM's reason for a removal, which the player reads.
    withdrawn_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name="+",
        null=True,
        blank=True,
        verbose_name=_("withdrawn by"),
    )
    removal_reason = models.TextField(_("reason for the removal"), blank=True, default="")

    class Meta:
        ordering = ["character__name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "character"], name="participation_unique_character"
            ),
        ]
        verbose_name = _("participation")
        verbose_name_plural = _("participations")

    def __str__(self) -> str:
        return f"{self.character} @ {self.session}"


class TurnOpenedBySite(models.TextChoices):
    DEADLINE = "deadline", _("the deadline passed")
    ALL_ACTED = "all_acted", _("every character has acted")


class Turn(models.Model):
    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="turns")
    number = models.PositiveIntegerField(_("number"))
    opened_at = models.DateTimeField(_("opened"), auto_now_add=True)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    # Set by the GM for the current turn (in the future when set); shown with the time left.
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    # Set when the site opened the turn for the GM (diary/deadlines/, advance_turns): why.
    opened_by_site = models.CharField(
        _("opened by the site"),
        max_length=20,
        choices=TurnOpenedBySite.choices,
        blank=True,
        default="",
        db_default="",
    )

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="turn_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="turn_number_from_one"),
        ]
        verbose_name = _("turn")
        verbose_name_plural = _("turns")

    def __str__(self) -> str:
        return f"{self.session} #{self.number}"

    @property
    def opened_automatically(self) -> bool:
        return bool(self.opened_by_site)


class PostQuerySet(models.QuerySet):
    def for_diary(self):
        """What the diary shows of each post, without a query per post."""
        return self.select_related("author", "character", "turn", "hidden_by")


class Post(models.Model):
    session = models.ForeignKey(GameSession, on_delete=models.PROTECT, related_name="posts")
    turn = models.ForeignKey(Turn, on_delete=models.PROTECT, related_name="posts")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="posts"
    )
    character = models.ForeignKey(
        Character,
        on_delete=models.PROTECT,
        related_name="posts",
        null=True,
        blank=True,
        verbose_name=_("narrating character"),
    )
    narration = models.TextField(_("narration"), blank=True)
    # Markdown rendered once on write, already sanitised (config/markdown.py).
    narration_html = models.TextField(editable=False, blank=True)
    # Its parts for chosen eyes (diary/eyes): each part's HTML and whom it is for, kept out
    # of narration_html, and the narration without them, which search reads for most
    # readers. NULL (not ""): the narration has no part, and search reads the narration.
    narration_eyes = models.JSONField(null=True, blank=True, editable=False)
    narration_public = models.TextField(null=True, blank=True, editable=False)  # noqa: DJ001
    nc_note = models.TextField(_("NC note"), blank=True)
    # RULES 1.5: the movement this post declares for its character, and the move actions it
    # took at the sheet's Szybkość when written (kept as it was then, like a roll's input).
    move_metres = models.PositiveSmallIntegerField(_("movement (m)"), null=True, blank=True)
    move_mounted = models.BooleanField(_("mounted"), default=False)
    move_actions = models.PositiveSmallIntegerField(_("move actions"), default=0, editable=False)
    version = models.PositiveIntegerField(default=1, editable=False)
    created_at = models.DateTimeField(_("written"), auto_now_add=True)
    edited_at = models.DateTimeField(_("edited"), null=True, blank=True)
    hidden_at = models.DateTimeField(_("hidden"), null=True, blank=True)
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    hidden_reason = models.CharField(_("reason for hiding"), max_length=200, blank=True)
    # The post form's one-time token: the same form sent twice (back, publish again)
    # finds the first post instead of making a second one. Empty for posts made by rolls.
    token = models.UUIDField(_("form token"), null=True, blank=True, editable=False)
    # The GM wrote it for another player's character still awaited after the deadline
    # (DeadlineRule.GM_PLAYS): the author is the GM, the character acted this turn.
    # (db_default too: rows written by raw SQL, the scale tests', stay valid.)
    played_by_gm = models.BooleanField(
        _("played by the GM"), default=False, db_default=False, editable=False
    )
    # The chain number (GameSession.chain_seq) of the last roll or entry that landed in the
    # post: a reader whose mark saw an older chain head reads the post as new again
    # (diary/reading.py). 0: nothing landed in it.
    changed_seq = models.PositiveIntegerField(db_default=0, editable=False)

    objects = PostQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [
            models.Index(fields=["session", "id"], name="post_session_keyset"),
            # Only the posts something landed in (diary.reading.first_unread_subquery).
            models.Index(
                fields=["session", "changed_seq"],
                condition=models.Q(changed_seq__gt=0),
                name="post_session_changed",
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["author", "token"], name="post_unique_token"),
        ]
        verbose_name = _("post")
        verbose_name_plural = _("posts")

    def __str__(self) -> str:
        return f"#{self.pk} ({self.session_id})"

    def get_absolute_url(
        self, anchor: str = "", *, roll: int | None = None, newest: bool = False
    ) -> str:
        """The live newest page at this post when it is there (a new post always is), else
        the page that starts at it; scrolled to the post (or to an anchor in it). `roll`: a
        roll's seq in this post, shown even where the post's run of rolls is folded (the
        page unfolds the run around it) and scrolled to. `newest`: the caller knows it is
        there (the post was written a moment ago), so no count."""
        diary = reverse("diary:session", args=[self.session_id])
        query = []
        # Read with the post a moment ago (diary.selectors.newest_visible_post): nothing after it.
        newest = newest or getattr(self, "newest_in_session", False)
        newer = Post.objects.filter(session_id=self.session_id, id__gt=self.pk)[:DIARY_PAGE_SIZE]
        if not newest and newer.count() >= DIARY_PAGE_SIZE:
            query.append(f"after={self.pk - 1}")
        if roll is not None:
            query.append(f"roll={roll}")
            anchor = anchor or f"roll-{roll}"
        if query:
            diary = f"{diary}?{'&'.join(query)}"
        return f"{diary}#{anchor or f'post-{self.pk}'}"

    @property
    def is_hidden(self) -> bool:
        return self.hidden_at is not None


class PostRevision(models.Model):
    """Every version of a post, the first one included; never changed."""

    post = models.ForeignKey(Post, on_delete=models.PROTECT, related_name="revisions")
    version = models.PositiveIntegerField()
    narration = models.TextField(blank=True)
    nc_note = models.TextField(blank=True)
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    move_metres = models.PositiveSmallIntegerField(null=True, blank=True)
    move_mounted = models.BooleanField(default=False)
    written_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    written_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["post", "version"]
        constraints = [
            models.UniqueConstraint(fields=["post", "version"], name="post_revision_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.post} v{self.version}"


# ---------------------------------------------------------------------------
# The deadline's rule (diary/deadlines/): a character the turn passed over
# ---------------------------------------------------------------------------


class TurnPass(models.Model):
    """A character still awaited when its turn closed after the deadline under a rule other
    than waiting: the diary shows "Mira czeka w tej turze" at the turn's end. Not a post
    (no author, not counted as the player's, never edited); written once as the turn
    closes, under the session's lock."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="passes")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    # The rule that passed over it (DeadlineRule.PASS or GM_PLAYS: the GM did not play it).
    rule = models.CharField(_("rule"), max_length=20, choices=DeadlineRule.choices)
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["turn", "character__name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["turn", "character"], name="turn_pass_once"),
        ]
        verbose_name = _("character passed over")
        verbose_name_plural = _("characters passed over")

    def __str__(self) -> str:
        return f"{self.character_id} @ {self.turn}"


# ---------------------------------------------------------------------------
# The session plan (Plan Sesji) and its review by moderators
# ---------------------------------------------------------------------------


class SessionPlan(models.Model):
    """The plan's own content; its rule settings live on the session (criticals, NPC mode,
    who may roll). Made on first save; a session without one has an empty scenario."""

    session = models.OneToOneField(GameSession, on_delete=models.CASCADE, related_name="plan")
    scenario = models.TextField(_("scenario"), blank=True)
    # Markdown rendered once on write, already sanitised (config/markdown.py).
    scenario_html = models.TextField(editable=False, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        verbose_name = _("session plan")
        verbose_name_plural = _("session plans")

    def __str__(self) -> str:
        return str(self.session)


class PlanDecision(models.TextChoices):
    PENDING = "pending", _("waiting for review")
    ACCEPTED = "accepted", _("accepted")
    RETURNED = "returned", _("returned for changes")
    WITHDRAWN = "withdrawn", _("taken back by the GM")


class PlanSubmission(models.Model):
    """The plan as the GM submitted it, and what the review said. Rows are kept."""

    session = models.ForeignKey(
        GameSession, on_delete=models.PROTECT, related_name="plan_submissions"
    )
    number = models.PositiveIntegerField(_("number"))
    scenario = models.TextField(_("scenario"), blank=True)
    scenario_html = models.TextField(editable=False, blank=True)
    criticals_enabled = models.BooleanField(_("criticals"))
    npc_mode = models.CharField(_("NPC mode"), max_length=20, choices=NpcMode.choices)
    roll_policy = models.CharField(_("who may roll"), max_length=20, choices=RollPolicy.choices)
    # The NPC designs as submitted (diary.selectors.npc_designs): name, description,
    # visibility, fixed modifiers, stand-in sheet.
    npcs = models.JSONField(_("NPC designs"), default=list, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    submitted_at = models.DateTimeField(_("submitted"), auto_now_add=True)
    decision = models.CharField(
        _("decision"), max_length=20, choices=PlanDecision.choices, default=PlanDecision.PENDING
    )
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    reviewed_at = models.DateTimeField(_("reviewed"), null=True, blank=True)
    comment = models.TextField(_("review comment"), blank=True)

    class Meta:
        ordering = ["session", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "number"], name="plan_submission_unique_number"
            ),
        ]
        verbose_name = _("plan submission")
        verbose_name_plural = _("plan submissions")

    def __str__(self) -> str:
        return f"{self.session} plan #{self.number}"


# NPCs (RULES 1.7, seed 000 lines 43–53, 180–188)

NPC_NAME_MAX = 80
NPC_DESCRIPTION_MAX = 2000
NPC_INTERACTION_MAX = 40
NPC_REASON_MAX = 200


class Npc(models.Model):
    """A session's NPC, on the GM's roster; players see it only while it is visible."""

    session = models.ForeignKey(GameSession, on_delete=models.PROTECT, related_name="npcs")
    name = models.CharField(_("name"), max_length=NPC_NAME_MAX)
    description = models.TextField(_("description"), blank=True, max_length=NPC_DESCRIPTION_MAX)
    visible_to_players = models.BooleanField(_("visible to players"), default=True)
    # Mode gm_character (seed lines 49, 182): the GM's sheet this NPC is played through.
    stand_in = models.OneToOneField(
        Character,
        on_delete=models.PROTECT,
        related_name="npc_role",
        null=True,
        blank=True,
        verbose_name=_("stand-in sheet"),
    )
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["session", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "name"], name="npc_unique_name"),
        ]
        verbose_name = _("NPC")
        verbose_name_plural = _("NPCs")

    def __str__(self) -> str:
        return self.name


class NpcModifier(models.Model):
    """Mode fixed_modifiers (seed line 51): the same modifier for every character who
    interacts with this NPC this way; the panel applies it as a GM difficulty modifier."""

    npc = models.ForeignKey(Npc, on_delete=models.CASCADE, related_name="modifiers")
    interaction = models.CharField(_("interaction"), max_length=NPC_INTERACTION_MAX)
    value = models.IntegerField(_("modifier"))
    reason = models.CharField(_("reason"), max_length=NPC_REASON_MAX)
    # The first roll that carried it: from then on it stays as it was for the whole session
    # (the same for every character); only a moderator corrects it, in its history.
    used_by_seq = models.PositiveIntegerField(_("first used by roll"), null=True, blank=True)

    class Meta:
        ordering = ["npc", "interaction", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["npc", "interaction"], name="npc_modifier_unique_interaction"
            ),
        ]
        verbose_name = _("NPC modifier")
        verbose_name_plural = _("NPC modifiers")

    def __str__(self) -> str:
        return f"{self.npc} · {self.interaction} {signed_number(self.value)}"


class NpcModifierCorrection(models.Model):
    """A moderator's correction of an NPC's modifier that rolls already used: who, when,
    what it was and became, and why. Shown on the NPC's page; never edited or deleted."""

    modifier = models.ForeignKey(NpcModifier, on_delete=models.PROTECT, related_name="corrections")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(_("when"), auto_now_add=True)
    old_value = models.IntegerField(_("old modifier"))
    new_value = models.IntegerField(_("new modifier"))
    old_reason = models.CharField(_("old reason"), max_length=NPC_REASON_MAX)
    new_reason = models.CharField(_("new reason"), max_length=NPC_REASON_MAX)
    note = models.CharField(_("reason for the correction"), max_length=NPC_REASON_MAX)

    class Meta:
        ordering = ["modifier", "at", "id"]
        verbose_name = _("NPC modifier correction")
        verbose_name_plural = _("NPC modifier corrections")

    def __str__(self) -> str:
        return f"{self.modifier} · {self.old_value:+d} → {self.new_value:+d}"


# ---------------------------------------------------------------------------
# Table talk beside the diary: the session's out-of-character thread and whispers
# (diary/talk/: services, selectors, views). Never shown in the diary.
# ---------------------------------------------------------------------------

TALK_MESSAGE_MAX = 5_000
TALK_SUBJECT_MAX = 80


class TalkKind(models.TextChoices):
    OOC = "ooc", _("out of character")
    WHISPER = "whisper", _("whisper")


class TalkThread(models.Model):
    """One conversation of a session: its one OOC thread (every member reads it) or a
    whisper (its members alone: the GM and the players it was started with)."""

    session = models.ForeignKey(GameSession, on_delete=models.PROTECT, related_name="talk")
    kind = models.CharField(_("kind"), max_length=10, choices=TalkKind.choices)
    subject = models.CharField(_("subject"), max_length=TALK_SUBJECT_MAX, blank=True)
    started_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    # A whisper's readers (the GM among them); the OOC thread has none: the session's.
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="whispers", blank=True)
    created_at = models.DateTimeField(_("started"), default=timezone.now)
    last_message_at = models.DateTimeField(_("last message"), default=timezone.now)

    class Meta:
        ordering = ["-last_message_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["session"], condition=Q(kind="ooc"), name="talk_one_ooc_per_session"
            ),
        ]
        verbose_name = _("table talk")
        verbose_name_plural = _("table talk")

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.session_id})"

    def get_absolute_url(self) -> str:
        if self.is_whisper:
            return reverse("diary:whisper", args=[self.session_id, self.pk])
        return reverse("diary:ooc", args=[self.session_id])

    @property
    def is_whisper(self) -> bool:
        return self.kind == TalkKind.WHISPER


class TalkMessage(models.Model):
    """One message of table talk: Markdown like a post's narration, never edited."""

    thread = models.ForeignKey(TalkThread, on_delete=models.PROTECT, related_name="messages")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField(_("message"))
    # Rendered once on write, already sanitised (config/markdown.py).
    text_html = models.TextField(editable=False)
    created_at = models.DateTimeField(_("written"), default=timezone.now)
    # The form's one-time token: the same form sent twice writes one message.
    token = models.UUIDField(_("form token"), editable=False)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["author", "token"], name="talk_message_unique_token"),
        ]
        verbose_name = _("table talk message")
        verbose_name_plural = _("table talk messages")

    def __str__(self) -> str:
        return f"#{self.pk} ({self.thread_id})"


class TalkReadMark(models.Model):
    """The newest message of a thread one user has seen: everything after it, not their own,
    is unread. Moved only forwards."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    thread = models.ForeignKey(TalkThread, on_delete=models.CASCADE, related_name="+")
    last_seen_message_id = models.BigIntegerField(_("newest message seen"), default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "thread"], name="talk_read_mark_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.thread_id} {self.last_seen_message_id}"


# ---------------------------------------------------------------------------
# Notifications: who hears of what (diary/notifications/notices.py), in the site (the
# bell) and by e-mail (diary/notifications/delivery.py)
# ---------------------------------------------------------------------------


class NotificationKind(models.TextChoices):
    TURN_OPENED = "turn_opened", _("a new turn")
    REPLY = "reply", _("a new post in a session where I posted")
    QUOTE = "quote", _("a quote of my post")
    ASK_ANSWERED = "ask_answered", _("my roll request answered")
    INVITATION = "invitation", _("an invitation to a session")
    JOIN_REQUEST = "join_request", _("a request to join my session")
    PARTICIPATION_DECIDED = "participation_decided", _("an invitation or a request answered")
    PLAN_SUBMITTED = "plan_submitted", _("a session plan to review")
    PLAN_REVIEWED = "plan_reviewed", _("my session plan reviewed")
    DEADLINE_NEAR = "deadline_near", _("a turn's deadline near")
    CHARACTER_CHANGED = (
        "character_changed",
        _("a roll or a diary entry about my character added to an earlier post"),
    )
    TALK_OOC = "talk_ooc", _("a new message in a session's out-of-character talk")
    WHISPER = "whisper", _("a whisper to me")
    CO_GM_NAMED = "co_gm_named", _("named a session's co-GM")
    SESSION_HANDED_OVER = "session_handed_over", _("a session handed over to a new GM")
    PLAYER_LEFT = "player_left", _("a player left my session")
    CHARACTER_REMOVED = "character_removed", _("my character removed from a session")
    # A GM answers a player's ad (diary/ads/): no character is named yet, so the player
    # is asked to look at the session and apply from its page.
    AD_INVITATION = "ad_invitation", _("a GM's invitation in answer to my ad")
    NUDGE = "nudge", _("the GM's nudge to post in a turn")
    ANNOUNCEMENT = "announcement", _("an announcement of the GM")
    POLL_OPENED = "poll_opened", _("a new poll in a session's out-of-character talk")


class DigestChoice(models.TextChoices):
    IMMEDIATELY = "immediately", _("one e-mail per notification, at once")
    DAILY = "daily", _("one e-mail a day with everything new")


class NotificationQuerySet(models.QuerySet):
    def unread(self):
        return self.filter(read_at__isnull=True)


class Notification(models.Model):
    """Something that happened for one user. Its words are made when it is shown, in the
    reader's language, from `kind` and `args` (names as they were then)."""

    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications"
    )
    kind = models.CharField(_("kind"), max_length=30, choices=NotificationKind.choices)
    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="+")
    post = models.ForeignKey(
        Post, on_delete=models.SET_NULL, related_name="+", null=True, blank=True
    )
    turn = models.ForeignKey(
        Turn, on_delete=models.SET_NULL, related_name="+", null=True, blank=True
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        related_name="+",
        null=True,
        blank=True,
    )
    # The table talk thread it is about (an OOC message, a whisper).
    talk_thread = models.ForeignKey(
        TalkThread, on_delete=models.CASCADE, related_name="+", null=True, blank=True
    )
    args = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    read_at = models.DateTimeField(_("read"), null=True, blank=True)
    # Set when made for a user who wants this kind by e-mail; cleared by the e-mail.
    email_pending = models.BooleanField(default=False)
    emailed_at = models.DateTimeField(_("e-mailed"), null=True, blank=True)

    objects = NotificationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["recipient", "read_at"], name="notification_unread"),
            models.Index(fields=["recipient", "-created_at"], name="notification_list"),
        ]
        constraints = [
            # notify_deadlines runs again and again: once per turn per user.
            models.UniqueConstraint(
                fields=["recipient", "turn"],
                condition=Q(kind="deadline_near"),
                name="notification_deadline_once",
            ),
        ]
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")

    def __str__(self) -> str:
        return f"{self.kind} → {self.recipient_id}"

    @property
    def is_read(self) -> bool:
        return self.read_at is not None


class NotificationPreference(models.Model):
    """One user's choice for one kind: by e-mail or only in the site (opt-in: no row, no
    e-mail)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_prefs"
    )
    kind = models.CharField(_("kind"), max_length=30, choices=NotificationKind.choices)
    email = models.BooleanField(_("by e-mail"), default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="notification_pref_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.kind} {self.email}"


class NotificationSettings(models.Model):
    """How a user's e-mails come: each at once, or one digest a day."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notification_settings"
    )
    digest = models.CharField(
        _("e-mails"), max_length=20, choices=DigestChoice.choices, default=DigestChoice.IMMEDIATELY
    )
    digest_sent_at = models.DateTimeField(null=True, blank=True, editable=False)

    def __str__(self) -> str:
        return f"{self.user_id} {self.digest}"


class SessionMute(models.Model):
    """One user has muted one session: its play (new posts, turns, quotes, answered roll
    requests, deadlines) makes them no notifications (diary.notifications.notices.MUTED_KINDS)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="session_mutes"
    )
    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "session"], name="session_mute_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.session_id}"


class ReadMark(models.Model):
    """The newest post of a session one user has seen: everything after it is unread.

    One row per user and session, moved only forwards (diary/reading.py)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="read_marks"
    )
    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="+")
    last_seen_post_id = models.BigIntegerField(_("newest post seen"), default=0)
    # The session's chain head when the user last read on: a post a roll or an entry landed
    # in after it (Post.changed_seq) is unread again, however old the post.
    last_seen_seq = models.PositiveIntegerField(_("newest roll or entry seen"), db_default=0)
    # When the mark last moved: a reader whose mark stood still for RECAP_AFTER_HOURS finds
    # "since you were last here" above the first unread post (diary/recap/). None: not moved
    # since the site began keeping it, read as long ago.
    moved_at = models.DateTimeField(_("last read on"), null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "session"], name="read_mark_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.session_id} {self.last_seen_post_id}"


class SessionWebhook(models.Model):
    """Where a session's table chat hears of its play: one Discord-compatible webhook URL
    the GM set, and which events it is told of (diary/notifications/webhooks.py sends them through
    the task worker). The URL is a secret — whoever holds it can post to the channel — so only
    the GM's settings page shows it, and only masked."""

    session = models.OneToOneField(
        GameSession, on_delete=models.CASCADE, related_name="webhook", verbose_name=_("session")
    )
    url = models.URLField(_("webhook URL"), max_length=500)
    on_turn = models.BooleanField(_("a new turn"), default=True)
    on_post = models.BooleanField(_("a new post"), default=True)
    on_roll = models.BooleanField(_("a roll"), default=True)
    on_deadline = models.BooleanField(_("a turn's deadline is near"), default=True)
    # Off unless the GM ticks it: a nudge is addressed to one player, the chat hears it only
    # when the table chose to (diary/nudges).
    on_nudge = models.BooleanField(_("the GM nudges a player"), default=False)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    # What the last delivery met, for the GM's page: a dead URL is seen, not silent.
    last_attempt_at = models.DateTimeField(_("last delivery"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=300, blank=True)

    class Meta:
        verbose_name = _("session webhook")
        verbose_name_plural = _("session webhooks")

    def __str__(self) -> str:
        return f"{self.session_id}"

    def wants(self, event: str) -> bool:
        return bool(getattr(self, f"on_{event}"))


# ---------------------------------------------------------------------------
# GM handover (diary/handover): co-GMs, and the session passed from GM to GM
# ---------------------------------------------------------------------------


def co_gm_sessions(user):
    """The ids of the sessions the user is a co-GM of, as a subquery."""
    return CoGameMaster.objects.filter(user_id=user.pk).values("session_id")


def co_gm_list_annotation() -> dict:
    """The session's co-GMs ("3:kasia,7:olek") read in the session's own statement, for
    GameSession.co_gms_named (no query of its own)."""
    from django.db.models import CharField, StringAgg
    from django.db.models.functions import Cast, Concat

    ids = (
        CoGameMaster.objects.filter(session=OuterRef("pk"))
        .order_by()
        .values("session")
        .annotate(
            ids=StringAgg(
                Concat(Cast("user_id", CharField()), Value(":"), "user__username"),
                delimiter=Value(","),
            )
        )
        .values("ids")
    )
    return {"co_gm_list": Subquery(ids, output_field=models.CharField())}


class CoGameMaster(models.Model):
    """A co-GM ("współprowadzący"): a user the session's GM named, with the GM's powers in
    this session (GameSession.runs). Not a player of it, never its GM."""

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="co_gms")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sessions_co_run"
    )
    named_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("named"), default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["session", "user"], name="co_gm_unique"),
        ]
        verbose_name = _("co-GM")
        verbose_name_plural = _("co-GMs")

    def __str__(self) -> str:
        return f"{self.user_id} @ {self.session_id}"


class SessionHandover(models.Model):
    """The session passed from one GM to another: by a moderator (an orphaned session) or by
    its GM stepping down to a co-GM; the reason stays in the session's history."""

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="handovers")
    from_gm = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    to_gm = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField(_("reason"))
    at = models.DateTimeField(_("handed over"), default=timezone.now)

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("session handover")
        verbose_name_plural = _("session handovers")

    def __str__(self) -> str:
        return f"{self.session_id}: {self.from_gm_id} → {self.to_gm_id}"


# A player's "szukam gry" ad on the recruiting board (diary/ads/).
AD_TEXT_MAX_LENGTH = 500


class PlayerAd(models.Model):
    """A player looking for a game: which system (blank: any), at what pace (blank: any),
    a few words. One active ad per player; a withdrawn one stays, inactive, and a new ad
    is a new row."""

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="player_ads",
        verbose_name=_("player"),
    )
    system = models.CharField(
        _("rule system"), max_length=20, choices=RuleSystem.choices, blank=True
    )
    pace = models.CharField(
        _("posting pace"), max_length=20, choices=PostingPace.choices, blank=True
    )
    text = models.TextField(_("a few words"), max_length=AD_TEXT_MAX_LENGTH)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["active", "-created_at"], name="player_ad_board")]
        constraints = [
            models.UniqueConstraint(
                fields=["author"], condition=Q(active=True), name="player_ad_one_active"
            ),
        ]
        verbose_name = _("player's ad")
        verbose_name_plural = _("players' ads")

    def __str__(self) -> str:
        return f"{self.author_id}: {self.text[:40]}"


# Absences (diary/absences) and the GM's nudges (diary/nudges)

ABSENCE_NOTE_MAX = 200
# An absence lasts at most this many days (starts_on and ends_on both counted).
ABSENCE_MAX_DAYS = 366


class Absence(models.Model):
    """A user away from play from `starts_on` to `ends_on`, both days included, in the
    site's local dates: in one session, or (no session) in every session of theirs. While
    it lasts their characters are not awaited (diary.selectors.awaited_characters) and get
    no deadline notices or nudges; the session's members see it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="absences"
    )
    session = models.ForeignKey(
        GameSession,
        on_delete=models.CASCADE,
        related_name="absences",
        null=True,
        blank=True,
        verbose_name=_("session"),
    )
    starts_on = models.DateField(_("from"))
    ends_on = models.DateField(_("until"))
    note = models.CharField(_("note"), max_length=ABSENCE_NOTE_MAX, blank=True, default="")
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["starts_on", "id"]
        indexes = [
            models.Index(fields=["user", "ends_on"], name="absence_user_end"),
            models.Index(fields=["session", "ends_on"], name="absence_session_end"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_on__gte=F("starts_on")), name="absence_ends_after_start"
            ),
        ]
        verbose_name = _("absence")
        verbose_name_plural = _("absences")

    def __str__(self) -> str:
        return f"{self.user_id} {self.session_id} {self.starts_on}–{self.ends_on}"


class Nudge(models.Model):
    """The GM nudged one player to post in a turn: at most one a day per player and session
    (diary.nudges.services), each one kept."""

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="+")
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["session", "recipient", "-created_at"], name="nudge_latest"),
        ]
        verbose_name = _("nudge")
        verbose_name_plural = _("nudges")

    def __str__(self) -> str:
        return f"{self.session_id} → {self.recipient_id}"


# The GM's notice board (diary/board/): announcements pinned above the diary and the OOC
# thread, and polls in the OOC thread (diary/polls/)
# ---------------------------------------------------------------------------

ANNOUNCEMENT_TITLE_MAX = 120
ANNOUNCEMENT_TEXT_MAX = 5_000


class Announcement(models.Model):
    """One of the GM's notices to the table (house rules, the schedule, the deadline's rule):
    pinned above the diary and the OOC thread until the GM takes it down (`archived_at`; it
    stays on the board's page, nothing is deleted)."""

    session = models.ForeignKey(GameSession, on_delete=models.PROTECT, related_name="announcements")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    title = models.CharField(_("title"), max_length=ANNOUNCEMENT_TITLE_MAX)
    text = models.TextField(_("text"), blank=True)
    # Rendered once on write, already sanitised (config/markdown.py).
    text_html = models.TextField(editable=False, blank=True)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated"), default=timezone.now)
    archived_at = models.DateTimeField(_("taken down"), null=True, blank=True)
    # Moved by every write (new, edit, take down, pin again): the newest of a session's is the
    # key its pinned announcements are cached under (diary.board.selectors).
    changed_at = models.DateTimeField(default=timezone.now, editable=False)
    # The form's one-time token: the same form sent twice writes one announcement.
    token = models.UUIDField(_("form token"), editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["author", "token"], name="announcement_unique_token"),
        ]
        indexes = [
            models.Index(fields=["session", "-changed_at"], name="announcement_changed"),
        ]
        verbose_name = _("announcement")
        verbose_name_plural = _("announcements")

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return f"{reverse('diary:board', args=[self.session_id])}#announcement-{self.pk}"

    @property
    def is_pinned(self) -> bool:
        return self.archived_at is None


POLL_QUESTION_MAX = 200
POLL_OPTION_MAX = 120
POLL_OPTIONS_MIN = 2
POLL_OPTIONS_MAX = 10


class PollKind(models.TextChoices):
    TEXT = "text", _("options in words")
    DATES = "dates", _("dates and times (scheduling)")


class Poll(models.Model):
    """A question put to the table in its OOC thread: one choice or several (`max_choices`:
    1, a number, or None for any number), optionally anonymous, closed by its author or the
    GM or at `closes_at` (closed when read after it: no task closes it)."""

    session = models.ForeignKey(GameSession, on_delete=models.PROTECT, related_name="polls")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    question = models.CharField(_("question"), max_length=POLL_QUESTION_MAX)
    kind = models.CharField(_("kind"), max_length=10, choices=PollKind.choices)
    max_choices = models.PositiveSmallIntegerField(_("choices per voter"), null=True, blank=True)
    anonymous = models.BooleanField(_("anonymous"), default=False)
    closes_at = models.DateTimeField(_("closes"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed"), null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    token = models.UUIDField(_("form token"), editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["author", "token"], name="poll_unique_token"),
        ]
        verbose_name = _("poll")
        verbose_name_plural = _("polls")

    def __str__(self) -> str:
        return self.question

    def get_absolute_url(self) -> str:
        return reverse("diary:poll", args=[self.session_id, self.pk])

    def is_closed(self, now=None) -> bool:
        if self.closed_at is not None:
            return True
        return self.closes_at is not None and self.closes_at <= (now or timezone.now())

    @property
    def is_scheduling(self) -> bool:
        return self.kind == PollKind.DATES


class PollOption(models.Model):
    """One answer of a poll: words, or (a scheduling poll) a date and time."""

    poll = models.ForeignKey(Poll, on_delete=models.CASCADE, related_name="options")
    position = models.PositiveSmallIntegerField(_("position"))
    text = models.CharField(_("option"), max_length=POLL_OPTION_MAX, blank=True)
    starts_at = models.DateTimeField(_("date and time"), null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["poll", "position"], name="poll_option_position"),
        ]

    def __str__(self) -> str:
        return self.text or (self.starts_at.isoformat() if self.starts_at else "")


class PollVote(models.Model):
    """One voter's choice of one option (a voter with several choices has several rows; a
    changed vote replaces them). Kept with the voter so they may change it; an anonymous
    poll never shows whose it is."""

    poll = models.ForeignKey(Poll, on_delete=models.CASCADE, related_name="votes")
    option = models.ForeignKey(PollOption, on_delete=models.CASCADE, related_name="votes")
    voter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(_("voted"), default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["option", "voter"], name="poll_vote_once_per_option"),
        ]

    def __str__(self) -> str:
        return f"{self.voter_id} → {self.option_id}"
