"""A stored roll record, as people read it (RULES 1.1's line), in the current language.

Only the record is read, never the live sheets: a roll shows exactly what was
rolled, forever.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.formats import number_format
from django.utils.html import strip_tags
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from characters.models import EffectKind
from characters.numbers import with_minus
from diary.live.page_cache import memo
from rolls import registry
from rolls.engine import notation as free_notation
from rolls.ledger.secret import commitment_matches, is_reveal_record, is_secret_record
from rolls.models import POSTLESS_KINDS, is_entry_record, is_player_free_roll

# What the chain holds besides the systems' rolls, by kind.
KINDS = {
    # Diary entries (no die).
    "hp": gettext_lazy("HP"),
    "effect": gettext_lazy("Effect"),
    "effect_free": gettext_lazy("Effect freed"),
    "item_grant": gettext_lazy("Item granted"),
    "item_use": gettext_lazy("Item used"),
    "ability_use": gettext_lazy("Action without a roll"),
    # The GM's free-form dice (rolls.free.services).
    "notation": gettext_lazy("Free-form roll"),
    # The chain's own entries of no post (rolls.ledger.fair_dice, rolls.services.session_finishing).
    "dice_commit": gettext_lazy("Dice seeds committed"),
    "dice_reveal": gettext_lazy("Dice seeds revealed"),
    "session_end": gettext_lazy("Session ended"),
}


@dataclass(frozen=True)
class FreeDie:
    """One die of a free-form roll; `note` says in words what the styling shows."""

    face: int
    kept: bool
    note: str = ""


@dataclass(frozen=True)
class FreeTerm:
    operator: str  # "+", "−" (U+2212), or "" for a positive first term
    text: str  # "4k6kh3" in the language's die letter, or the constant
    dice: tuple[FreeDie, ...] = ()
    subtotal: int = 0
    label: str = ""  # the term's [label], shown in the roll line
    depth: int = 0  # 1 for the dice inside a product or a group
    note: str = ""  # "part dropped": a group's part that did not count
    composite: bool = False  # a product or a group: its dice follow on their own rows


@dataclass(frozen=True)
class FreeView:
    label: str
    expression: str  # as the GM typed it
    who: str  # the character it concerns, or ""
    terms: tuple[FreeTerm, ...]
    total: str  # with the one minus sign

    @property
    def dice_count(self) -> int:
        return sum(len(term.dice) for term in self.terms)


def _die_letter() -> str:
    return pgettext("die in dice notation, as in 2d6", "d")


def _compare_text(compare: dict, bare_equal: bool) -> str:
    if compare["compare"] == "=" and bare_equal:
        return str(compare["value"])
    return f"{compare['compare']}{compare['value']}"


def _sum_text(terms: list[dict]) -> str:
    parts = []
    for index, term in enumerate(terms):
        sign = "−" if term["sign"] < 0 else ("+" if index else "")
        parts.append(f"{sign} {_term_text(term)}".strip() if index else f"{sign}{_term_text(term)}")
    return " ".join(parts)


def _term_text(term: dict) -> str:
    """A stored term as written, in the language's die letter (labels apart)."""
    if term["kind"] == "constant":
        return str(term["value"])
    if term["kind"] == "product":
        out = ""
        for index, factor in enumerate(term["factors"]):
            terms = factor["terms"]
            text = _sum_text(terms)
            if len(terms) > 1 or terms[0]["sign"] < 0 or terms[0]["kind"] == "product":
                text = f"({text})"
            out += (
                text if index == 0 else f" {'×' if term['ops'][index - 1] == '*' else '÷'} {text}"
            )
        return out
    if term["kind"] == "group":
        selection = f"{term['selection']}{term['selection_count']}" if term["selection"] else ""
        return "{" + ", ".join(_sum_text(item["terms"]) for item in term["items"]) + "}" + selection
    selection = f"{term['selection']}{term['selection_count']}" if term["selection"] else ""
    explode = ("!!" if term.get("compound") else "!") if term["explode"] else ""
    reroll = ""
    if term.get("reroll"):
        reroll = ("ro" if term["reroll"]["once"] else "r") + _compare_text(term["reroll"], True)
    success = _compare_text(term["success"], False) if term.get("success") else ""
    failure = "f" + _compare_text(term["failure"], True) if term.get("failure") else ""
    return (
        f"{term['count']}{_die_letter()}{term['faces']}{explode}{reroll}{selection}"
        f"{success}{failure}"
    )


