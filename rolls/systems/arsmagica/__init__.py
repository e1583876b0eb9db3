"""Ars Magica (RULES 4, seed 003): Cecha + Umiejętność + a simple or stress die against an
ease factor, with botch dice."""

from rolls import registry
from rolls.engine import arsmagica as engine
from rolls.plugins import Mode, RollSystem
from rolls.systems.arsmagica import display, forms

SYSTEM = registry.register(
    RollSystem(
        name=engine.SYSTEM,
        engine=engine,
        modes=tuple(Mode(key, label) for key, label in forms.MODES),
        form=forms.make_form,
        preview=display.preview,
        lines=display.lines,
        ask_fields=forms.ASK_FIELDS,
        named_test=forms.named_test,
        summary=display.summary,
        form_template="rolls/systems/arsmagica/form.html",
    )
)
