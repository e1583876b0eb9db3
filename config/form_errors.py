"""Forms and their refusals, for every app's views: the data a form is bound to, and a
service's refusal shown on the form that asked for it.

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


def posted(request):
    """A form's data: what a POST sent (an empty POST too, so its required fields say so
    next to them), or None on a GET."""
    return request.POST if request.method == "POST" else None