def _die_note(die: dict) -> str:
    notes = []
    if die.get("rerolled"):
        notes.append(_("rerolled"))
    elif not die["kept"]:
        notes.append(_("dropped"))
    if die["exploded"]:
        notes.append(_("exploded: one more die"))
    if die["extra"]:
        notes.append(_("from an explosion"))
    if die["capped"]:
        notes.append(_("explosion limit reached"))
    if die.get("success"):
        notes.append(_("a success"))
    if die.get("failure"):
        notes.append(_("a failure"))
    return ", ".join(notes)


def _free_rows(terms: list[dict], depth: int, note: str = "") -> list[FreeTerm]:
    rows = []
    for index, term in enumerate(terms):
        operator = "−" if term["sign"] < 0 else ("+" if index else "")
        dice = tuple(
            FreeDie(face=die["face"], kept=die["kept"], note=_die_note(die))
            for die in term.get("dice", ())
        )
        rows.append(
            FreeTerm(
                operator,
                _term_text(term),
                dice,
                abs(term["subtotal"]),
                label=term.get("label", ""),
                depth=depth,
                note=note,
                composite=term["kind"] in ("product", "group"),
            )
        )
        if term["kind"] == "product":
            for factor in term["factors"]:
                rows.extend(r for r in _free_rows(factor["terms"], depth + 1) if r.dice)
        elif term["kind"] == "group":
            for item in term["items"]:
                dropped = "" if item["kept"] else str(_("part dropped"))
                rows.extend(
                    r for r in _free_rows(item["terms"], depth + 1, dropped) if r.dice or r.note
                )
    return rows


def free_view(record: dict) -> FreeView:
    """A stored free-form roll, from its record alone: every die with what became of it."""
    result = record["result"]
    character = record["characters"].get("a")
    return FreeView(
        label=record["label"],
        expression=result["input"]["expression"],
        who=character["name"] if character else "",
        terms=tuple(_free_rows(result["terms"], 0)),
        total=with_minus(str(result["total"])),
    )


def notation_range(notation: free_notation.Notation) -> tuple[int, int]:
    """The lowest and highest total (exploding dice counted up to the engine's cap)."""
    return free_notation.value_range(notation)


def _selection_words(selection: str, n: int) -> str:
    words = {
        "kh": ngettext("keep the highest %(n)s", "keep the highest %(n)s", n),
        "kl": ngettext("keep the lowest %(n)s", "keep the lowest %(n)s", n),
        "dh": ngettext("drop the highest %(n)s", "drop the highest %(n)s", n),
        "dl": ngettext("drop the lowest %(n)s", "drop the lowest %(n)s", n),
    }
    return words[selection] % {"n": n}


_COMPARE_SIGNS = {"=": "=", "<": "<", "<=": "≤", ">": ">", ">=": "≥"}


def _compare_words(compare: free_notation.Compare) -> str:
    return f"{_COMPARE_SIGNS[compare.op]} {compare.value}"


def _dice_words(term: free_notation.DiceTerm) -> str:
    if term.fate:
        words = ngettext("%(count)s Fate die", "%(count)s Fate dice", term.count) % {
            "count": term.count
        }
    else:
        words = ngettext(
            "%(count)s die with %(faces)s faces", "%(count)s dice with %(faces)s faces", term.count
        ) % {"count": term.count, "faces": term.faces}
    if term.compound:
        words += ", " + ngettext("compounding", "compounding", term.count)
    elif term.explode:
        words += ", " + ngettext("exploding", "exploding", term.count)
    if term.explode_on is not None:
        words += " " + pgettext("the faces a die explodes on", "on %(compare)s") % {
            "compare": _compare_words(term.explode_on)
        }
    if term.reroll is not None:
        shown = {"compare": _compare_words(term.reroll)}
        words += ", " + (
            _("rerolled once on %(compare)s") % shown
            if term.reroll_once
            else _("rerolled on %(compare)s") % shown
        )
    if term.selection:
        words += ", " + _selection_words(term.selection, term.selection_count)
    if term.success is not None:
        words += ", " + _("counting the dice %(compare)s") % {
            "compare": _compare_words(term.success)
        }
    if term.failure is not None:
        words += ", " + _("minus the dice %(compare)s") % {"compare": _compare_words(term.failure)}
    if term.label:
        words += f" „{term.label}”"
    return words


