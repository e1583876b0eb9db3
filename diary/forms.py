"""Session and diary forms: the only place their input is parsed."""

import uuid

from django import forms
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from characters.models import Character
from characters.systems import ATTRIBUTE_RANGE, RuleSystem
from config.text import SingleLineCharField
from diary.ads.forms import parse_tags
from diary.capabilities import criticals_setting_systems, offers_criticals_setting
from diary.models import (
    AUTO_NEXT_TURN_NEEDS_A_RULE,
    GONE_STATUSES,
    MAX_PLAYER_SLOTS,
    TAG_SEPARATOR,
    DeadlineRule,
    GameSession,
    Participation,
    SessionStatus,
)
from diary.pictures.forms import PicturesForm
from diary.scenes.forms import PostSceneField
from diary.scenes.selectors import MAIN as MAIN_SCENE

# Every text a person types into the diary has a bound; the
# renderer's work is bounded too (config/markdown.py).
DESCRIPTION_MAX_LENGTH = 5_000
NARRATION_MAX_LENGTH = 20_000
NC_NOTE_MAX_LENGTH = 5_000
HIDE_REASON_MAX_LENGTH = 200
NAME_MAX_LENGTH = 150


class SessionForm(forms.ModelForm):
    description = forms.CharField(
        label=_("Description"),
        required=False,
        max_length=DESCRIPTION_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
    )

    class Meta:
        model = GameSession
        fields = [
            "title",
            "description",
            "system",
            "criticals_enabled",
            "npc_mode",
            "roll_policy",
            "players_free_rolls",
            "recruiting",
            "player_slots",
            "posting_habits",
            "deadline_rule",
            "auto_next_turn",
            "posting_pace",
            "language",
            "tags",
        ]
        field_classes = {"title": SingleLineCharField}
        widgets = {
            "npc_mode": forms.RadioSelect,
            "roll_policy": forms.RadioSelect,
            "deadline_rule": forms.RadioSelect,
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Sessions can run only in systems whose characters can be built (all four).
        self.fields["system"].choices = [(key, RuleSystem(key).label) for key in ATTRIBUTE_RANGE]
        if self.instance.pk:
            # The system never changes once the session exists: its characters depend on it.
            self.fields["system"].disabled = True
            if not self.instance.offers_criticals_setting:
                del self.fields["criticals_enabled"]
            for name in ("criticals_enabled", "npc_mode"):
                if self.instance.rules_locked and name in self.fields:
                    self.fields[name].disabled = True
            if self.instance.status == SessionStatus.PLAN_SUBMITTED:
                # Under review: the settings are part of the plan.
                for name in ("criticals_enabled", "npc_mode", "roll_policy"):
                    if name in self.fields:
                        self.fields[name].disabled = True
        else:
            # A new session's system is picked in this form: the page hides the setting for
            # other systems (session_form.js) and `clean` ignores it for them.
            self.criticals_systems = sorted(criticals_setting_systems())
        # Left empty, the places stay as they are (four for a new session), and so do the
        # deadline's rule (waiting) and the language of play (Polish).
        self.fields["player_slots"].required = False
        self.fields["deadline_rule"].required = False
        self.fields["language"].required = False
        self.fields["player_slots"].widget.attrs.update(min=1, max=MAX_PLAYER_SLOTS)

    def clean(self):
        cleaned = super().clean()
        system = cleaned.get("system")
        if "criticals_enabled" in cleaned and system and not offers_criticals_setting(system):
            # The setting means nothing to this system's rolls: stored as the default.
            cleaned["criticals_enabled"] = GameSession._meta.get_field("criticals_enabled").default
        if cleaned.get("auto_next_turn") and cleaned.get("deadline_rule") == DeadlineRule.WAIT:
            self.add_error("auto_next_turn", AUTO_NEXT_TURN_NEEDS_A_RULE)
        return cleaned

    def clean_deadline_rule(self) -> str:
        return self.cleaned_data["deadline_rule"] or self.instance.deadline_rule

    def clean_language(self) -> str:
        return self.cleaned_data.get("language") or self.instance.language

    def clean_tags(self) -> str:
        return TAG_SEPARATOR.join(parse_tags(self.cleaned_data.get("tags", "")))

    def clean_player_slots(self) -> int:
        places = self.cleaned_data["player_slots"]
        return self.instance.player_slots if places is None else places


class StatusForm(forms.Form):
    status = forms.ChoiceField(choices=SessionStatus.choices)


class SessionMuteForm(forms.Form):
    """The diary's "mute this session" button: on or off, said outright, so a button sent
    twice (or from a stale page) sets the same state instead of flipping it back."""

    mute = forms.ChoiceField(choices=[("on", "on"), ("off", "off")])

    @property
    def muted(self) -> bool:
        return self.cleaned_data["mute"] == "on"


class InviteForm(forms.Form):
    """The GM names the character (its player's username and its name); the site never
    lists every character to choose from."""

    username = forms.CharField(label=_("Player's username"), max_length=NAME_MAX_LENGTH)
    name = SingleLineCharField(label=_("Character's name"), max_length=NAME_MAX_LENGTH)

    def __init__(self, *args, session: GameSession, **kwargs):
        super().__init__(*args, **kwargs)
        self.session = session

    def clean(self):
        cleaned = super().clean()
        username, name = cleaned.get("username"), cleaned.get("name")
        if not username or not name:
            return cleaned
        users = get_user_model().objects.filter(username__iexact=username.strip())
        # Usernames are unique as typed; prefer the exact spelling if two differ in case.
        user = users.filter(username=username.strip()).first() or (
            users.first() if len(users[:2]) == 1 else None
        )
        if user is None:
            self.add_error("username", _("There is no player with this username."))
            return cleaned
        # Compared in Python: SQLite folds only ASCII letters ("Gór" vs "GÓR"). One player's
        # characters of one system are few.
        wanted = name.strip().casefold()
        characters = [
            c
            for c in Character.objects.filter(owner=user, system=self.session.system).order_by("pk")
            if c.name.casefold() == wanted
        ]
        character = next((c for c in characters if c.name == name.strip()), None) or (
            characters[0] if characters else None
        )
        if character is None:
            self.add_error(
                "name",
                _("This player has no character of this name in the session's rule system."),
            )
            return cleaned
        listed = Participation.objects.filter(session=self.session, character=character)
        if listed.exclude(status__in=GONE_STATUSES).exists():
            self.add_error("name", _("This character is already on the session's list."))
            return cleaned
        cleaned["character"] = character
        return cleaned


APPLICATION_TEXT_MAX_LENGTH = 4000


class JoinForm(forms.Form):
    character = forms.ModelChoiceField(
        label=_("Your character"),
        queryset=Character.objects.none(),
        empty_label=_("— choose a character —"),
    )

    def __init__(self, *args, characters: list[Character], chosen: str | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["character"].queryset = Character.objects.filter(
            pk__in=[c.pk for c in characters]
        ).order_by("name")
        if self.is_bound:
            return
        # `chosen`: the character just built for this application (?character=<pk>); taken
        # only when it is one of those that may ask, else ignored.
        ids = {str(c.pk): c.pk for c in characters}
        if chosen in ids:
            self.initial["character"] = ids[chosen]
        elif len(characters) == 1:
            self.initial["character"] = characters[0].pk

    message = forms.CharField(
        label=_("Message to the GM"),
        required=False,
        max_length=APPLICATION_TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Who you are as a player, what you like, how often you post."),
    )


class DecisionNoteForm(forms.Form):
    """The GM's note with an answer to an application (the applicant reads it)."""

    note = forms.CharField(
        label=_("Note to the player"),
        required=False,
        max_length=APPLICATION_TEXT_MAX_LENGTH,
    )


MOVE_METRES_MAX = 10_000  # far past any turn's reach; the service says how far is allowed


class CharacterChoiceField(forms.ModelChoiceField):
    """A choice among characters already in hand (`characters`): the chosen one is found
    among them, not read again (the queryset only lists them when the form is drawn)."""

    characters: list[Character] = []

    def to_python(self, value):
        if value in self.empty_values:
            return None
        wanted = str(value.pk if isinstance(value, Character) else value)
        for character in self.characters:
            if str(character.pk) == wanted:
                return character
        raise forms.ValidationError(
            self.error_messages["invalid_choice"],
            code="invalid_choice",
            params={"value": value},
        )


class PostForm(forms.Form):
    character = CharacterChoiceField(
        label=_("Narrating character"),
        queryset=Character.objects.none(),
        required=False,
        empty_label=_("— none (out of character / as the GM) —"),
    )
    narration = forms.CharField(
        label=_("Narration"),
        required=False,
        max_length=NARRATION_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_("Markdown: *italics*, **bold**, > quotes, lists. No HTML."),
    )
    nc_note = forms.CharField(
        label=_("Out of character (OOC)"),
        required=False,
        max_length=NC_NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Out of character: e.g. which skill and abilities you ask a roll for."),
    )

    # RULES 1.5 (k1000 only): how far the narrating character moves in this post; the
    # service turns it into move actions against the turn's two.
    move_metres = forms.IntegerField(
        label=_("Movement (metres)"),
        required=False,
        min_value=0,
        max_value=MOVE_METRES_MAX,
        help_text=_("Szybkość/20 m per move action on foot, Szybkość/10 m mounted."),
    )
    move_mounted = forms.BooleanField(label=_("Mounted (on the sheet's mount)"), required=False)
    # Whoever runs the session may speak the whole post as one of its NPCs (added when
    # `npcs` are given).
    npc = forms.ChoiceField(label=_("Speak as"), required=False)
    field_order = ["character", "npc"]
    # The roller's share of the dice the narration's markers roll (`[[2k6+1 obrażenia]]`):
    # drawn by the page (static/js/fair_dice.js), as on the roll forms; none without
    # JavaScript, and the server draws it.
    client_seed = forms.CharField(widget=forms.HiddenInput, required=False, max_length=128)

    def __init__(
        self,
        *args,
        characters: list[Character],
        movement: bool = True,
        gm_plays: list[Character] = (),
        gm_may_name: list[Character] = (),
        npcs: list = (),
        npcs_known: list = (),
        existing_pictures=(),
        oversized_pictures=frozenset(),
        scenes=(),
        **kwargs,
    ):
        """`gm_plays`: other players' characters the GM may write for now (the deadline's
        rule), offered marked as such; `gm_may_name`: the other playing characters, not
        offered but taken, so that a choice made too early or too late is refused by the
        service in words (diary.deadlines.services.check_gm_may_play).
        `existing_pictures`, `oversized_pictures`: the pictures part (self.pictures,
        diary/pictures/forms.py), whose `images` and `remove_pictures` join cleaned_data."""
        super().__init__(*args, **kwargs)
        self.pictures = PicturesForm(
            self.data if self.is_bound else None,
            self.files if self.is_bound else None,
            existing=existing_pictures,
            oversized=oversized_pictures,
        )
        if not movement:
            del self.fields["move_metres"], self.fields["move_mounted"]
        field = self.fields["character"]
        field.queryset = Character.objects.filter(pk__in=[c.pk for c in [*characters, *gm_plays]])
        played = {c.pk for c in gm_plays}
        if played:
            field.label_from_instance = lambda c: (
                _("%(name)s (the GM plays)") % {"name": c.name} if c.pk in played else c.name
            )
        known = {c.pk for c in characters} | played
        field.characters = [*characters, *gm_plays, *(c for c in gm_may_name if c.pk not in known)]
        if len(characters) == 1 and not self.is_bound and "character" not in self.initial:
            self.initial["character"] = characters[0].pk
        if scenes:
            # Whoever runs a split session picks the scene (diary/scenes/).
            self.fields["scene"] = PostSceneField(scenes)
        self._speakers(npcs, npcs_known)

    def _speakers(self, npcs, npcs_known) -> None:
        """`npcs`: the NPCs offered under "Speak as" (those players see); `npcs_known`: the
        session's others, not offered but taken, so the service refuses a hidden one in
        words (a choice made before the NPC was hidden: the field stays, even when it offers
        nobody, so that such a choice is never taken as no choice)."""
        if not npcs and not npcs_known:
            del self.fields["npc"]
            return
        self.npcs = {str(npc.pk): npc for npc in [*npcs_known, *npcs]}
        self.fields["npc"].choices = [
            ("", _("— nobody: as the GM or the character above —")),
            *((str(npc.pk), npc.name) for npc in npcs),
        ]
        self.fields["npc"].valid_value = lambda value: value in self.npcs

    def clean_npc(self):
        value = self.cleaned_data.get("npc")
        return self.npcs.get(value) if value else None

    def clean_scene(self) -> int | None:
        scene = self.cleaned_data.get("scene")
        return None if scene == MAIN_SCENE else scene

    def clean(self):
        cleaned = super().clean()
        if (
            not (cleaned.get("narration") or "").strip()
            and not (cleaned.get("nc_note") or "").strip()
        ):
            self.add_error(
                "narration", _("Write the narration or something out of character (OOC).")
            )
        if not self.pictures.is_valid():
            self.add_error(None, _("A picture was refused: see why next to it below."))
        else:
            cleaned["images"] = self.pictures.cleaned_data["images"]
            if self.pictures.existing:
                cleaned["remove_pictures"] = self.pictures.cleaned_data["remove_pictures"]
        return cleaned


# A hidden field of the page came back missing or altered: the page is not the one the site
# sent (an old copy, a tampered one); nothing was posted.
STALE_FORM_MESSAGE = _(
    "This form is out of date or incomplete, so nothing was posted: copy your text, reload "
    "the page and send it again."
)


class NewPostForm(PostForm):
    # One-time: the same form sent twice publishes one post (diary.services.post_create).
    token = forms.UUIDField(
        widget=forms.HiddenInput,
        error_messages={
            "required": STALE_FORM_MESSAGE,
            "invalid": STALE_FORM_MESSAGE,
        },
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound and "token" not in self.initial:
            self.initial["token"] = uuid.uuid4()


class HideForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=HIDE_REASON_MAX_LENGTH, required=False)


# The session plan and its review.
SCENARIO_MAX_LENGTH = 20_000
REVIEW_COMMENT_MAX_LENGTH = 5_000


class PlanForm(forms.Form):
    scenario = forms.CharField(
        label=_("Scenario"),
        required=False,
        max_length=SCENARIO_MAX_LENGTH,
        help_text=_("What the session is about, its scenes and threats. Markdown, like posts."),
        widget=forms.Textarea(attrs={"rows": 12}),
    )

    def __init__(self, *args, submit: bool = False, **kwargs):
        # Saving keeps any draft, an empty one too; submitting needs something to review.
        super().__init__(*args, **kwargs)
        self.submit = submit

    def clean_scenario(self):
        scenario = self.cleaned_data["scenario"]
        if self.submit and not scenario.strip():
            raise forms.ValidationError(_("Write the scenario before you submit the plan."))
        return scenario


class PlanReviewForm(forms.Form):
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[("accept", _("Accept the plan")), ("return", _("Return it to the GM"))],
        widget=forms.RadioSelect,
    )
    comment = forms.CharField(
        label=_("Comment for the GM"),
        required=False,
        max_length=REVIEW_COMMENT_MAX_LENGTH,
        help_text=_("Required when you return the plan."),
        widget=forms.Textarea(attrs={"rows": 4}),
    )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("decision") == "return" and not (cleaned.get("comment") or "").strip():
            self.add_error("comment", _("Say what the GM should change in the plan."))
        return cleaned


class TurnDeadlineForm(forms.Form):
    """The current turn's deadline, in the site's time zone (Europe/Warsaw); empty clears it."""

    deadline = forms.DateTimeField(
        label=_("Turn deadline"),
        required=False,
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("Polish time. Leave empty for no deadline."),
        error_messages={"invalid": _("Enter a date and time, e.g. 2026-12-24 18:00.")},
    )

    def clean_deadline(self):
        deadline = self.cleaned_data.get("deadline")
        if deadline is not None and deadline <= timezone.now():
            raise forms.ValidationError(_("The deadline must be in the future."))
        return deadline
