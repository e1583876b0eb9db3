"""Shared fixtures: users, forum1000 characters from the seeded catalog, running sessions.

Everything is made through the same services the pages use, so a fixture
never builds a state the site itself could not reach.
"""

import importlib
import io
import itertools
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db import transaction
from django.test import Client

from characters import services as character_services
from characters.models import Attribute, Skill, Trait
from characters.systems import RuleSystem
from config.roles import MODERATOR_GROUP
from diary import services as diary_services
from diary.models import SessionStatus
from rolls.ledger import fair_dice

PASSWORD = "Sekretne-Haslo-1000"

# The q10 table (a running q10 session) for the case path's tests.
pytest_plugins = ["tests.rolls.systems.q10.q10_table", "tests.smtp", "tests.chat_server"]


def pytest_configure(config):
    from django.conf import settings

    # Real password hashing costs ~0.3 s a user; tests make hundreds of users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # The test database gets the ledger's flush permit (rolls/ledger/triggers.py); nothing
    # else does.
    settings.ROLL_LEDGER_TEST_FLUSH = True
    # Tests post and sign up far faster than people; tests/site/test_rate_limits.py
    # puts the real limits back to prove them.
    settings.RATE_LIMITS = dict.fromkeys(settings.RATE_LIMITS, "100000/m")
    # Tests run without `collectstatic`: plain static names, no manifest to look up
    # (tests/browser/test_production.py checks the production storage end to end).
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    settings.WHITENOISE_AUTOREFRESH = True
    # The suite signs rolls with a key of its own, never one in var/ (rolls/ledger/signing.py).
    import tempfile
    from pathlib import Path

    settings.LEDGER_SIGNING_KEY_FILE = Path(tempfile.mkdtemp()) / "ledger-signing-key.pem"
    # Uploads (portraits) never land in the repo's var/media; `media_root` gives a
    # test a directory of its own to look into.
    settings.MEDIA_ROOT = Path(tempfile.mkdtemp()) / "media"


_names = itertools.count(1)

DEFAULT_ATTRIBUTES = {
    "Percepcja": 600,
    "Zręczność": 500,
    "Szybkość": 640,
    "Siła": 450,
    "Siła Woli": 520,
    "Charyzma": 700,
    "Inteligencja": 550,
    "Mądrość": 600,
}


@pytest.fixture(autouse=True)
def _polish_by_default(settings):
    """Pages are Polish first; a test that wants English asks for it."""
    settings.LANGUAGE_CODE = "pl"


@pytest.fixture(autouse=True)
def _dice_seeds_only_where_marked(request):
    """Turns commit dice seeds as they open (rolls.ledger.fair_dice), which adds two chain entries
    to every turn. Tests marked `fair_dice` play that way, as the site does; the others play
    sessions as they were before it did (turns without a seed roll the server's dice, as
    turns opened before the upgrade do), so that their roll numbers stay the rolls' own."""
    if request.node.get_closest_marker("fair_dice"):
        yield
        return
    with fair_dice.turns_open_unseeded():
        yield


@pytest.fixture(autouse=True)
def _empty_diary_cache():
    """The diary's per-process cache (diary/live/page_cache.py) starts empty in every test: ids
    and markers come back after a test's rollback, and a test must see its own misses."""
    from diary.live import page_cache

    page_cache.clear()


@pytest.fixture(autouse=True)
def _reseed_after_flush(request):
    """Transactional tests start from a flushed database: put the seeded catalog back."""
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or any(
        name in request.fixturenames for name in ("transactional_db", "live_server")
    )
    if not transactional:
        return
    request.getfixturevalue("transactional_db")
    from django.apps import apps

    migration = importlib.import_module("characters.migrations.0002_forum1000_catalog")
    migration.seed(apps, None)
    horse = importlib.import_module("characters.migrations.0007_item_is_mount")
    horse.add_the_horse(apps, None)
    systems = importlib.import_module("characters.migrations.0010_q10_ciernie_arsmagica_catalogs")
    systems.seed(apps, None)


