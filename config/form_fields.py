"""Form fields every app's forms share."""

from django import forms
from django.core.exceptions import ValidationError


class ModelIdsField(forms.ModelMultipleChoiceField):
    """Rows chosen by id (checkboxes). An id beyond 64 bits is refused like any unknown id
    before the query: SQLite cannot even compare one in `pk IN (...)` (Django would raise
    OverflowError, a 500)."""

    def _check_values(self, value):
        for pk in value:
            try:
                number = int(str(pk))
            except ValueError:
                continue  # not a number: the parent refuses it
            if not -(2**63) <= number < 2**63:
                raise ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": pk},
                )
        return super()._check_values(value)
