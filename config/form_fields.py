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


class DefaultNumberInput(forms.NumberInput):
    """A number field that starts empty, its default shown as the placeholder: a value
    typed into it is that value (a prefilled "0" turns a typed 25 into "025"). The default
    itself is shown as the placeholder too, when a form comes back with it."""

    def __init__(self, default: int, attrs=None):
        super().__init__(attrs)
        self.default = default
        self.attrs.setdefault("placeholder", str(default))

    def format_value(self, value):
        if value is None or str(value).strip() in ("", str(self.default)):
            return None
        return super().format_value(value)


class DefaultedIntegerField(forms.IntegerField):
    """A whole number a person types that has a default (a modifier's 0, a count's 1): left
    empty, it is the default. Every such field of the site is one of these, so none is
    prefilled."""

    def __init__(self, *, default: int = 0, **kwargs):
        kwargs.setdefault("widget", DefaultNumberInput(default))
        super().__init__(required=False, initial=default, **kwargs)
        self.default = default

    def set_default(self, default: int) -> None:
        """Another default, known only once the form is built (a session's setting)."""
        self.default = self.initial = self.widget.default = default
        self.widget.attrs["placeholder"] = str(default)

    def to_python(self, value):
        number = super().to_python(value)
        return self.default if number is None else number
