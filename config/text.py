"""One-line text: the titles and names people type, and what is built from them where a
line break cannot go (an e-mail's subject).

A line break (CR, LF, NEL U+0085, U+2028, U+2029) or a tab inside a title is almost always
pasted from wrapped text, so a form quietly makes it one space; any other control character
(an escape, a bell) is refused with a message. Text stored before that rule, or built from
other fields, is flattened with `single_line` wherever one line is required.
"""

import re
import unicodedata

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

# Python's str.splitlines() breaks lines at these (and at the tab's kin, \v and \f).
_BREAKS = re.compile(r"[ \t]*[\r\n\t\v\f\x1c-\x1f\x85\u2028\u2029]+[ \t]*")


def _is_control(char: str) -> bool:
    return unicodedata.category(char) == "Cc"


def single_line(value: str) -> str:
    """The text on one line: each run of line breaks and tabs one space, other control
    characters dropped."""
    flat = _BREAKS.sub(" ", value)
    return "".join(char for char in flat if not _is_control(char)).strip()


def refuse_control_characters(value: str) -> None:
    if any(_is_control(char) for char in value):
        raise ValidationError(
            _("Control characters (an escape, a bell and the like) cannot be part of it."),
            code="control_character",
        )


class SingleLineCharField(forms.CharField):
    """A title or a name: line breaks and tabs become one space, control characters are
    refused."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(refuse_control_characters)

    def to_python(self, value):
        value = super().to_python(value)
        return _BREAKS.sub(" ", value).strip() if value else value
