"""A stored roll record, as people read it (RULES 1.1's line), in the current language.

Only the record is read, never the live sheets: a roll shows exactly what was
rolled, forever.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.urls import reverse
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext

from characters.numbers import signed_text, with_minus
from rolls import cases
from rolls.engine import forum1000 as f1000
from rolls.engine import notation as free_notation
from rolls.models import is_entry_record

OUTCOMES = {"success": gettext_lazy("Success"), "failure": gettext_lazy("Failure")}
CRITICALS = {"luck": gettext_lazy("critical luck"), "bad_luck": gettext_lazy("critical bad luck")}
WINNERS = {
    "a": gettext_lazy("%(a)s wins"),
    "b": gettext_lazy("%(b)s wins"),
    "draw": gettext_lazy("Draw"),
    "none": gettext_lazy("Nobody wins: both failed, the attempt is annulled"),
}
KINDS = {
    "attribute": gettext_lazy("Attribute"),
    "combined": gettext_lazy("Combined roll"),
    "skill": gettext_lazy("Skill"),
    "opposed": gettext_lazy("Opposed roll"),
    "healing": gettext_lazy("Healing"),
    "initiative": gettext_lazy("Initiative"),
    # Issue 9: diary entries in the same chain (no die).
    "hp": gettext_lazy("HP"),
    "effect": gettext_lazy("Effect"),
    "effect_free": gettext_lazy("Effect freed"),
    "item_grant": gettext_lazy("Item granted"),
    "item_use": gettext_lazy("Item used"),
    # Issue 13: the GM's free-form dice (rolls.free_rolls).
    "notation": gettext_lazy("Free-form roll"),
}

SCOPES = {
    "action": gettext_lazy("action"),
    "gm_difficulty": gettext_lazy("GM difficulty"),
    "gm_bonus": gettext_lazy("GM bonus/penalty"),
}


@dataclass
class Term:
    text: str  # e.g. "Zręczność 500 ÷ 2 = 250", "Precyzyjny +50 ÷ 2 = +25"
    reason: str = ""


@dataclass
class TestLine:
    who: str
    what: str
    outcome: str
    success: bool
    percent: int
    roll: int
    threshold: int
    distance: int
    critical: str
    terms: list[Term] = field(default_factory=list)

    # RULES 1.1's numbers as shown, each with the one minus sign (U+2212).
    @property
    def threshold_text(self) -> str:
        return with_minus(str(self.threshold))

    @property
    def distance_text(self) -> str:
        return with_minus(signed_text(self.distance))

    @property
    def comparison(self) -> str:
        """Success is roll ≤ threshold (RULES 1.1)."""
        return "≤" if self.roll <= self.threshold else ">"


def _what(result: dict) -> str:
    data = result["input"]
    kind = result["test"]
    if kind == "combined":
        first, second = data["attributes"]
        return _("Combined: %(a)s + %(b)s") % {"a": first["name"], "b": second["name"]}
    if kind in ("skill", "healing") and not data.get("skill"):
        return _("No fitting skill: %(attribute)s ÷ 2") % {"attribute": data["attribute"]["name"]}
    if kind in ("skill", "healing"):
        return _("%(skill)s (level %(level)s, %(attribute)s)") % {
            "skill": data.get("skill") or _("Skill"),
            "level": data["level"],
            "attribute": data["attribute"]["name"],
        }
    return _("Attribute: %(name)s") % {"name": data["attribute"]["name"]}


def threshold_terms(breakdown: list[dict]) -> list[Term]:
    """Each threshold term as written on a forum: what it is, its value, what it adds."""
    terms = []
    for index, term in enumerate(breakdown):
        halved = term["weight"] == "1/2"
        contribution = term["contribution"]
        # The first term starts the sum; the others add to it, so they carry a sign.
        adds = with_minus(contribution if index == 0 else signed_text(contribution))
        if term["kind"] == "attribute":
            text = f"{term['name']} {term['value']}"
            text += f" ÷ 2 = {adds}" if halved else ""
        elif term["kind"] == "skill_level":
            text = _("level %(level)s × %(points)s = %(adds)s") % {
                "level": term["level"],
                "points": term["points_per_level"],
                "adds": adds,
            }
        else:
            value = with_minus(signed_text(term["value"]))
            if term["scope"] == "attribute":
                name = term.get("label") or term["attribute"]
                text = f"{name} ({term['attribute']}) {value}"
                text += f" ÷ 2 = {adds}" if halved else ""
            else:
                scope = str(SCOPES[term["scope"]])
                label = term.get("label")
                text = f"{scope}: {label} {value}" if label else f"{scope} {value}"
        terms.append(Term(text=text, reason=term.get("reason") or ""))
    return terms


def test_line(who: str, result: dict) -> TestLine:
    critical = result.get("critical")
    return TestLine(
        who=who,
        what=_what(result),
        outcome=str(OUTCOMES[result["outcome"]]),
        success=result["success"],
        percent=result["percent"],
        roll=result["roll"],
        threshold=result["threshold"],
        distance=result["distance"],
        critical=str(CRITICALS[critical]) if critical else "",
        terms=threshold_terms(result["breakdown"]),
    )


@dataclass(frozen=True)
class Legend:
    """What the legend under a roll needs from the engine (its numbers, not typed again)."""

    critical_luck_max: int = f1000.CRITICAL_LUCK_MAX
    critical_bad_luck_min: int = f1000.CRITICAL_BAD_LUCK_MIN

    @property
    def faces(self) -> int:
        low, high = f1000.DIE_FACES
        return high - low + 1

    @property
    def fair_mean(self) -> str:
        """What a fair die averages, e.g. "500,5" (the audit compares with it)."""
        low, high = f1000.DIE_FACES
        return formats.number_format(Decimal(low + high) / 2, decimal_pos=1, use_l10n=True)

    @property
    def luck_share(self) -> str:
        """The percent of faces that are critical luck on a fair die."""
        low, _high = f1000.DIE_FACES
        return _share(self.critical_luck_max - low + 1, self.faces)

    @property
    def bad_luck_share(self) -> str:
        _low, high = f1000.DIE_FACES
        return _share(high - self.critical_bad_luck_min + 1, self.faces)


def _share(count: int, faces: int) -> str:
    percent = (Decimal(count) * 100 / faces).normalize()
    return formats.number_format(percent, use_l10n=True)


LEGEND = Legend()


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


def _term_text(term: dict) -> str:
    if term["kind"] == "constant":
        return str(term["value"])
    selection = f"{term['selection']}{term['selection_count']}" if term["selection"] else ""
    explode = "!" if term["explode"] else ""
    return f"{term['count']}{_die_letter()}{term['faces']}{explode}{selection}"


def _die_note(die: dict) -> str:
    notes = []
    if not die["kept"]:
        notes.append(_("dropped"))
    if die["exploded"]:
        notes.append(_("exploded: one more die"))
    if die["extra"]:
        notes.append(_("from an explosion"))
    if die["capped"]:
        notes.append(_("explosion limit reached"))
    return ", ".join(notes)


def free_view(record: dict) -> FreeView:
    """A stored free-form roll, from its record alone: every die with what became of it."""
    result = record["result"]
    terms = []
    for index, term in enumerate(result["terms"]):
        negative = term["sign"] < 0
        operator = "−" if negative else ("+" if index else "")
        dice = tuple(
            FreeDie(face=die["face"], kept=die["kept"], note=_die_note(die))
            for die in term.get("dice", ())
        )
        terms.append(FreeTerm(operator, _term_text(term), dice, abs(term["subtotal"])))
    character = record["characters"].get("a")
    return FreeView(
        label=record["label"],
        expression=result["input"]["expression"],
        who=character["name"] if character else "",
        terms=tuple(terms),
        total=with_minus(str(result["total"])),
    )


def _kept_count(term: free_notation.DiceTerm, pool: int) -> int:
    if term.selection is None:
        return pool
    if term.selection.startswith("k"):
        return min(term.selection_count, pool)
    return pool - term.selection_count


def notation_range(notation: free_notation.Notation) -> tuple[int, int]:
    """The lowest and highest total (exploding dice counted up to the engine's cap)."""
    low = high = 0
    for term in notation.terms:
        if isinstance(term, free_notation.ConstantTerm):
            low, high = low + term.sign * term.value, high + term.sign * term.value
            continue
        most = term.count * (free_notation.EXPLOSION_CAP + 1) if term.explode else term.count
        least, greatest = _kept_count(term, term.count), _kept_count(term, most) * term.faces
        if term.sign < 0:
            least, greatest = -greatest, -least
        low, high = low + least, high + greatest
    return low, high


def _selection_words(term: free_notation.DiceTerm) -> str:
    n = term.selection_count
    words = {
        "kh": ngettext("keep the highest %(n)s", "keep the highest %(n)s", n),
        "kl": ngettext("keep the lowest %(n)s", "keep the lowest %(n)s", n),
        "dh": ngettext("drop the highest %(n)s", "drop the highest %(n)s", n),
        "dl": ngettext("drop the lowest %(n)s", "drop the lowest %(n)s", n),
    }
    return words[term.selection] % {"n": n}


def notation_summary(notation: free_notation.Notation) -> str:
    """The preview's words: "3 kości k6, zachowaj 2 najwyższe, +2; wynik 4–20"."""
    parts = []
    for index, term in enumerate(notation.terms):
        sign = "−" if term.sign < 0 else ("+" if index else "")
        if isinstance(term, free_notation.ConstantTerm):
            parts.append(f"{sign}{term.value}")  # "+2", as people write a modifier
            continue
        words = ngettext(
            "%(count)s die with %(faces)s faces", "%(count)s dice with %(faces)s faces", term.count
        ) % {"count": term.count, "faces": term.faces}
        if term.explode:
            words += ", " + ngettext("exploding", "exploding", term.count)
        if term.selection:
            words += ", " + _selection_words(term)
        parts.append(f"{sign} {words}".strip())
    low, high = notation_range(notation)
    span = _("result %(low)s to %(high)s") % {
        "low": with_minus(str(low)),
        "high": with_minus(str(high)),
    }
    if any(isinstance(t, free_notation.DiceTerm) and t.explode for t in notation.terms):
        span += " " + _("(at most %(cap)s extra dice per exploding die)") % {
            "cap": free_notation.EXPLOSION_CAP
        }
    return "; ".join([", ".join(parts), span])


@dataclass
class RollView:
    seq: int
    kind: str
    rolled_by: str
    lines: list[TestLine]
    verdict: str = ""
    initiative: list[tuple[int, str, str]] = field(default_factory=list)  # (place, name, score)
    healing: str = ""
    npc: str = ""  # the NPC targeted (issue 8), e.g. "NPC Stary kupiec, perswazja: +100"
    hash: str = ""
    legend: Legend = LEGEND
    # RULES 1.5: a second action roll in a turn, allowed by the GM with this reason.
    extra_action: str = ""
    # Issue 8: the player's request this roll answers, and the link to it in its post.
    answers: str = ""
    answers_url: str = ""
    # Issue 9: a diary entry (HP, effect, item) in words; its 0 HP mark.
    entry: str = ""
    down: bool = False
    # Issue 10: a case system's roll (q10, ciernie, arsmagica), its lines from its panel.
    case_lines: list = field(default_factory=list)
    action_count: str = ""
    # Issue 13: a free-form roll (system "free"): its label, expression and every die.
    free: FreeView | None = None
    # Issue 13 (rolls.secret): a secret roll's commitment (its test named, nothing else);
    # a reveal's secret roll number and whether its record and salt give the commitment.
    commitment: str = ""
    secret_test: str = ""
    reveals_seq: int | None = None
    reveal_matches: bool = False

    @property
    def is_secret(self) -> bool:
        return bool(self.commitment)

    @property
    def is_case(self) -> bool:
        # A free-form roll has no forum1000 legend either: its dice say what they are.
        return bool(self.case_lines) or self.free is not None

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
            lines=[],
            verdict=_("This roll's stored record is damaged; moderators: verify the chain."),
            hash=roll.hash,
        )


