"""Titles and names are one line: a line break (pasted from wrapped text) becomes a space,
another control character is refused next to the field. They end up in e-mail subjects,
where a line break cannot go."""

import pytest

from characters.forms import CharacterForm
from diary.forms import InviteForm, SessionForm
from diary.npcs.forms import NpcForm
from diary.talk.forms import WhisperForm
from tests.conftest import polish

pytestmark = pytest.mark.django_db

BROKEN = "Zamek \r\nw górach\u2028nocą\x85\tzimą"
FLAT = "Zamek w górach nocą zimą"
REFUSAL = "Control characters (an escape, a bell and the like) cannot be part of it."


def forms_with_a_name(table):
    """(form class, how to make it, the field) for every form that names a session, a
    character or an NPC."""
    return [
        (lambda data: SessionForm(data), "title"),
        (lambda data: CharacterForm(data, system="forum1000"), "name"),
        (lambda data: NpcForm(data), "name"),
        (lambda data: InviteForm(data, session=table.session), "name"),
        (lambda data: WhisperForm(data, recipients=[table.alice]), "subject"),
    ]


def test_line_breaks_in_a_title_or_name_become_one_space(table):
    for make, field in forms_with_a_name(table):
        form = make({field: BROKEN})
        form.is_valid()
        assert field not in form.errors, (make, form.errors.get(field))
        assert form.cleaned_data[field] == FLAT, make


@pytest.mark.parametrize("control", ["\x1b[31m", "\x07", "\x7f", "\x9b"])
def test_other_control_characters_are_refused_next_to_the_field(table, control):
    for make, field in forms_with_a_name(table):
        form = make({field: f"Zamek{control}nocą"})
        assert not form.is_valid()
        assert polish(REFUSAL) in form.errors[field], (make, form.errors.get(field))


def test_an_ordinary_title_is_kept_as_typed(table):
    for make, field in forms_with_a_name(table):
        form = make({field: "Łowcy  w „Zamku” — część 2"})
        form.is_valid()
        assert form.cleaned_data[field] == "Łowcy  w „Zamku” — część 2", make
