"""The roll forms' catalogs, cached per process under the catalogs' version token
(characters.selectors.system_catalog): database triggers draw a new token on every write of
the attributes or skills, whoever writes, so the very next panel sees the edit; a rolled-back
edit takes its token back and the old catalog is served; without a token row nothing is
cached."""

import uuid

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters.models import Attribute, CatalogVersion, Skill
from characters.selectors import system_catalog
from tests.rolls.systems.arsmagica.ars_table import build_saga
from tests.rolls.systems.ciernie.ciernie_table import build_ciernie_table
from tests.rolls.systems.q10.q10_table import build_q10_table

pytestmark = pytest.mark.django_db

SYSTEM = "forum1000"


def token() -> str | None:
    return CatalogVersion.objects.filter(pk=1).values_list("token", flat=True).first()


def skill_panel(client, table):
    """The GM's skill panel for Lirael: its page, and the statements that drew it."""
    url = reverse("rolls:panel", args=[table.session.pk])
    data = {"token": str(uuid.uuid4()), "mode": "skill", "a-character": table.lirael.pk}
    with CaptureQueriesContext(connection) as queries:
        page = client.get(url, data)
    assert page.status_code == 200
    return page.content.decode(), [q["sql"] for q in queries.captured_queries]


def catalog_reads(sqls) -> list[str]:
    return [s for s in sqls if 'FROM "characters_skill"' in s or 'FROM "characters_attribute"' in s]


def a_skill() -> Skill:
    return Skill.objects.filter(system=SYSTEM, heals="").order_by("name").first()


# -- the token -------------------------------------------------------------------------


def test_every_catalog_write_draws_a_new_token():
    strength = Attribute.objects.get(system=SYSTEM, name="Siła")
    seen = {token()}
    writes = [
        lambda: Skill.objects.create(system=SYSTEM, name="Żonglerka", attribute=strength),
        lambda: Skill.objects.filter(name="Żonglerka").update(name="Kuglarstwo"),
        lambda: Skill.objects.filter(name="Kuglarstwo").delete(),
        lambda: Attribute.objects.create(system=SYSTEM, name="Szczęście", position=99),
        lambda: Attribute.objects.filter(name="Szczęście").update(position=98),
        lambda: Attribute.objects.filter(name="Szczęście").delete(),
    ]
    for write in writes:
        write()
        seen.add(token())
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE characters_skill SET description = 'x' WHERE id = %s", [a_skill().pk]
        )
    seen.add(token())
    assert None not in seen
    assert len(seen) == len(writes) + 2


def test_a_rolled_back_write_takes_its_token_back():
    before = token()
    with transaction.atomic():
        Skill.objects.filter(pk=a_skill().pk).update(name="Wycofana")
        assert token() != before
        transaction.set_rollback(True)
    assert token() == before


def test_a_write_after_a_flush_brings_the_token_row_back():
    CatalogVersion.objects.all().delete()
    assert token() is None
    Skill.objects.filter(pk=a_skill().pk).update(description="po czyszczeniu")
    assert token() is not None


# -- the panel -------------------------------------------------------------------------


def test_the_panel_reads_the_catalogs_once_per_version(table, client_for):
    client = client_for(table.gm)
    skill_panel(client, table)  # this version's catalogs, now cached
    body, sqls = skill_panel(client, table)
    assert a_skill().name in body
    assert catalog_reads(sqls) == [], catalog_reads(sqls)


