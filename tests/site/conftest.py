"""Fixtures of the site-wide tests."""

import pytest

from tests.conftest import new_character, new_session, new_user, rows_for_the_module


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The access matrix's World (one running session and everything its URLs point at),
    built once for a module's tests; each test's changes are rolled back after it."""
    from tests.site.test_access_matrix import World

    with rows_for_the_module(
        django_db_blocker, lambda: World(new_user, new_character, new_session)
    ) as built:
        yield built
