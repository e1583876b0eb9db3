"""The roll path's own forms (the systems' mode forms are in rolls/systems/): the one-time
token every panel form carries, signed for its user, with the mode, the target post and the
request answered; the post a player's request belongs to."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from rolls import access
from rolls.models import ASK_NOTE_MAX_LENGTH

FOREIGN_TOKEN = _(
    "This roll form was not opened by you (or belongs to another session); open a new roll to roll."
)
# The diary's entry forms and the initiative event's controls, whose page is sent again.
FOREIGN_FORM_TOKEN = _("This form has expired or was not issued to you; send it again.")


class SignedTokenForm(forms.Form):
    """A form carrying a one-time token signed for its user and session (rolls.access):
    `cleaned_data["token"]` is its UUID, and a token issued to anyone else is refused with
    `foreign_token_message`. The panel's forms and the diary's entry forms share it."""

    foreign_token_message = FOREIGN_TOKEN
    token = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, user, session, **kwargs):
        super().__init__(*args, **kwargs)
        self.user, self.session = user, session
        if not self.is_bound and "token" not in self.initial:
            self.initial["token"] = access.issue_token(user, session)

    def clean(self):
        cleaned = super().clean()
        token = access.read_token(self.user, self.session, cleaned.get("token"))
        if token is None:
            self.add_error(None, self.foreign_token_message)
        cleaned["token"] = token
        return cleaned


SECRET_HELP = _(
    "Players see only a commitment (a hash) until you reveal the roll on its page; it changes "
    "no sheet and is no action of the character's."
)


def secret_field() -> forms.BooleanField:
    """The GM's "Rzut tajny" box (rolls.ledger.secret), in every panel's token form."""
    return forms.BooleanField(label=_("Secret roll"), required=False, help_text=SECRET_HELP)


ANSWER_NOTE_HELP = _(
    "Only when you roll something other than what the player asked (another skill, other "
    "sources): say why. The post shows both the request and your roll."
)


def post_target_choices(posts, *, resolves: bool) -> list:
    """Where a roll lands (rolls.services.target_post): the default first, then the roller's
    own posts of this turn by choice. The GM's roll resolves what the players wrote, so by
    default it goes below them; a player's belongs to the action they described."""
    default = (
        _("a new post at the end of the diary (or mine, if it is already the last)")
        if resolves
        else _("my latest post of this turn (or a new one)")
    )
    return [("", default)] + [(p.pk, _("into my post #%(id)s") % {"id": p.pk}) for p in posts]


def extra_action_field() -> forms.CharField:
    """The GM's permission for a further action in a turn, with its reason: the same field
    on the roll panel and on a potion's use (RULES 1.5, seed 000 VII.1)."""
    return forms.CharField(
        label=_("Allow another action this turn — reason"),
        required=False,
        max_length=200,
        help_text=_(
            "Outside combat a turn is one action (a roll, or a potion, item, spell or ability "
            "used) and one move, or two moves. Fill this in only to allow another action; it "
            "shows the reason."
        ),
    )


def client_seed_field() -> forms.CharField:
    """The roller's share of the dice (rolls.ledger.fair_dice): random bytes the page draws
    (static/js/fair_dice.js). Not typed by anyone: a page without JavaScript sends none,
    and a value that is not lowercase hex is not taken; the server then draws it and the
    roll's record says so."""
    return forms.CharField(widget=forms.HiddenInput, required=False, max_length=128)


class ClientSeedForm(forms.Form):
    """The roller's share of the dice alone, beside a form that has no token form of the
    roll path's (a system's reroll)."""

    client_seed = client_seed_field()

    def seed(self) -> str:
        return self.cleaned_data.get("client_seed", "") if self.is_valid() else ""


class PanelTokenForm(SignedTokenForm):
    """Carried by every panel form: the one-time token, the mode, the target post, the
    request answered and, for the GM, the secret box, the reason to allow a further action
    roll (where the system refuses it otherwise) and why an answer differs from its request."""

    mode = forms.ChoiceField(label=_("Roll"))
    post = forms.TypedChoiceField(
        label=_("Into the post"), coerce=int, required=False, empty_value=None
    )
    # The player's request this roll answers (the GM's one click from the diary).
    ask = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)
    client_seed = client_seed_field()
    # The digest of the roll the line above the button described (rolls.roll_plan): the
    # preview draws it, the roll is made only if it is still that roll.
    plan = forms.CharField(required=False, max_length=64)

    def __init__(
        self,
        *args,
        modes=(),
        posts=(),
        may_allow_extra_action=False,
        may_roll_secret=False,
        answering=False,
        resolves=False,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.fields["mode"].choices = [(mode.key, mode.label) for mode in modes]
        if may_allow_extra_action:
            # RULES 1.5: the GM's only; a system that counts further rolls has no such field.
            self.fields["extra_action_reason"] = extra_action_field()
        if may_roll_secret:
            self.fields["secret"] = secret_field()
        if answering:
            self.fields["answer_note"] = forms.CharField(
                label=_("Why the roll differs from the request"),
                required=False,
                max_length=ASK_NOTE_MAX_LENGTH,
                help_text=ANSWER_NOTE_HELP,
            )
        if callable(posts):  # read lazily: only when the field is drawn or a post is sent
            self.fields["post"].choices = lambda: post_target_choices(posts(), resolves=resolves)
        else:
            self.fields["post"].choices = post_target_choices(posts, resolves=resolves)

    def clean(self):
        cleaned = super().clean()
        cleaned["extra_action_reason"] = (cleaned.get("extra_action_reason") or "").strip()
        cleaned["answer_note"] = (cleaned.get("answer_note") or "").strip()
        cleaned["secret"] = bool(cleaned.get("secret"))
        return cleaned


class AskTargetForm(forms.Form):
    """Which of the player's posts of this turn the request belongs to."""

    post = forms.TypedChoiceField(
        label=_("For the post"), coerce=int, required=False, empty_value=None
    )

    def __init__(self, *args, posts=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["post"].choices = [("", _("my latest post of this turn"))] + [
            (p.pk, _("post #%(id)s") % {"id": p.pk}) for p in posts
        ]


class AskDeclineForm(forms.Form):
    """Why the GM declines a request: the player reads it."""

    reason = forms.CharField(
        label=_("Why you decline it"),
        max_length=ASK_NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={"required": _("Say why you decline the request: the player reads it.")},
    )