@contextmanager
def rows_for_the_module(django_db_blocker, build):
    """What `build()` writes, once for a module's tests, in a transaction rolled back after
    the module: each test runs in a savepoint of it (pytest-django's own), rolled back
    after the test. Built as every test not marked fair_dice plays
    (_dice_seeds_only_where_marked). Yields what `build()` returned."""
    with django_db_blocker.unblock(), transaction.atomic():
        with fair_dice.turns_open_unseeded():
            built = build()
        yield built
        transaction.set_rollback(True)


@pytest.fixture(scope="module")
def demo_once(django_db_setup, django_db_blocker):
    """The demo, seeded once for a module's tests (`usefixtures("demo_once")` on every test
    of the module: each runs in a savepoint of it, rolled back after it), instead of once a
    test. A test that seeds the demo its own way (fair dice, a media root of its own) lives
    in another module."""
    with rows_for_the_module(
        django_db_blocker, lambda: call_command("seed_demo", stdout=io.StringIO())
    ):
        yield


def new_user(username: str | None = None, *, moderator: bool = False):
    username = username or f"user{next(_names)}"
    user = get_user_model().objects.create_user(username=username, password=PASSWORD)
    if moderator:
        Group.objects.get(name=MODERATOR_GROUP).user_set.add(user)
    return user


@pytest.fixture
def make_user(db):
    return new_user


def new_character(
    owner,
    name: str | None = None,
    *,
    attributes=None,
    skills=None,
    traits=(),
    hp=(80, 100),
    gender="masculine",
):
    system = RuleSystem.FORUM1000
    catalog = {a.name: a for a in Attribute.objects.filter(system=system)}
    skill_rows = {s.name: s for s in Skill.objects.filter(system=system)}
    values = {**DEFAULT_ATTRIBUTES, **(attributes or {})}
    return character_services.character_create(
        owner=owner,
        system=system,
        values={
            "name": name or f"Postać {next(_names)}",
            "description": "",
            "grammatical_gender": gender,
            "hp_current": hp[0],
            "hp_max": hp[1],
            "attributes": {catalog[k]: v for k, v in values.items()},
            "skills": {skill_rows[k]: v for k, v in (skills or {}).items()},
            "traits": list(Trait.objects.filter(system=system, name__in=traits)),
            "items": {},
        },
    )


@pytest.fixture
def make_character(db):
    return new_character


def new_session(gm, characters=(), *, status=SessionStatus.RUNNING, **settings):
    session = diary_services.session_create(
        gm=gm,
        title=settings.pop("title", f"Sesja {next(_names)}"),
        description="",
        system=RuleSystem.FORUM1000,
        criticals_enabled=settings.pop("criticals_enabled", True),
        npc_mode=settings.pop("npc_mode", "fixed_modifiers"),
        roll_policy=settings.pop("roll_policy", "gm_only"),
        # Open, so that players may ask to join as they always could; recruitment's
        # own tests close it.
        recruiting=settings.pop("recruiting", True),
        # A place for every character seated here.
        player_slots=settings.pop("player_slots", max(4, len(characters))),
    )
    for character in characters:
        participation = diary_services.participation_invite(
            session=session, by=gm, character=character
        )
        diary_services.participation_decide(
            participation=participation, by=character.owner, accept=True
        )
    path = [SessionStatus.PLAN_SUBMITTED, SessionStatus.ACCEPTED, SessionStatus.RUNNING]
    moderator = None
    for step in path[: path.index(status) + 1] if status in path else []:
        if step == SessionStatus.ACCEPTED:
            moderator = moderator or new_user(moderator=True)
        by = moderator if step == SessionStatus.ACCEPTED else gm
        session = diary_services.session_transition(session=session, by=by, to=step)
    return session


@pytest.fixture
def make_session(db):
    return new_session


@pytest.fixture
def table(make_user, make_character, make_session):
    """A running session: its GM, two players with a character each, a moderator, an outsider."""
    gm = make_user("mg")
    alice, bob = make_user("alicja"), make_user("bartek")
    lirael = make_character(
        alice, "Lirael", skills={"Uwodzenie": 1}, traits=["Seksapil"], gender="feminine"
    )
    borys = make_character(bob, "Borys", skills={"Otwieranie zamków": 3}, traits=["Precyzyjny"])
    session = make_session(gm, [lirael, borys])

    class Table:
        pass

    t = Table()
    t.gm, t.alice, t.bob = gm, alice, bob
    t.lirael, t.borys, t.session = lirael, borys, session
    t.moderator = make_user("moderator", moderator=True)
    t.outsider = make_user("obcy")
    return t


