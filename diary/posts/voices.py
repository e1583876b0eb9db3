"""An NPC's voice inside a post: `[npc: Karczmarz]…[/npc]` in the narration.

Only whoever runs the session (its GM or a co-GM) may use it, and only with an NPC of the
session that players see: a hidden NPC's voice is not offered while it is hidden. The block
is rendered once, on write, as a speech block with the NPC's name, small portrait and the
mark that the GM speaks through it; the post keeps it as it was written (an NPC hidden or
given another face later still spoke those words, in the open, then).

The text around and inside the blocks is rendered by config.markdown.render_narration,
each piece on its own, so a block is always a block of its own in the post.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _

from config.markdown import render_narration
from diary.models import NPC_NAME_MAX, Npc

# One speech block: the NPC's name up to the first "]", then its words up to the first
# "[/npc]" (blocks do not nest).
VOICE = re.compile(
    r"\[npc:[ \t]*([^\]\n]{1," + str(NPC_NAME_MAX) + r"}?)[ \t]*\](.*?)\[/npc\]",
    re.IGNORECASE | re.DOTALL,
)
OPENING = re.compile(r"\[npc:", re.IGNORECASE)


def npc_label(name: str) -> str:
    """An NPC named as one, wherever it is quoted or found ("Karczmarz (NPC)")."""
    return _("%(name)s (NPC)") % {"name": name}


def npc_mark() -> str:
    """What says that the GM speaks through the NPC."""
    return _("NPC voiced by the GM")


def voice_names(text: str) -> list[str]:
    """The NPC names the text's speech blocks name, in order, each once."""
    names: list[str] = []
    for match in VOICE.finditer(text or ""):
        name = match.group(1).strip()
        if name not in names:
            names.append(name)
    return names


def _refusal(message: str) -> ValidationError:
    return ValidationError({"narration": message})


def check_voices(text: str, *, session, runs: bool, kept: frozenset[str] = frozenset()):
    """The session's NPCs the text's blocks speak as, by the name written (any letter case),
    or a refusal in words next to the narration. `runs`: the author runs the session;
    `kept`: names the post already spoke as, allowed again in an edit even if the NPC was
    hidden since (the GM fixing a typo keeps the block)."""
    text = text or ""
    if not OPENING.search(text):
        return {}
    if not runs:
        raise _refusal(_("Only the GM speaks as an NPC: remove the [npc: …] block."))
    if len(OPENING.findall(text)) != len(VOICE.findall(text)):
        raise _refusal(
            _("An NPC's words end with [/npc]: write [npc: Name]…[/npc], one block at a time.")
        )
    by_name = {npc.name.casefold(): npc for npc in Npc.objects.filter(session=session)}
    kept_folded = {name.casefold() for name in kept}
    found = {}
    for name in voice_names(text):
        npc = by_name.get(name.casefold())
        if npc is None:
            raise _refusal(_("The session has no NPC named “%(name)s”.") % {"name": name})
        if not npc.visible_to_players and name.casefold() not in kept_folded:
            raise _refusal(
                _(
                    "%(name)s is hidden from players: its voice is not offered while it is "
                    "hidden (make it visible on the NPC page first)."
                )
                % {"name": npc.name}
            )
        found[name.casefold()] = npc
    return found


def _voice_block(npc: Npc, speech_html: str) -> str:
    portrait = (
        format_html(
            '<img class="portrait portrait-voice" src="{}" width="32" height="32" alt="" '
            'loading="lazy" decoding="async">',
            npc.portrait.url,
        )
        if npc.portrait
        else ""
    )
    return format_html(
        '<figure class="npc-voice" data-testid="npc-voice">'
        '<figcaption class="npc-voice-head">{}<strong class="npc-name">{}</strong> '
        '<span class="npc-mark">({})</span></figcaption>'
        '<div class="npc-speech">{}</div></figure>',
        portrait,
        npc.name,
        npc_mark(),
        mark_safe(speech_html),  # render_narration's sanitised output
    )


def render_with_voices(text: str, npcs: dict) -> str:
    """The narration as safe HTML with each speech block drawn (`npcs`: check_voices')."""
    if not npcs:
        return render_narration(text)
    pieces, cursor = [], 0
    for match in VOICE.finditer(text):
        pieces.append(render_narration(text[cursor : match.start()]))
        npc = npcs[match.group(1).strip().casefold()]
        pieces.append(_voice_block(npc, render_narration(match.group(2).strip())))
        cursor = match.end()
    pieces.append(render_narration(text[cursor:]))
    return "".join(pieces)


def piece_renderer(text: str, *, session, by, kept: frozenset[str] = frozenset()):
    """How each piece of a post's narration is rendered (its NPC blocks drawn), checked as
    `by` may write the whole text (a refusal is a ValidationError on the narration). The
    pieces are what diary.eyes cuts the text into: the text around the parts for chosen eyes
    and each part."""
    npcs = check_voices(text, session=session, runs=session.runs(by), kept=kept)
    return lambda piece: render_with_voices(piece, npcs)


def voices_as_markdown(text: str) -> str:
    """The text with each speech block as plain Markdown ("**Karczmarz (NPC):** …"): what a
    quote copies, so a player's reply carries the words, not a block only the GM may write."""
    return VOICE.sub(
        lambda match: f"**{npc_label(match.group(1).strip())}:** {match.group(2).strip()}",
        text or "",
    )


def check_speaker(npc: Npc | None, *, session, by, character, kept: Npc | None = None):
    """A whole post spoken by an NPC: only by whoever runs the session, as a visible NPC of
    this session (or the one the post already speaks as, in an edit), and with no character.
    The NPC as it is now (read again inside the caller's transaction), or None."""
    if npc is None:
        return None
    if not session.runs(by):
        raise ValidationError({"npc": _("Only the GM speaks as an NPC.")})
    current = Npc.objects.filter(pk=npc.pk, session=session).first()
    if current is None:
        raise ValidationError({"npc": _("This NPC is not of this session.")})
    if not current.visible_to_players and (kept is None or kept.pk != current.pk):
        raise ValidationError(
            {
                "npc": _(
                    "%(name)s is hidden from players: its voice is not offered while it is "
                    "hidden (make it visible on the NPC page first)."
                )
                % {"name": current.name}
            }
        )
    if character is not None:
        raise ValidationError(
            {"character": _("A post spoken by an NPC narrates no character: choose one of them.")}
        )
    return current
