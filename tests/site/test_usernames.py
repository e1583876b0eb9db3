"""Look-alike user names are refused at sign-up (issue 7, finding 13)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.conftest import polish

pytestmark = pytest.mark.django_db

PASSWORD = "Kostki-i-Mgła-77"
MIXED = (
    "Letters from different alphabets that look alike cannot be mixed in a name. Use one alphabet."
)
LOOK_ALIKE = "This name is taken or looks too much like another user's name."


def sign_up(client, username):
    return client.post(
        reverse("signup"),
        {"username": username, "email": "", "password1": PASSWORD, "password2": PASSWORD},
    )


@pytest.mark.parametrize(
    ("existing", "look_alike"),
    [
        ("gm", "gm\N{CYRILLIC CAPITAL LETTER A}"),  # gmА: Latin with a Cyrillic А
        ("moderator", "m\N{CYRILLIC SMALL LETTER O}derator"),  # mоderator
        ("admin", "adm\N{CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I}n"),  # admіn
    ],
)
def test_mixed_script_look_alikes_are_refused(client, make_user, existing, look_alike):
    make_user(existing)
    response = sign_up(client, look_alike)
    assert response.status_code == 200
    errors = response.context["form"].errors["username"]
    assert errors
    assert polish(MIXED) in errors[0]
    assert errors[0] in response.content.decode()
    assert not get_user_model().objects.filter(username=look_alike).exists()


@pytest.mark.parametrize(
    ("existing", "look_alike"),
    [
        ("gm", "GM"),
        ("Moderator", "moderator"),
        # Wholly Cyrillic "сор", so not mixed-script, yet it reads as the Latin "cop".
        (
            "cop",
            "\N{CYRILLIC SMALL LETTER ES}\N{CYRILLIC SMALL LETTER O}\N{CYRILLIC SMALL LETTER ER}",
        ),
        ("straße", "STRASSE"),
    ],
)
def test_names_that_fold_to_an_existing_one_are_refused(client, make_user, existing, look_alike):
    make_user(existing)
    response = sign_up(client, look_alike)
    assert response.status_code == 200
    errors = response.context["form"].errors["username"]
    assert polish(LOOK_ALIKE) in errors[0]
    assert errors[0] in response.content.decode()
    assert not get_user_model().objects.filter(username=look_alike).exists()


@pytest.mark.parametrize("username", ["Łucja", "żółw", "Gżegżółka_2", "Łucja.Nowak"])
def test_polish_names_with_diacritics_sign_up(client, make_user, username):
    make_user("gm")
    make_user("lucja")  # "Łucja" is a different name, not a look-alike
    response = sign_up(client, username)
    assert response.status_code == 302, response.context["form"].errors
    assert get_user_model().objects.filter(username=username).exists()
