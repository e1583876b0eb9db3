"""What every case system's mode form shares (rolls/panel_q10.py, panel_ciernie.py,
panel_arsmagica.py): the characters it may roll for, whether the GM types modifiers, and the
chosen character read before validation, so the sheet's own choices can fill the form."""

from __future__ import annotations

from django import forms

from characters.models import Character
from rolls.cases import Case


class SheetCaseForm(forms.Form):
    def __init__(
        self,
        data=None,
        *,
        characters: list[Character],
        gm: bool,
        all_characters: list[Character] | None = None,
        session=None,
        prefix: str | None = None,
        **kwargs,
    ):
        super().__init__(data, prefix=prefix, **kwargs)
        self.characters = {c.pk: c for c in characters}
        # The other side of a comparative test may be anyone playing (a stand-in included).
        self.all_characters = list(all_characters if all_characters is not None else characters)
        self.gm = gm
        self.session = session
        self._case: Case | None = None

    def _raw(self, name: str):
        """A field's value as sent (or its initial value), before validation."""
        value = self.data.get(self.add_prefix(name)) if self.is_bound else self.initial.get(name)
        if value in (None, "") and name in self.fields:
            return self.fields[name].initial
        return value

    def selected_character(self) -> Character | None:
        try:
            return self.characters.get(int(self._raw("character")))
        except (TypeError, ValueError):
            return next(iter(self.characters.values()), None)
