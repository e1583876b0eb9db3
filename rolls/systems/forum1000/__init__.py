"""forum1000 (RULES 1, seed 000): the game's own d1000 system — attribute, combined, opposed,
skill, healing and initiative rolls under a threshold built from the sheet."""

from django.utils.translation import gettext_lazy

from rolls import registry
from rolls.engine import forum1000 as engine
from rolls.plugins import Mode, RollSystem
from rolls.systems.forum1000 import audit, cases, display, forms, messages

SYSTEM = registry.register(
    RollSystem(
        name=engine.SYSTEM,
        engine=engine,
        modes=(
            Mode("attribute", gettext_lazy("single attribute"), tab="attributes"),
            Mode("combined", gettext_lazy("combined"), tab="attributes"),
            # Involve another's character, or the GM's choice of which effect goes (RULES 1.6).
            Mode("opposed", gettext_lazy("opposed"), tab="attributes", gm_only=True),
            Mode("skill", gettext_lazy("skill"), tab="skills"),
            Mode("healing", gettext_lazy("healing"), tab="skills", gm_only=True),
            Mode("initiative", gettext_lazy("initiative"), tab="initiative", gm_only=True),
        ),
        tab_labels={
            "attributes": gettext_lazy("Attributes"),
            "skills": gettext_lazy("Skills"),
            "initiative": gettext_lazy("Initiative"),
        },
        form=forms.make_form,
        preview=display.preview,
        lines=display.lines,
        ask_fields=forms.ASK_FIELDS,
        link_fields=forms.LINK_FIELDS,
        named_test=forms.named_test,
        summary=cases.summary,
        error_message=messages.error_message,
        form_template="rolls/systems/forum1000/form.html",
        preview_template="rolls/systems/forum1000/preview.html",
        lines_template="rolls/systems/forum1000/lines.html",
        legend_template="rolls/systems/forum1000/legend.html",
        legend=display.LEGEND,
        kind_labels=display.KINDS,
        audit=audit.character_stats,
        audit_template="rolls/systems/forum1000/audit.html",
        refuses_extra_action_rolls=True,
        criticals_setting=True,
        actions_per_turn=engine.MOVE_ACTIONS_PER_TURN,
    )
)
