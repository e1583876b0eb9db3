"""Dice inside a post's narration, rolled as the post is published or edited
(diary.hooks.DiaryHooks.narration_dice, called by diary.services inside the post's
transaction, under the session's row lock).

- `[[2k6+1 obrażenia]]` is rolled through the free-roll service (rolls.free.services.
  roll_make_free: its access rule — the GM, and players where the GM allowed free rolls —,
  the turn's fair dice with the roller's seed, one chain entry) into this post, once: the
  marker then carries the roll's number (`[[2k6+1 obrażenia #41]]`) and an InlineRoll row
  ties the two. A marker that names its roll is never rolled again, whatever its words say
  now; one whose number was deleted, with the same words, gets its roll back.
- `[[test: Percepcja]]` becomes the player's request for that test of the narrating
  character's sheet (rolls.services.roll_ask_create, through the system's request form as
  the request page builds it), for the GM to answer; the marker carries the request's
  number. The GM rolls tests in the panel: a GM's test marker is refused.
- Inline dice are never secret: they are public rolls of the chain.

Every refusal is checked before any die and raised as ValidationError {"narration": …}: the
post's transaction rolls back, nothing is stored."""

from __future__ import annotations

import uuid

from django.core.exceptions import PermissionDenied, ValidationError
from django.utils.translation import gettext as _

from diary.hooks import NarrationDice
from diary.posts.dice_markers import Marker, find_markers, numbered_text, without_slots
from rolls import registry
from rolls.access import access_free_roll, askable_modes, may_ask
from rolls.engine.errors import RuleError
from rolls.free.services import FREE_ROLLS_NOT_ALLOWED, FreeRoll, roll_make_free
from rolls.inline.presenters import dice_html
from rolls.inline.words import (
    INLINE_DICE_MAX,
    close_names,
    named_test,
    read_expression,
    too_many_dice,
)
from rolls.messages import refusal_message
from rolls.models import AskStatus, InlineRoll, RollAsk
from rolls.plugins import FormContext
from rolls.selectors import sheets_in_play
from rolls.services import ALREADY_ASKED, roll_ask_create


def narration_dice(*, post, by, text: str, client_seed: str = "") -> NarrationDice | None:
    """The narration with its new markers rolled (or asked) and every marker numbered, and
    its HTML with each result inline; None for a narration with no marker in a post that
    never had any."""
    text = without_slots(text)
    markers = find_markers(text)
    if not markers and getattr(post, "just_written", False):
        return None  # a new post without dice: nothing was ever rolled in it
    made = {(row.ask_id is not None, row.number): row for row in _inline_rows(post)}
    if not markers and not made:
        return None
    named = {(m.is_test, m.number) for m in markers if m.number is not None}
    # A marker whose number was deleted, with the same words, is the roll it made.
    free_again = {
        (row.ask_id is not None, row.words): key for key, row in made.items() if key not in named
    }
    numbers: list[int | None] = []
    new: list[tuple[int, Marker]] = []
    errors: list[str] = []
    for index, marker in enumerate(markers):
        if marker.number is not None:
            if (marker.is_test, marker.number) not in made:
                errors.append(_unknown_number(marker))
            numbers.append(marker.number)
        elif (again := free_again.pop((marker.is_test, marker.words), None)) is not None:
            numbers.append(again[1])
        else:
            numbers.append(None)
            new.append((index, marker))
    if len(made) + len(new) > INLINE_DICE_MAX:
        errors.append(too_many_dice(len(made) + len(new)))
    planned = _planned(post, by, new, errors, client_seed)
    if errors:
        raise ValidationError({"narration": errors})
    for index, make in planned:
        row = make()
        made[(row.ask_id is not None, row.number)] = row
        numbers[index] = row.number
    return dice_html(post, numbered_text(text, markers, numbers), made)


def _inline_rows(post) -> list[InlineRoll]:
    return list(InlineRoll.objects.filter(post=post).select_related("roll", "ask", "ask__answer"))


def _unknown_number(marker: Marker) -> str:
    return _(
        "“%(marker)s”: no roll #%(number)s of this post; remove the number to roll the dice anew."
    ) % {"marker": f"[[{marker.words} #{marker.number}]]", "number": marker.number}


