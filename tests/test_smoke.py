"""The site answers, and answers in Polish: the browser's language does not switch it.

docs/decisions.md, "Language": Polish is the default, English the second language, chosen
with the header's switch (config/middleware.py: many Polish players browse with an English
browser). Django's own LocaleMiddleware would follow Accept-Language; these tests fail
with it.
"""

import pytest
from django.conf import settings
from django.urls import reverse

from tests.conftest import polish

pytestmark = pytest.mark.django_db

ENGLISH_BROWSER = "en-US,en;q=0.9"


def _page(client, **headers):
    response = client.get(reverse("login"), headers=headers)
    assert response.status_code == 200
    return response, response.content.decode()


def test_an_english_browser_gets_the_polish_page(client):
    response, body = _page(client, accept_language=ENGLISH_BROWSER)
    assert '<html lang="pl">' in body
    assert polish("Log in") in body
    assert "Log in" not in body
    assert response.headers["Content-Language"] == "pl"


def test_the_header_switch_gives_english_whatever_the_browser_says(client):
    client.post(reverse("set_language"), {"language": "en", "next": "/"})
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    response, body = _page(client, accept_language="pl-PL,pl;q=0.9")
    assert '<html lang="en">' in body
    assert "Log in" in body
    assert response.headers["Content-Language"] == "en"


@pytest.mark.parametrize("cookie", ["de", "", "en-GB", "xx"])
def test_an_unsupported_language_cookie_falls_back_to_polish(client, cookie):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = cookie
    _response, body = _page(client, accept_language=ENGLISH_BROWSER)
    assert '<html lang="pl">' in body