@pytest.mark.parametrize("how", ["orm", "raw sql"])
def test_the_next_panel_sees_a_created_renamed_and_deleted_skill(table, client_for, how):
    client = client_for(table.gm)
    body, _ = skill_panel(client, table)
    assert "Żonglerka" not in body
    strength = Attribute.objects.get(system=SYSTEM, name="Siła")

    def write(orm, sql, params):
        if how == "orm":
            orm()
        else:
            with connection.cursor() as cursor:
                cursor.execute(sql, params)

    write(
        lambda: Skill.objects.create(system=SYSTEM, name="Żonglerka", attribute=strength),
        "INSERT INTO characters_skill (system, name, attribute_id, description, heals) "
        "VALUES (%s, %s, %s, '', '')",
        [SYSTEM, "Żonglerka", strength.pk],
    )
    body, _ = skill_panel(client, table)
    assert "Żonglerka" in body
    write(
        lambda: Skill.objects.filter(name="Żonglerka").update(name="Kuglarstwo"),
        "UPDATE characters_skill SET name = %s WHERE name = %s",
        ["Kuglarstwo", "Żonglerka"],
    )
    body, _ = skill_panel(client, table)
    assert "Kuglarstwo" in body and "Żonglerka" not in body
    write(
        lambda: Skill.objects.filter(name="Kuglarstwo").delete(),
        "DELETE FROM characters_skill WHERE name = %s",
        ["Kuglarstwo"],
    )
    body, _ = skill_panel(client, table)
    assert "Kuglarstwo" not in body


def test_a_renamed_attribute_shows_in_the_skills_labels(table, client_for):
    """A skill's label names its attribute: an attribute's write is a catalog write too."""
    client = client_for(table.gm)
    skill_panel(client, table)
    Attribute.objects.filter(pk=a_skill().attribute_id).update(name="Przemianowana")
    body, _ = skill_panel(client, table)
    assert "Przemianowana" in body


def test_a_rolled_back_edit_leaves_the_old_catalog_served(table, client_for):
    client = client_for(table.gm)
    skill = a_skill()
    with transaction.atomic():
        Skill.objects.filter(pk=skill.pk).update(name="Wycofana")
        body, _ = skill_panel(client, table)  # cached under the uncommitted token
        assert "Wycofana" in body
        transaction.set_rollback(True)
    body, _ = skill_panel(client, table)
    assert "Wycofana" not in body and skill.name in body


def test_without_a_token_row_the_catalogs_are_read_every_time(table, client_for):
    client = client_for(table.gm)
    CatalogVersion.objects.all().delete()
    for _ in range(2):
        body, sqls = skill_panel(client, table)
        assert a_skill().name in body
        # Both catalogs each time; besides, the test rolled reads its one skill itself.
        whole = [sql for sql in catalog_reads(sqls) if not sql.endswith("LIMIT 1")]
        assert len(whole) == 2, sqls


def test_a_caller_without_a_version_reads_the_catalogs_and_they_are_true():
    with CaptureQueriesContext(connection) as queries:
        catalog = system_catalog(SYSTEM)
    assert len(queries) == 2
    assert [a.pk for a in catalog.attributes] == list(
        Attribute.objects.filter(system=SYSTEM).values_list("pk", flat=True)
    )
    assert [s.pk for s in catalog.skills] == list(
        Skill.objects.filter(system=SYSTEM).values_list("pk", flat=True)
    )
    version = token()
    with CaptureQueriesContext(connection) as queries:
        assert system_catalog(SYSTEM, version) is catalog  # cached under the token both read
    assert len(queries) == 0


@pytest.mark.parametrize(
    ("builder", "mode"),
    [(build_q10_table, "pool"), (build_ciernie_table, "skill"), (build_saga, "simple")],
    ids=["q10", "ciernie", "arsmagica"],
)
def test_every_systems_panel_reads_its_catalogs_through_the_cache(
    make_user, client_for, builder, mode
):
    t = builder(make_user)
    client = client_for(t.gm)
    url = reverse("rolls:panel", args=[t.session.pk])

    def panel():
        with CaptureQueriesContext(connection) as queries:
            page = client.get(url, {"token": str(uuid.uuid4()), "mode": mode})
        assert page.status_code == 200
        return page.content.decode(), catalog_reads(q["sql"] for q in queries.captured_queries)

    panel()
    body, reads = panel()
    skill = Skill.objects.filter(system=t.session.system).order_by("name").first()
    assert skill.name in body
    assert reads == []
    with connection.cursor() as cursor:
        cursor.execute("UPDATE characters_skill SET name = 'Nowa nazwa' WHERE id = %s", [skill.pk])
    body, reads = panel()
    assert "Nowa nazwa" in body and len(reads) == 2
