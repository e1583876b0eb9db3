"""The 503 page for a database that cannot be reached (config.views.server_error), fast and on
both databases: the error is a real one, from connecting to a closed port. The whole outage,
under the production server with PostgreSQL stopped and started, is
tests/load/test_database_outage.py."""

import pytest
from django.db import OperationalError, connections
from django.test import RequestFactory

from config.views import DATABASE_RETRY_AFTER_SECONDS, server_error
from tests.serving import free_port


@pytest.fixture
def unreachable(django_db_blocker) -> OperationalError:
    """The error Django raises for a database nobody answers for (no test database is
    touched: pytest-django only guards against one by accident)."""
    with django_db_blocker.unblock():
        return _connect_to_a_closed_port()


def _connect_to_a_closed_port() -> OperationalError:
    settings = dict(connections["default"].settings_dict)
    settings.update(
        ENGINE="django.db.backends.postgresql",
        NAME="codziennik",
        USER="postgres",
        HOST="127.0.0.1",
        PORT=str(free_port()),  # nothing listens there
        OPTIONS={"connect_timeout": 2},
    )
    from django.db.backends.postgresql.base import DatabaseWrapper

    wrapper = DatabaseWrapper(settings, alias="unreachable")
    try:
        wrapper.ensure_connection()
    except OperationalError as error:
        return error
    raise AssertionError("a closed port answered")


def handled(request, error: BaseException):
    """server_error as Django calls it: inside the handler of the request's error."""
    try:
        raise error
    except BaseException:
        return server_error(request)


def session_load_failure(error: OperationalError):
    """What the session store raises: the database's error, while handling the store's
    missing `_session_cache` (django.contrib.sessions.backends.base._get_session)."""
    try:
        try:
            raise AttributeError("'SessionStore' object has no attribute '_session_cache'")
        except AttributeError:
            raise error  # noqa: B904  (the store does not chain it either)
    except OperationalError as raised:
        return raised


def test_an_unreachable_database_answers_the_polish_503_page(unreachable):
    request = RequestFactory().get("/sessions/")
    response = handled(request, session_load_failure(unreachable))
    body = response.content.decode()
    assert response.status_code == 503
    assert response["Retry-After"] == str(DATABASE_RETRY_AFTER_SECONDS)
    assert response["Cache-Control"] == "no-store"
    assert '<html lang="pl">' in body
    assert "Baza danych jest chwilowo niedostępna" in body
    assert f"Spróbuj ponownie za chwilę: za około {DATABASE_RETRY_AFTER_SECONDS} sekund." in body
    assert 'class="site-header"' in body and "/static/css/site.css" in body


def test_the_english_choice_is_kept(unreachable):
    request = RequestFactory().get("/", HTTP_COOKIE="django_language=en")
    body = handled(request, unreachable).content.decode()
    assert '<html lang="en">' in body
    assert "The database is unavailable for a moment" in body


@pytest.mark.parametrize("error", [ValueError("a bug"), AttributeError("another bug")])
def test_any_other_error_keeps_the_500_page(error):
    response = handled(RequestFactory().get("/"), error)
    assert response.status_code == 500
    assert "Błąd serwera" in response.content.decode()
    assert not response.has_header("Retry-After")
