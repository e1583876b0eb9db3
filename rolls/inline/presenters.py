"""Dice inside a narration as people read them: each result where its marker stood, linked to
its entry in the chain (the roll's page); a result whose marker was taken out of the text
at the end, struck through, "usunięte z tekstu"; a sheet test as its request stands
("czeka na MG", then the answer). And the preview's odds of each expression, as the
free-roll page shows them (rolls.free.page.expression_preview).

The HTML is stored with the post (Post.narration_html), rendered in the site's language:
results never change, and when a request a marker made is closed the post's HTML is
rendered again (`ask_closed`), so the diary's cached post body, keyed by that HTML
(diary/posts/rendering.py), changes exactly when a result lands."""

from __future__ import annotations

import re

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.html import format_html, format_html_join, strip_tags
from django.utils.translation import gettext as _

from diary.hooks import NarrationDice, NarrationPreview
from diary.models import Post
from diary.posts.dice_markers import find_markers, refill, without_slots
from rolls.access import access_free_roll
from rolls.free.page import expression_preview
from rolls.free.services import FREE_ROLLS_NOT_ALLOWED
from rolls.inline.words import INLINE_DICE_MAX, read_expression, too_many_dice
from rolls.ledger.secret import SECRET_TEST
from rolls.models import AskStatus, InlineRoll
from rolls.presenters import roll_view

# How much of an answering roll's line the marker shows (the roll's page has all of it).
ANSWER_WORDS_MAX = 160
_OUTCOME = re.compile(r'class="outcome[^"]*">(.*?)</strong>', re.DOTALL)


def dice_html(post, text: str, made: dict) -> NarrationDice:
    """Each marker's result of `text` (numbered markers) as HTML, and the results no marker
    names any more; `made`: the post's InlineRoll rows by (is a test, number)."""
    markers = find_markers(text)
    with translation.override(settings.LANGUAGE_CODE):
        pieces = [
            _piece(post, made[(m.is_test, m.number)])
            if (m.is_test, m.number) in made
            else format_html("[[{}]]", m.words)
            for m in markers
        ]
        shown = {(m.is_test, m.number) for m in markers}
        removed = [row for key, row in sorted(made.items(), key=_in_order) if key not in shown]
        removed_html = (
            format_html(
                '<p class="inline-rolls-removed" data-testid="inline-removed">{}</p>',
                format_html_join(
                    " ",
                    "<del>{}</del> ({})",
                    ((_piece(post, row), _("removed from the text")) for row in removed),
                ),
            )
            if removed
            else ""
        )
    return NarrationDice(text=text, pieces=pieces, removed=removed_html)


def _in_order(item) -> int:
    return item[1].pk


def _piece(post, row: InlineRoll) -> str:
    if row.roll_id is not None:
        roll = row.roll
        result = roll.record.get("result", {})
        # What was rolled, as its record says: editing the marker's words changes nothing.
        typed = (result.get("input") or {}).get("expression", "")
        words = " ".join(part for part in (typed, roll.record.get("label", "")) if part)
        return format_html(
            '<a class="inline-roll" href="{}" data-testid="inline-roll" data-seq="{}" '
            'title="{}"><span class="inline-roll-words">{}</span>: '
            '<strong class="inline-roll-total">{}</strong> '
            '<span class="inline-roll-seq">#{}</span></a>',
            reverse("rolls:detail", args=[post.session_id, roll.seq]),
            roll.seq,
            _("Roll #%(seq)s in the session's chain") % {"seq": roll.seq},
            words,
            result.get("total", ""),
            roll.seq,
        )
    return _test_piece(post, row)


def _test_piece(post, row: InlineRoll) -> str:
    ask = row.ask
    name = f"test: {row.words}"
    if ask.answer_id is not None:
        answer = ask.answer
        if answer.test == SECRET_TEST:
            said = _("the GM answered with a secret roll")
        else:
            said = _outcome_words(answer)
        return format_html(
            '<a class="inline-roll inline-test" href="{}" data-testid="inline-test">{} — {} '
            '<span class="inline-roll-seq">#{}</span></a>',
            reverse("rolls:detail", args=[post.session_id, answer.seq]),
            name,
            said,
            answer.seq,
        )
    state = {
        AskStatus.OPEN: _("waiting for the GM"),
        AskStatus.DECLINED: _("declined by the GM"),
        AskStatus.WITHDRAWN: _("withdrawn"),
    }.get(ask.status, ask.get_status_display())
    return format_html(
        '<a class="inline-roll inline-test" href="#ask-{}" data-testid="inline-test">{} — {}</a>',
        ask.pk,
        name,
        state,
    )


def _outcome_words(roll) -> str:
    """The answering roll's outcome as its lines say it ("Sukces, jakość 53"): each line's
    outcome (every system's lines template marks it), else the start of its lines."""
    view = roll_view(roll)
    body = render_to_string(view.body_template, {"body": view.body}) if view.body_template else ""
    outcomes = [" ".join(strip_tags(o).split()) for o in _OUTCOME.findall(body)]
    words = " · ".join(outcomes) or " ".join(strip_tags(body).split())
    return words[:ANSWER_WORDS_MAX]


def ask_closed(ask) -> None:
    """A request a narration's marker made was answered, declined or withdrawn: the post's
    HTML shows it from now on (called inside the transaction that closes it). Only the
    results are put in again, the text is not rendered anew."""
    row = InlineRoll.objects.filter(ask_id=ask.pk).first()
    if row is None:
        return
    post = Post.objects.get(pk=row.post_id)
    rows = InlineRoll.objects.filter(post=post).select_related("roll", "ask", "ask__answer")
    dice = dice_html(post, post.narration, {(r.ask_id is not None, r.number): r for r in rows})
    # Only the HTML (never a part for chosen eyes: no die is written there): the post's
    # text, version and edit time are the author's.
    html = refill(post.narration_html, dice.pieces, dice.removed)
    Post.objects.filter(pk=post.pk).update(narration_html=html)


def narration_preview(*, session, user, text: str) -> NarrationPreview:
    """Each new free-form marker with its meaning and exact odds, as the free-roll page
    shows them; a sheet test named; the first refusal in words."""
    entries, errors = [], []
    markers = find_markers(without_slots(text))
    new_dice = any(not m.is_test and m.number is None for m in markers)
    if new_dice and not access_free_roll(user, session).may_roll:
        errors.append(str(FREE_ROLLS_NOT_ALLOWED))
    if len(markers) > INLINE_DICE_MAX:
        # As publishing would refuse it (a new post's every marker is new).
        errors.append(too_many_dice(len(markers)))
    for marker in markers:
        if marker.is_test:
            entries.append({"test": marker.words, "number": marker.number})
            continue
        expression = read_expression(marker.words)
        if expression.error:
            errors.append(f"[[{marker.words}]]: {expression.error}")
            continue
        entries.append(
            {
                "expression": expression.expression,
                "label": expression.label,
                "number": marker.number,
                **expression_preview(expression.expression),
            }
        )
    html = render_to_string("rolls/inline_preview.html", {"entries": entries}) if entries else ""
    return NarrationPreview(html=html, error=" ".join(errors))