def _sum_words(terms) -> str:
    parts = []
    for index, term in enumerate(terms):
        sign = "−" if term.sign < 0 else ("+" if index else "")
        if isinstance(term, free_notation.ConstantTerm):
            parts.append(f"{sign}{term.value}")  # "+2", as people write a modifier
            continue
        parts.append(f"{sign} {_term_words(term)}".strip())
    return ", ".join(parts)


def _term_words(term) -> str:
    if isinstance(term, free_notation.DiceTerm):
        return _dice_words(term)
    if isinstance(term, free_notation.GroupTerm):
        inner = "; ".join(_sum_words(item) for item in term.items)
        words = _("the group {%(parts)s}") % {"parts": inner}
        if term.selection:
            words += ", " + _selection_words(term.selection, term.selection_count)
        return words
    words = f"({_sum_words(term.factors[0])})"
    for op, factor in zip(term.ops, term.factors[1:], strict=True):
        words += f" {'×' if op == '*' else '÷'} ({_sum_words(factor)})"
    if "/" in term.ops:
        words += " " + _("rounded down")
    return words


def notation_summary(notation: free_notation.Notation) -> str:
    """The preview's words: "3 kości k6, zachowaj 2 najwyższe, +2; wynik 4–20"."""
    low, high = notation_range(notation)
    span = _("result %(low)s to %(high)s") % {
        "low": with_minus(str(low)),
        "high": with_minus(str(high)),
    }
    if any(t.explode for t in notation.dice_terms):
        span += " " + _("(at most %(cap)s extra dice per exploding die)") % {
            "cap": free_notation.EXPLOSION_CAP
        }
    if any(t.reroll is not None and not t.reroll_once for t in notation.dice_terms):
        span += " " + _("(a die is rerolled at most %(cap)s times)") % {
            "cap": free_notation.REROLL_CAP
        }
    return "; ".join([_sum_words(notation.terms), span])


@dataclass
class RollView:
    seq: int
    kind: str
    rolled_by: str
    hash: str = ""
    # The system's lines of the roll (RollSystem.lines), drawn by its `lines_template`.
    body: Any = None
    body_template: str = ""
    # A further action roll of the character in the turn: allowed by the GM, or counted.
    extra_action: str = ""
    action_count: str = ""
    # The player's request this roll answers, and the link to it in its post; when the GM
    # rolled something else, what was rolled and why.
    answers: str = ""
    answers_url: str = ""
    answered_differently: str = ""
    # A diary entry (HP, effect, item) in words; its 0 HP mark.
    entry: str = ""
    down: bool = False
    # A free-form roll (system "free"): its label, expression and every die.
    free: FreeView | None = None
    # A secret roll's commitment (its test named, nothing else); a reveal's secret roll
    # number and whether its record and salt give the commitment.
    commitment: str = ""
    secret_test: str = ""
    reveals_seq: int | None = None
    reveal_matches: bool = False
    # The partial explaining a roll's marks under its post, and its numbers.
    legend_template: str = ""
    legend: Any = None
    damaged: str = ""  # the record no longer has its shape

    @property
    def is_secret(self) -> bool:
        return bool(self.commitment)

    @property
    def is_entry(self) -> bool:
        return bool(self.entry)


def roll_view(roll) -> RollView:
    """The roll as shown; a record that no longer has its shape (tampering) is said to be so."""
    try:
        return _roll_view(roll)
    except (KeyError, TypeError, IndexError, AttributeError, ValueError):
        return RollView(
            seq=roll.seq,
            kind=_("Unreadable record"),
            rolled_by="?",
            damaged=_("This roll's stored record is damaged; moderators: verify the chain."),
            hash=roll.hash,
        )


def _test_label(system: str, test: str) -> str:
    plugin = registry.system_for(system)
    return plugin.kind_label(test) if plugin else str(KINDS.get(test, test))


def _secret_view(roll, record: dict) -> RollView:
    """A secret roll's entry: who, when, which test, the commitment; no die, no result."""
    secret = record["secret"]
    return RollView(
        seq=roll.seq,
        kind=_("Secret roll"),
        rolled_by=record["rolled_by"]["username"],
        hash=roll.hash,
        commitment=secret["commitment"],
        secret_test=_test_label(secret["system"], secret["test"]),
    )


@dataclass(frozen=True)
class _RevealedRow:
    """The revealed record as a row of its own number, for roll_view."""

    seq: int
    record: dict
    hash: str
    system: str
    session_id: int


