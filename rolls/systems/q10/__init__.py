"""Q10 (RULES 2, seed 001): a pool XzY — roll X tens, keep the Y highest — against a
difficulty, with raises declared before the roll."""

from django.utils.translation import gettext_lazy

from rolls import registry
from rolls.engine import q10 as engine
from rolls.plugins import Mode, RollSystem
from rolls.systems.q10 import display, forms

SYSTEM = registry.register(
    RollSystem(
        name=engine.SYSTEM,
        engine=engine,
        modes=(Mode(forms.MODE, gettext_lazy("Pool (XzY)")),),
        form=forms.make_form,
        preview=display.preview,
        lines=display.lines,
        ask_fields=forms.ASK_FIELDS,
        named_test=forms.named_test,
        proposed_fields=forms.PROPOSED_FIELDS,
        summary=display.summary,
        form_template="rolls/systems/q10/form.html",
    )
)
