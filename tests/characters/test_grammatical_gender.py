"""A sheet's grammatical gender, which the owner sets (what the site writes with it:
tests/rolls/initiative/test_initiative_gender.py)."""

import html

import pytest
from django.urls import reverse

from characters.models import GrammaticalGender
from tests.characters.test_character_pages import sheet_post_data

pytestmark = pytest.mark.django_db


def test_the_owner_sets_the_grammatical_gender_on_the_sheet(make_user, make_character, client_for):
    owner = make_user()
    lirael = make_character(owner, "Lirael")
    assert lirael.grammatical_gender == GrammaticalGender.MASCULINE  # the default
    url = reverse("characters:edit", args=[lirael.pk])
    client = client_for(owner)
    page = html.unescape(client.get(url).content.decode())
    assert 'name="grammatical_gender"' in page and "żeński" in page
    response = client.post(url, sheet_post_data(name="Lirael", grammatical_gender="feminine"))
    assert response.status_code == 302
    lirael.refresh_from_db()
    assert lirael.grammatical_gender == GrammaticalGender.FEMININE


def test_an_unknown_grammatical_gender_is_refused_next_to_the_field(
    make_user, make_character, client_for
):
    owner = make_user()
    borys = make_character(owner, "Borys")
    url = reverse("characters:edit", args=[borys.pk])
    response = client_for(owner).post(url, sheet_post_data(name="X", grammatical_gender="robot"))
    assert response.status_code == 400
    assert "Wybierz jeden z podanych rodzajów gramatycznych." in response.content.decode()
    borys.refresh_from_db()
    assert borys.name == "Borys"