def _reveal_view(roll, record: dict) -> RollView:
    """A reveal: the secret roll's lines as any roll of its test shows them, and whether the
    revealed record and salt give the commitment (the verifiers check it against the chain)."""
    reveals = record["reveals"]
    full = reveals["record"]
    inner = _roll_view(_RevealedRow(reveals["seq"], full, roll.hash, roll.system, roll.session_id))
    inner.seq = roll.seq
    inner.kind = _("Secret roll #%(seq)s revealed: %(kind)s") % {
        "seq": reveals["seq"],
        "kind": inner.kind,
    }
    inner.rolled_by = record["rolled_by"]["username"]
    inner.reveals_seq = reveals["seq"]
    inner.reveal_matches = commitment_matches(reveals["commitment"], full, reveals["salt"])
    return inner


def hidden_view(roll, hidden) -> RollView:
    """For the GM (rolls.access): the still-hidden record of a secret roll, as it will show."""
    return roll_view(_RevealedRow(roll.seq, hidden.record, roll.hash, roll.system, roll.session_id))


def _roll_view(roll) -> RollView:
    record = roll.record
    if is_secret_record(record):
        return _secret_view(roll, record)
    if is_reveal_record(record):
        return _reveal_view(roll, record)
    kind = record["kind"]
    view = RollView(
        seq=roll.seq,
        kind=str(KINDS.get(kind, kind)),
        rolled_by=record["rolled_by"]["username"],
        hash=roll.hash,
    )
    if kind in POSTLESS_KINDS:
        view.entry = postless_text(kind, record)
        return view
    if is_entry_record(record):
        view.entry, view.down = entry_text(kind, record["characters"]["a"]["name"], record["entry"])
        return view
    if kind == free_notation.TEST:  # Roll.system is the session's; the result's is "free"
        view.free = free_view(record)
        if is_player_free_roll(record):
            view.kind = _("Player's free-form roll")
        return view
    system = registry.system_for(roll.system)
    if system is None:
        raise ValueError(f"no rule system {roll.system!r} on this site")
    view.kind = system.kind_label(kind)
    view.body = system.lines(record)
    if not view.body:
        raise ValueError("a roll without a line")
    view.body_template = system.lines_template
    view.legend_template, view.legend = system.legend_template, system.legend
    _action_words(view, record)
    _answer_words(view, record, roll.session_id)
    return view


def extra_action_words(extra: dict | None) -> str:
    """The GM's permission for a further action in a turn, as a roll or an item use shows
    it: named by its place in the turn ("second", then "extra action (3.)"), never "second"
    for a third one."""
    if not extra:
        return ""
    number = extra.get("number")
    reason = {"reason": extra["reason"]}
    after_moves = extra.get("earlier_seq") is None and not extra.get("item_uses")
    if after_moves and (number is None or number == 3):  # no action roll or item before
        return _("A third action this turn (after two moves), allowed by the GM: %(reason)s") % (
            reason
        )
    if number is None or (number == 2 and extra.get("earlier_seq") is not None):
        return _("Second action roll this turn, allowed by the GM: %(reason)s") % reason
    return _("Extra action (%(number)s.) this turn, allowed by the GM: %(reason)s") % (
        reason | {"number": number}
    )


def _action_words(view: RollView, record: dict) -> None:
    extra = record.get("extra_action")
    view.extra_action = extra_action_words(extra)
    count = record.get("action_count")
    if count:
        view.action_count = _(
            "Action roll no. %(number)s of this character in this turn (the first: #%(seq)s)."
        ) % {"number": count["number"], "seq": count["earlier_seq"]}


def _answer_words(view: RollView, record: dict, session_id: int) -> None:
    answers = record.get("answers")
    if not answers:
        return
    view.answers_url = ask_url(session_id, answers["post"], answers["ask"])
    if "rolled" in answers:
        # The GM answered by judgment: both what was asked and what was rolled, and why.
        view.answers = _("Request: %(asked)s · the GM rolled: %(rolled)s — %(note)s") % {
            "asked": answers["summary"],
            "rolled": answers["rolled"],
            "note": answers["note"],
        }
        view.answered_differently = answers["note"]
        return
    view.answers = _("Answers the request for a roll: %(summary)s") % {
        "summary": answers["summary"]
    }


def ask_url(session_id: int, post_id: int, ask_id: int) -> str:
    """A request in its post: the diary's page that starts at the post, as post permalinks
    are (no query, whatever page the post is on now)."""
    diary = reverse("diary:session", args=[session_id])
    return f"{diary}?after={post_id - 1}#ask-{ask_id}"


def _effect_kind(kind: str) -> str:
    return str(EffectKind(kind).label) if kind in EffectKind.values else kind


