"""Look-alike user names are refused at sign-up."""

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


@pytest.mark.parametrize(
    "look_alike",
    [
        "pIayerA",  # a capital I for the l
        "p1ayerA",  # a one for the l
        "player_A",  # separators do not tell names apart
        "play.er-A",
        "PLAYERA",
    ],
)
def test_latin_look_alikes_of_an_existing_name_are_refused(client, make_user, look_alike):
    make_user("playerA")
    response = sign_up(client, look_alike)
    assert response.status_code == 200
    errors = response.context["form"].errors["username"]
    assert polish(LOOK_ALIKE) in errors[0]
    assert errors[0] in response.content.decode()
    assert not get_user_model().objects.filter(username=look_alike).exists()


@pytest.mark.parametrize(
    ("existing", "look_alike"),
    [("r0bert", "Robert"), ("modern", "modem"), ("ola_1", "OLAl")],
)
def test_digits_and_letter_pairs_that_pass_for_letters_are_refused(
    client, make_user, existing, look_alike
):
    make_user(existing)
    response = sign_up(client, look_alike)
    assert polish(LOOK_ALIKE) in response.context["form"].errors["username"][0]
    assert not get_user_model().objects.filter(username=look_alike).exists()


@pytest.mark.parametrize("username", ["playerB", "player2", "payer", "layerA", "gracz_a"])
def test_names_that_differ_to_the_eye_still_sign_up(client, make_user, username):
    make_user("playerA")
    make_user("gracz")
    response = sign_up(client, username)
    assert response.status_code == 302, response.context["form"].errors
    assert get_user_model().objects.filter(username=username).exists()


def test_the_demo_users_are_no_look_alikes_of_each_other():
    from config.usernames import skeleton
    from demo.users import DEMO_USERS

    skeletons = [skeleton(name) for name in DEMO_USERS]
    assert len(set(skeletons)) == len(skeletons), skeletons


@pytest.mark.parametrize("username", ["Łucja", "żółw", "Gżegżółka_2", "Łucja.Nowak"])
def test_polish_names_with_diacritics_sign_up(client, make_user, username):
    make_user("gm")
    make_user("lucja")  # "Łucja" is a different name, not a look-alike
    response = sign_up(client, username)
    assert response.status_code == 302, response.context["form"].errors
    assert get_user_model().objects.filter(username=username).exists()


# --- The admin's user forms run the same check -----------------------------------------------


@pytest.fixture
def admin(client):
    superuser = get_user_model().objects.create_superuser("szef", password="x-Sekret-1000")
    client.force_login(superuser)
    return client


def admin_add(admin, username):
    return admin.post(
        reverse("admin:auth_user_add"),
        {
            "username": username,
            "password1": PASSWORD,
            "password2": PASSWORD,
            "usable_password": "true",
        },
    )


def admin_change(admin, user, username):
    return admin.post(
        reverse("admin:auth_user_change", args=[user.pk]),
        {
            "username": username,
            "first_name": "",
            "last_name": "",
            "email": "",
            "is_active": "on",
            "date_joined_0": "2026-01-01",
            "date_joined_1": "12:00:00",
        },
    )


@pytest.mark.parametrize(
    ("look_alike", "message"),
    [("gm\N{CYRILLIC CAPITAL LETTER A}", MIXED), ("GM", LOOK_ALIKE)],
)
def test_the_admin_cannot_add_a_look_alike(admin, make_user, look_alike, message):
    make_user("gm")
    response = admin_add(admin, look_alike)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["username"]
    assert polish(message) in errors[0]
    assert errors[0] in response.content.decode()
    assert not get_user_model().objects.filter(username=look_alike).exists()
    # A name unlike any other is still added.
    assert admin_add(admin, "nowy_gracz").status_code == 302
    assert get_user_model().objects.filter(username="nowy_gracz").exists()


def test_the_admin_cannot_rename_a_user_to_a_look_alike(admin, make_user):
    make_user("gm")
    player = make_user("gracz")
    look_alike = "gm\N{CYRILLIC CAPITAL LETTER A}"
    response = admin_change(admin, player, look_alike)
    assert response.status_code == 200
    assert polish(MIXED) in response.context["adminform"].form.errors["username"][0]
    response = admin_change(admin, player, "Gm")
    assert polish(LOOK_ALIKE) in response.context["adminform"].form.errors["username"][0]
    player.refresh_from_db()
    assert player.username == "gracz"
    # A user's own name is not a look-alike of itself: a change of case, or any other edit, saves.
    assert admin_change(admin, player, "Gracz").status_code == 302
    player.refresh_from_db()
    assert player.username == "Gracz"