def _test_label(system: str, test: str) -> str:
    system_panel = cases.panel_for(system) if system != f1000.SYSTEM else None
    if system_panel is not None:
        return str(dict(system_panel.modes).get(test, test))
    return str(KINDS.get(test, test))


def _secret_view(roll, record: dict) -> RollView:
    """A secret roll's entry: who, when, which test, the commitment; no die, no result."""
    secret = record["secret"]
    return RollView(
        seq=roll.seq,
        kind=_("Secret roll"),
        rolled_by=record["rolled_by"]["username"],
        lines=[],
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
    from rolls.secret import commitment_matches

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
    from rolls.secret import is_reveal_record, is_secret_record

    record = roll.record
    if is_secret_record(record):
        return _secret_view(roll, record)
    if is_reveal_record(record):
        return _reveal_view(roll, record)
    entry = is_entry_record(record)
    result = record.get("result") if entry else record["result"]
    people = record["characters"]
    view = RollView(
        seq=roll.seq,
        kind=str(KINDS.get(record["kind"], record["kind"])),
        rolled_by=record["rolled_by"]["username"],
        lines=[],
        hash=roll.hash,
    )
    kind = record["kind"]
    if entry:
        view.entry, view.down = entry_text(kind, people["a"]["name"], record["entry"])
        return view
    if kind == free_notation.TEST:  # Roll.system is the session's; the result's is "free"
        view.free = free_view(record)
        return view
    system_panel = cases.panel_for(roll.system) if roll.system != f1000.SYSTEM else None
    if system_panel is not None:
        return _case_view(roll, record, view, system_panel)
    if kind == "opposed":
        a, b = people["a"]["name"], people["b"]["name"]
        view.lines = [test_line(a, result["a"]), test_line(b, result["b"])]
        view.verdict = str(WINNERS[result["winner"]]) % {"a": a, "b": b}
    elif kind == "initiative":
        scores = result["scores"]
        view.initiative = [
            (place, name, with_minus(str(scores[name])))
            for place, name in enumerate(result["order"], start=1)
        ]
        view.lines = [test_line(entry["name"], entry["result"]) for entry in result["entries"]]
    else:
        view.lines = [test_line(people["a"]["name"], result)]
    if record.get("npc"):
        view.npc = npc_text(record["npc"])
    if kind == "healing":
        healing = record["healing"]
        text = _("%(patient)s: HP %(before)s → %(after)s") % {
            "patient": people["patient"]["name"],
            "before": healing["hp_before"],
            "after": healing["hp_after"],
        }
        if healing["freed_effect"]:
            text += "; " + _("freed: %(effect)s") % {
                "effect": healing["freed_effect"]["description"]
            }
        view.healing = text
    extra = record.get("extra_action")
    if extra and extra.get("earlier_seq") is None:
        view.extra_action = _(
            "A third action this turn (after two moves), allowed by the GM: %(reason)s"
        ) % {"reason": extra["reason"]}
    elif extra:
        view.extra_action = _("Second action roll this turn, allowed by the GM: %(reason)s") % {
            "reason": extra["reason"]
        }
    answers = record.get("answers")
    if answers:
        view.answers = _("Answers the request for a roll: %(summary)s") % {
            "summary": answers["summary"]
        }
        view.answers_url = ask_url(roll.session_id, answers["post"], answers["ask"])
    return view


def _case_view(roll, record: dict, view: RollView, system_panel) -> RollView:
    """A case system's roll: its panel's lines from the record alone (issue 10)."""
    view.kind = str(dict(system_panel.modes).get(record["kind"], record["kind"]))
    view.case_lines = system_panel.lines(record)
    if not view.case_lines:
        raise ValueError("a case roll without a line")
    count = record.get("action_count")
    if count:
        view.action_count = _(
            "Action roll no. %(number)s of this character in this turn (the first: #%(seq)s)."
        ) % {"number": count["number"], "seq": count["earlier_seq"]}
    answers = record.get("answers")
    if answers:
        view.answers = _("Answers the request for a roll: %(summary)s") % {
            "summary": answers["summary"]
        }
        view.answers_url = ask_url(roll.session_id, answers["post"], answers["ask"])
    return view


def ask_url(session_id: int, post_id: int, ask_id: int) -> str:
    """A request in its post: the diary's page that starts at the post, as post permalinks
    are (no query, whatever page the post is on now)."""
    diary = reverse("diary:session", args=[session_id])
    return f"{diary}?after={post_id - 1}#ask-{ask_id}"


def _effect_kind(kind: str) -> str:
    from characters.models import EffectKind

    return str(EffectKind(kind).label) if kind in EffectKind.values else kind


def entry_text(kind: str, name: str, entry: dict) -> tuple[str, bool]:
    """A diary entry (issue 9) in words, from its record only; and whether it left the
    character at 0 HP."""
    if kind == "hp":
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
    if kind == "effect":
        effect = entry["effect"]
        text = _("%(name)s: %(kind)s, %(description)s, from turn %(turn)s") % {
            "name": name,
            "kind": _effect_kind(effect["kind"]),
            "description": effect["description"],
            "turn": entry["began_turn"],
        }
        if entry["length_turns"]:
            text += "; " + _(
                "for %(length)s turn(s): it ends by itself when turn %(end)s opens"
            ) % {"length": entry["length_turns"], "end": entry["ends_at_turn"]}
        else:
            text += "; " + _("until freed")
        return text + ". " + _("Reason: %(reason)s") % {"reason": entry["reason"]}, False
    if kind == "effect_free":
        effect = entry["effect"]
        text = _("%(name)s is freed of %(kind)s, %(description)s, in turn %(turn)s") % {
            "name": name,
            "kind": _effect_kind(effect["kind"]),
            "description": effect["description"],
            "turn": entry["freed_turn"],
        }
        return text + ". " + _("Reason: %(reason)s") % {"reason": entry["reason"]}, False
    if kind == "item_grant":
        potion = entry["potion"]
        text = _("%(name)s receives %(count)s× %(effect)s") % {
            "name": name,
            "count": potion["count"],
            "effect": potion["effect"],
        }
        return text + _structured(potion), False
    potion = entry["potion"]
    text = _("%(name)s uses: %(effect)s") % {"name": name, "effect": potion["effect"]}
    if entry["hp_before"] != entry["hp_after"]:
        text += "; " + _("HP %(before)s → %(after)s") % {
            "before": entry["hp_before"],
            "after": entry["hp_after"],
        }
    if entry["freed_effect"]:
        text += "; " + _("freed: %(effect)s") % {"effect": entry["freed_effect"]["description"]}
    if entry["for_gm"]:
        text += "; " + _("its effect is the GM's to apply")
    text += "; " + _("left: %(count)s") % {"count": entry["left"]}
    return text, False


def _structured(potion: dict) -> str:
    parts = []
    if potion.get("restores_hp"):
        parts.append(_("restores %(hp)s HP") % {"hp": potion["restores_hp"]})
    if potion.get("frees_kind"):
        parts.append(_("frees one effect: %(kind)s") % {"kind": _effect_kind(potion["frees_kind"])})
    return f" ({', '.join(parts)})" if parts else ""


def npc_text(npc: dict) -> str:
    """The NPC a roll targeted: "NPC Stary kupiec, perswazja: +100 (łatwowierny)"."""
    value = with_minus(signed_text(npc["value"]))
    return f"NPC {npc['name']}, {npc['interaction']}: {value} ({npc['reason']})"


@dataclass(frozen=True)
class RenderedRoll:
    """A roll's rolls/roll.html, rendered once per language: what rolls/post_rolls_block.html
    needs besides (whether it takes the die legend)."""

    html: str
    seq: int
    is_entry: bool
    is_case: bool
    legend: Legend = LEGEND


def rendered_roll(roll) -> RenderedRoll:
    """Rolls never change, and a roll's hash covers its whole record: keyed by it (and the
    language), the HTML can never be stale or another roll's."""
    from django.template.loader import render_to_string
    from django.utils.translation import get_language

    from diary.page_cache import memo

    def render() -> RenderedRoll:
        view = roll_view(roll)
        html = render_to_string(
            "rolls/roll.html", {"view": view, "session": {"pk": roll.session_id}}
        )
        # A secret roll's commitment has no die: no legend under it, as under an entry.
        is_entry = view.is_entry or view.is_secret
        return RenderedRoll(html, view.seq, is_entry, view.is_case, view.legend)

    return memo(("roll", roll.pk, roll.hash, get_language()), render)