def _then(text: str, clause: str) -> str:
    """`text`, then `clause`: after a "; " within a sentence, but as a new sentence where
    `text` already ends one (a potion's own description often ends with a full stop)."""
    if text.rstrip().endswith((".", "!", "?")):
        return f"{text.rstrip()} {clause[:1].upper()}{clause[1:]}"
    return f"{text}; {clause}"


def postless_text(kind: str, record: dict) -> str:
    """A chain entry of no post in words: a turn's dice seeds committed or revealed, the
    session's end."""
    if kind == "dice_commit":
        return _(
            "Turn %(turn)s's dice seeds, committed before any of its rolls: every die of the "
            "turn follows from them and each roller's own seed."
        ) % {"turn": record["dice_commit"]["turn"]}
    if kind == "dice_reveal":
        part = record["dice_reveal"]
        streams = set(part["seeds"])
        if streams == {"public"}:
            text = _(
                "Turn %(turn)s's seed of the visible rolls revealed: anyone can now "
                "recompute their dice."
            )
        elif streams == {"secret"}:
            text = _(
                "Turn %(turn)s's seed of the secret rolls revealed: anyone can now "
                "recompute their dice."
            )
        else:
            text = _(
                "Turn %(turn)s's dice seeds revealed: anyone can now recompute every "
                "die of the turn."
            )
        return text % {"turn": part["turn"]}
    return _(
        "The session ended: every secret roll and every dice seed was revealed before this "
        "entry, and nothing joins the chain after it."
    )


def entry_text(kind: str, name: str, entry: dict) -> tuple[str, bool]:
    """A diary entry in words, from its record only; and whether it left the
    character at 0 HP."""
    if kind == "hp":
        return _hp_text(name, entry)
    if kind == "effect":
        return _effect_text(name, entry), False
    if kind == "effect_free":
        return _effect_free_text(name, entry), False
    if kind == "item_grant":
        return _item_grant_text(name, entry), False
    if kind == "ability_use":
        return _ability_use_text(entry), False
    return _item_use_text(name, entry), False


def _hp_text(name: str, entry: dict) -> tuple[str, bool]:
    delta = entry["delta"]
    what = (
        _("%(name)s loses %(amount)s HP") if delta < 0 else _("%(name)s regains %(amount)s HP")
    ) % {"name": name, "amount": abs(delta)}
    text = _("%(what)s (HP %(before)s → %(after)s). Reason: %(reason)s") % {
        "what": what,
        "before": entry["hp_before"],
        "after": entry["hp_after"],
        "reason": entry["reason"],
    }
    return text, bool(entry["down"])


def _effect_text(name: str, entry: dict) -> str:
    effect = entry["effect"]
    text = _("%(name)s: %(kind)s, %(description)s, from turn %(turn)s") % {
        "name": name,
        "kind": _effect_kind(effect["kind"]),
        "description": effect["description"],
        "turn": entry["began_turn"],
    }
    if entry["length_turns"]:
        text = _then(
            text,
            ngettext(
                "for %(length)s turn: it ends by itself when turn %(end)s opens",
                "for %(length)s turns: it ends by itself when turn %(end)s opens",
                entry["length_turns"],
            )
            % {"length": entry["length_turns"], "end": entry["ends_at_turn"]},
        )
    else:
        text = _then(text, _("until freed"))
    return text + ". " + _("Reason: %(reason)s") % {"reason": entry["reason"]}


def _effect_free_text(name: str, entry: dict) -> str:
    effect = entry["effect"]
    text = _("%(name)s is freed of %(kind)s, %(description)s, in turn %(turn)s") % {
        "name": name,
        "kind": _effect_kind(effect["kind"]),
        "description": effect["description"],
        "turn": entry["freed_turn"],
    }
    return text + ". " + _("Reason: %(reason)s") % {"reason": entry["reason"]}


def _item_grant_text(name: str, entry: dict) -> str:
    potion = entry["potion"]
    text = _("%(name)s receives %(count)s× %(effect)s") % {
        "name": name,
        "count": potion["count"],
        "effect": potion["effect"],
    }
    return text + _structured(potion)


def _ability_use_text(entry: dict) -> str:
    """A spell or ability used without a roll: named by the record, not the character."""
    text = _("Action without a roll: %(name)s — %(description)s") % {
        "name": entry["name"],
        "description": entry["description"],
    }
    if entry.get("extra_action"):
        text = _then(text, extra_action_words(entry["extra_action"]))
    return text


