"""Sign-up, log-in, log-out and password change, in Polish."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from tests.conftest import PASSWORD, polish

pytestmark = pytest.mark.django_db


def test_sign_up_logs_the_new_user_in(client):
    response = client.post(
        reverse("signup"),
        {
            "username": "nowa",
            "email": "",
            "password1": "Kostki-i-Mgła-77",
            "password2": "Kostki-i-Mgła-77",
        },
    )
    assert response.status_code == 302
    assert client.get(reverse("characters:list")).status_code == 200
    assert get_user_model().objects.filter(username="nowa").exists()


def test_sign_up_applies_password_validators_in_polish(client):
    response = client.post(
        reverse("signup"), {"username": "nowa", "password1": "123", "password2": "123"}
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert response.context["form"].errors["password2"]
    # Django's own validator messages, in Polish.
    assert polish("This password is entirely numeric.") in body
    assert not get_user_model().objects.filter(username="nowa").exists()


def test_log_in_and_out(client, make_user):
    user = make_user("gracz")
    response = client.post(reverse("login"), {"username": "gracz", "password": PASSWORD})
    assert response.status_code == 302
    assert int(client.session["_auth_user_id"]) == user.pk
    client.post(reverse("logout"))
    assert "_auth_user_id" not in client.session


def test_wrong_password_is_a_polish_error(client, make_user):
    make_user("gracz")
    response = client.post(reverse("login"), {"username": "gracz", "password": "zle"})
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert "_auth_user_id" not in client.session


def test_password_change(client_for, make_user):
    user = make_user()
    client = client_for(user)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "Nowe-Haslo-4242",
            "new_password2": "Nowe-Haslo-4242",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("Nowe-Haslo-4242")
