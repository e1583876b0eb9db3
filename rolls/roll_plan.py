"""What a roll will do, in one line, before the click that cannot be taken back: who rolls
what, for which character, answering which request, into which post, in which turn.

The panel shows the line above its Roll button and carries the plan's digest in its form;
rolls.services.roll_make works out the same plan under the session's lock and rolls only
when the digests are equal, so nothing but what the line said is ever rolled (a stale line
is refused with the new one, nothing stored)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.utils.text import capfirst
from django.utils.translation import gettext as _

from rolls import registry
from rolls.ledger.chain import canonical_json
from rolls.plugins import Case


@dataclass(frozen=True)
class RollPlan:
    """One roll as it will be made. `post_id` None: a new post at the end of the diary."""

    roller_id: int
    case: Case
    turn_number: int
    post_id: int | None
    own_post: bool  # the post it lands in is the roller's own
    ask_id: int | None = None
    ask_post_id: int | None = None
    differs: bool = False  # an answer other than what the request asked
    secret: bool = False
    extra_action: bool = False  # a further action the GM allows with a reason

    @classmethod
    def of(
        cls,
        by,
        case: Case,
        turn,
        target,
        ask=None,
        *,
        differs=False,
        secret=False,
        extra_action=False,
    ) -> RollPlan:
        """The plan of `by` rolling `case` in `turn` into `target` (a Post, None for a new
        one), answering `ask` (a RollAsk or None): the panel's line and the roll service
        both build it here, so they compare like with like."""
        return cls(
            roller_id=by.pk,
            case=case,
            turn_number=turn.number,
            post_id=target.pk if target else None,
            own_post=target is not None and target.author_id == by.pk,
            ask_id=ask.pk if ask else None,
            ask_post_id=ask.post_id if ask else None,
            differs=differs,
            secret=secret,
            extra_action=extra_action,
        )

    def digest(self) -> str:
        """What the form carries: equal digests, the same roll in the same place."""
        payload = {
            "roller": self.roller_id,
            "case": self.case.digest(),
            "turn": self.turn_number,
            "post": self.post_id,
            "ask": self.ask_id,
            "differs": self.differs,
            "secret": self.secret,
            "extra_action": self.extra_action,
        }
        return hashlib.sha256(canonical_json(payload)).hexdigest()

    @property
    def words(self) -> str:
        """ "Rzut na cechę: Lirael — Zręczność; odpowiedź na prośbę z wpisu #15 (inna niż
        prośba); nowy wpis na końcu dziennika (tura 3)"."""
        system = registry.system_for(self.case.system)
        kind = capfirst(system.mode_label(self.case.mode))
        if self.secret:
            kind = _("Secret roll (players see only its commitment): %(kind)s") % {"kind": kind}
        what = system.request_summary(self.case)
        who = self._who()
        head = f"{kind}: {who} — {what}" if who else f"{kind}: {what}"
        clauses = [head]
        if self.ask_id is not None:
            answer = _("answering the request in post #%(post)s") % {"post": self.ask_post_id}
            if self.differs:
                answer = _("%(answer)s (not what it asked)") % {"answer": answer}
            clauses.append(answer)
        if self.extra_action:
            clauses.append(_("a further action this turn, allowed with your reason"))
        clauses.append(self._where())
        return "; ".join(clauses)

    def _who(self) -> str:
        names = self.case.names
        who = names.get("a", "")
        if names.get("b"):
            who = _("%(a)s against %(b)s") % {"a": who, "b": names["b"]}
        if names.get("patient"):
            who = _("%(who)s, patient: %(patient)s") % {"who": who, "patient": names["patient"]}
        return who

    def _where(self) -> str:
        turn = {"turn": self.turn_number}
        if self.post_id is None:
            return _("a new post at the end of the diary (turn %(turn)s)") % turn
        if self.own_post:
            return _("into your post #%(post)s (turn %(turn)s)") % (turn | {"post": self.post_id})
        return _("into post #%(post)s (turn %(turn)s)") % (turn | {"post": self.post_id})


class PlanChanged(Exception):
    """The roll the server would make now is not the one the page described (a post was
    written meanwhile, a turn opened, the form changed after its line was drawn): nothing
    is rolled; `plan` is the roll as it would be now."""

    def __init__(self, plan: RollPlan):
        super().__init__(plan.digest())
        self.plan = plan