def _item_use_text(name: str, entry: dict) -> str:
    potion = entry["potion"]
    text = _("%(name)s uses: %(effect)s") % {"name": name, "effect": potion["effect"]}
    if entry["hp_before"] != entry["hp_after"]:
        text = _then(
            text,
            _("HP %(before)s → %(after)s")
            % {"before": entry["hp_before"], "after": entry["hp_after"]},
        )
    if entry["freed_effect"]:
        text = _then(
            text, _("freed: %(effect)s") % {"effect": entry["freed_effect"]["description"]}
        )
    if entry["for_gm"]:
        text = _then(text, _("its effect is the GM's to apply"))
    text = _then(text, _("left: %(count)s") % {"count": entry["left"]})
    if entry.get("extra_action"):
        text = _then(text, extra_action_words(entry["extra_action"]))
    return text


def _structured(potion: dict) -> str:
    parts = []
    if potion.get("restores_hp"):
        parts.append(_("restores %(hp)s HP") % {"hp": potion["restores_hp"]})
    if potion.get("frees_kind"):
        parts.append(_("frees one effect: %(kind)s") % {"kind": _effect_kind(potion["frees_kind"])})
    return f" ({', '.join(parts)})" if parts else ""


@dataclass(frozen=True)
class RenderedRoll:
    """A roll's rolls/roll.html, rendered once per language, and what
    rolls/post_rolls_block.html draws under a post's rolls (the system's legend)."""

    html: str
    seq: int
    legend_template: str = ""
    legend: Any = None


def rendered_roll(roll) -> RenderedRoll:
    """Rolls never change, and a roll's hash covers its whole record: keyed by it (and the
    language), the HTML can never be stale or another roll's."""
    from django.template.loader import render_to_string
    from django.utils.translation import get_language

    def render() -> RenderedRoll:
        view = roll_view(roll)
        html = render_to_string(
            "rolls/roll.html", {"view": view, "session": {"pk": roll.session_id}}
        )
        return RenderedRoll(html, view.seq, view.legend_template, view.legend)

    return memo(("roll", roll.pk, roll.hash, get_language()), render)


def roll_announcement(roll, session_title: str) -> dict:
    """A chain row as the session's table chat reads it (diary.notifications.webhooks): the diary's
    own lines, as text. A secret roll says no more there than in the diary."""
    text = " ".join(strip_tags(rendered_roll(roll).html).split())
    return {
        "content": _("**%(session)s**: roll #%(seq)s by %(who)s.")
        % {"session": session_title, "seq": roll.seq, "who": roll.record["rolled_by"]["username"]},
        "title": _("Roll #%(seq)s") % {"seq": roll.seq},
        "url": settings.SITE_URL + reverse("diary:post_link", args=[roll.post_id]),
        "text": text[:1000],
    }


@dataclass(frozen=True)
class OddsView:
    """The exact odds of a free-form roll, before it is rolled (rolls.engine.notation)."""

    mean: str = ""
    rows: tuple[tuple[str, str, str], ...] = ()  # total, percent, exact fraction
    target: int | None = None
    at_least: str = ""  # the chance of a total ≥ target, in percent
    at_least_exact: str = ""
    too_large: str = ""


def _percent(chance) -> str:
    # Rounded here, to the nearest hundredth of a percent (number_format cuts digits off).
    if 0 < chance < Fraction(1, 20000):
        return "< " + number_format(Decimal("0.01"), decimal_pos=2) + " %"
    return number_format(Decimal(round(chance * 10000)) / 100, decimal_pos=2) + " %"


def notation_odds(notation: free_notation.Notation, target: int | None) -> OddsView:
    """Mean, each total's chance and P(total ≥ target), exact; or why not."""
    from rolls.messages import odds_too_large_message

    try:
        odds = free_notation.exact_odds(notation)
    except free_notation.OddsTooLarge:
        return OddsView(too_large=odds_too_large_message())
    rows = tuple(
        (with_minus(str(total)), _percent(chance), f"{chance.numerator}/{chance.denominator}")
        for total, chance in odds.distribution.items()
    )
    view = OddsView(
        mean=with_minus(number_format(Decimal(round(odds.mean * 100)) / 100, decimal_pos=2)),
        rows=rows,
        target=target,
    )
    if target is not None:
        chance = odds.at_least(target)
        view = OddsView(
            mean=view.mean,
            rows=rows,
            target=target,
            at_least=_percent(chance),
            at_least_exact=f"{chance.numerator}/{chance.denominator}",
        )
    return view
