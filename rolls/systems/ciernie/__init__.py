"""Ciernie i Gwiazdy (RULES 3, seed 002): a d20 under a threshold — attribute, combined,
comparative, effect and skill tests, with the difficulty picker and the reroll."""

from rolls import registry
from rolls.engine import ciernie as engine
from rolls.plugins import Mode, RollSystem
from rolls.systems.ciernie import display, forms, rerolls

SYSTEM = registry.register(
    RollSystem(
        name=engine.SYSTEM,
        engine=engine,
        modes=tuple(
            Mode(key, label, gm_only=key in forms.GM_ONLY_MODES) for key, label in forms.MODES
        ),
        form=forms.make_form,
        preview=display.preview,
        lines=display.lines,
        ask_fields=forms.ASK_FIELDS,
        named_test=forms.named_test,
        summary=display.summary,
        reroll_form=rerolls.make_reroll_form,
    )
)