@pytest.fixture
def media_root(settings, tmp_path):
    """A MEDIA_ROOT of this test's own (for portraits): the files it stored, no other."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def client_for():
    def make(user) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return make


def polish_as(gender: str, msgid: str, **params) -> str:
    """The Polish form of a message about a character of this grammatical gender."""
    from django.utils import translation

    with translation.override("pl"):
        text = translation.pgettext(gender, msgid)
    assert text != msgid, f"no Polish {gender} form of {msgid!r}"
    return text % params if params else text


def polish(msgid: str, **params) -> str:
    """The Polish text of a UI message; fails if the catalogue leaves it in English."""
    from django.utils import translation

    with translation.override("pl"):
        text = translation.gettext(msgid)
    assert text != msgid, f"no Polish translation for {msgid!r}"
    return text % params if params else text


# Left out of the SQLite run: the tests that need PostgreSQL's concurrent transactions, and
# the load test (tests/load), which brings its own PostgreSQL and needs running only once.
POSTGRES_RUN_ONLY = ("postgres_only", "load")

# The browser walks run on PostgreSQL, the production database, and leave SQLite out: every
# URL they use is also requested on SQLite by the access matrix and the form fuzzing
# (tests/site/), and what Chromium does with a page does not change with the database. Those
# marked every_database (the demo's walk and the diary's live update, as `make run` serves
# them on SQLite) run on both.
BROWSER_FOLDER = "tests/browser/"

# A test without any of these (and without the django_db marker) cannot reach the test
# database: pytest-django refuses it any query.
DATABASE_FIXTURES = frozenset(
    {
        "db",
        "transactional_db",
        "django_db_reset_sequences",
        "django_db_serialized_rollback",
        "live_server",
    }
)
# Folders whose tests meet the database in other ways even without those: settings read per
# backend, subprocesses and servers given DATABASE_URL, the browser's live server.
EVERY_DATABASE_FOLDERS = ("tests/site/", "tests/browser/", "tests/load/")


def pytest_addoption(parser):
    parser.addoption(
        "--without-database-free",
        action="store_true",
        help="leave out (deselect) the tests that touch no database (the rules engine, the "
        "conformance vectors, ...): scripts/test gives it to its PostgreSQL pass, since the "
        "SQLite pass runs them and their outcome does not depend on the database",
    )


def touches_no_database(item) -> bool:
    """True for a test that has no way to the database: no django_db marker, no database
    fixture, and not in a folder whose tests reach it otherwise (EVERY_DATABASE_FOLDERS)."""
    if item.get_closest_marker("django_db"):
        return False
    if DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
        return False
    path = item.path.relative_to(item.config.rootpath).as_posix()
    return not path.startswith(EVERY_DATABASE_FOLDERS)


def browser_walk(item) -> bool:
    return item.path.relative_to(item.config.rootpath).as_posix().startswith(BROWSER_FOLDER)


def pytest_collection_modifyitems(config, items):
    """On SQLite, leave out the tests marked POSTGRES_RUN_ONLY and the browser walks not
    marked every_database; with --without-database-free,
    leave out the tests that touch no database.

    They are deselected (not skipped): the same suite's other run always has them.
    """
    from django.db import connection

    def left_out(item) -> bool:
        if connection.vendor != "postgresql" and (
            any(item.get_closest_marker(name) for name in POSTGRES_RUN_ONLY)
            or (browser_walk(item) and not item.get_closest_marker("every_database"))
        ):
            return True
        return config.getoption("without_database_free") and touches_no_database(item)

    kept = [item for item in items if not left_out(item)]
    if len(kept) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if left_out(item)])
        items[:] = kept


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """The test database, and before it is dropped, the live poll's listener (its connection
    would hold the database open; diary/live/listener.py)."""
    yield
    from diary.live.listener import markers

    markers.stop()
