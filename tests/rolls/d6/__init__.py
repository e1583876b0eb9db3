"""A fifth rule system that exists only in the tests: a plain d6 against a target. It is a
package like the site's own (rolls/systems/<name>/) — its engine, its one mode's form, its
words — and nothing else of the site knows it: registering it is enough for the panel, a
player's request, the GM's answer and the ledger to play it (tests/rolls/test_fake_system.py).
"""

from django import forms

from rolls.plugins import (
    Case,
    CaseDie,
    CaseLine,
    CasePreview,
    Mode,
    RollSystem,
    SheetCaseForm,
    character_label,
)
from tests.rolls.d6 import engine

ASK_FIELDS = ("character",)


class TargetForm(SheetCaseForm):
    character = forms.TypedChoiceField(label="Postać", coerce=int)
    target = forms.IntegerField(label="Cel (k6)", min_value=1, max_value=6, initial=4)

    def __init__(self, data=None, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["character"].choices = [
            (c.pk, character_label(c)) for c in self.context.characters
        ]

    def case(self) -> Case:
        character = self.characters[self.cleaned_data["character"]]
        return Case(
            system=engine.SYSTEM,
            mode="d6",
            test="d6",
            input={"target": self.cleaned_data["target"]},
            people={"a": character.pk},
            names={"a": character.name},
            what=f"k6 ≥ {self.cleaned_data['target']}",
            request_fields=self.request_fields(ASK_FIELDS),
        )


def make_form(mode, data, context):
    return TargetForm(data, context=context, ask_fields=ASK_FIELDS)


def preview(case: Case) -> CasePreview:
    return CasePreview(case.probability(), terms=[f"sukces przy {case.input['target']}+"])


def lines(record: dict) -> list[CaseLine]:
    result = record["result"]
    return [
        CaseLine(
            who=record["characters"]["a"]["name"],
            what=record["what"],
            outcome="Sukces" if result["success"] else "Porażka",
            success=result["success"],
            details=[f"k6: {result['face']}"],
            dice=[CaseDie(result["face"])],
        )
    ]


D6 = RollSystem(
    name=engine.SYSTEM,
    engine=engine,
    modes=(Mode("d6", "Rzut k6"),),
    form=make_form,
    preview=preview,
    lines=lines,
    ask_fields=ASK_FIELDS,
)