def _planned(post, by, new: list[tuple[int, Marker]], errors: list[str], client_seed: str) -> list:
    """(index, a function that makes the marker's roll or request) for each new marker;
    what refuses one goes into `errors` (none is made while any is refused)."""
    planned = []
    free = [(index, m) for index, m in new if not m.is_test]
    if free and not access_free_roll(by, post.session).may_roll:
        errors.append(str(FREE_ROLLS_NOT_ALLOWED))
        free = []
    for index, marker in free:
        expression = read_expression(marker.words)
        if expression.error:
            errors.append(f"[[{marker.words}]]: {expression.error}")
            continue
        planned.append((index, _free_roll(post, by, marker, expression, client_seed)))
    for index, marker in (pair for pair in new if pair[1].is_test):
        make, error = _sheet_test(post, by, marker)
        if error:
            errors.append(f"[[test: {marker.words}]]: {error}")
        else:
            planned.append((index, make))
    return planned


def _free_roll(post, by, marker: Marker, expression, client_seed: str):
    def make() -> InlineRoll:
        try:
            made = roll_make_free(
                session=post.session,
                by=by,
                free=FreeRoll(expression=expression.expression, label=expression.label),
                token=uuid.uuid4(),
                post=post,
                client_seed=client_seed,
            )
        except (ValidationError, PermissionDenied) as error:
            # The post's own turn is no longer the current one, or the post is hidden.
            raise ValidationError({"narration": _refusal_words(error)}) from error
        return InlineRoll.objects.create(post=post, words=marker.words, roll=made.roll)

    return make


def _refusal_words(error) -> list[str]:
    if isinstance(error, ValidationError) and hasattr(error, "message_dict"):
        if "post" in error.message_dict:
            return [_("Dice are rolled only in your own post of the current turn.")]
        return [m for messages in error.message_dict.values() for m in messages]
    return [str(FREE_ROLLS_NOT_ALLOWED)]


def _sheet_test(post, by, marker: Marker):
    """(a function that asks for the test, "") or (None, the refusal)."""
    session = post.session
    if not may_ask(by, session):
        if access_free_roll(by, session).is_gm:
            return None, _("The GM rolls tests in the roll panel.")
        return None, _("Only a player of a running session asks for a test.")
    system = registry.system_for(session.system)
    if system.named_test is None:
        return None, _("In this system a test is asked for from the roll panel.")
    if post.character_id is None:
        return None, _("A test is made by the narrating character: choose it.")
    test = named_test(session.system, marker.words)
    if test is None:
        near = close_names(session.system, marker.words)
        if near:
            return None, _("No attribute or skill of that name; did you mean: %(names)s?") % {
                "names": ", ".join(near)
            }
        return None, _("No attribute or skill of that name in this system.")
    mode, data = system.named_test(test.kind, test.catalog_id, post.character_id)
    if mode not in askable_modes(session.system):
        return None, _("In this system a test is asked for from the roll panel.")
    mine = [c for c in sheets_in_play(session).values() if c.owner_id == by.pk]
    form = system.form(
        mode,
        data,
        FormContext(
            characters=mine, all_characters=mine, gm=False, session=session, for_request=True
        ),
    )
    form.keep_only_asked()
    if not form.is_valid():
        return None, " ".join(_form_errors(form)) or _("This test cannot be asked for.")

    def make() -> InlineRoll:
        # One open request per character and post (roll_ask_create's own rule), in words
        # that say so rather than the wrong post's.
        if RollAsk.objects.filter(
            post=post, character_id=post.character_id, status=AskStatus.OPEN
        ).exists():
            raise ValidationError({"narration": ALREADY_ASKED % {"name": post.character.name}})
        try:
            ask = roll_ask_create(session=session, by=by, case=form.case(), post=post)
        except RuleError as error:
            raise ValidationError({"narration": refusal_message(system, error)[1]}) from error
        except ValidationError as error:
            raise ValidationError({"narration": _refusal_words(error)}) from error
        return InlineRoll.objects.create(post=post, words=marker.words, ask=ask)

    return make, ""


def _form_errors(form) -> list[str]:
    return [str(message) for f in form.forms for errors in f.errors.values() for message in errors]
