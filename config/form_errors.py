"""A service's refusal shown on the form that asked for it, for every app's views.

Services raise Django's ValidationError (keyed by field when it names one); views
show it where the user typed, like any other form error.
"""

from django import forms
from django.core.exceptions import ValidationError


def apply_service_errors(form: forms.Form, error: ValidationError) -> None:
    """A service's ValidationError, shown on the form: next to its field when it names one."""
    if hasattr(error, "error_dict"):
        for field, errors in error.error_dict.items():
            form.add_error(field if field in form.fields else None, errors)
    else:
        form.add_error(None, error)
