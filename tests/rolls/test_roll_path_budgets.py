"""Query budgets of the roll path, as a browser drives it (docs/performance.md, "Roll path:
query budgets"): the GM's roll through the panel, the panel's preview, and the diary page a
player reads in a fight.

Each budget counts every statement of the request but transaction control (BEGIN, COMMIT,
SAVEPOINT, RELEASE: Django logs SQLite's and a test's savepoints, not PostgreSQL's own
BEGIN/COMMIT, so the two databases compare), the log-in session's and user's reads
included. The roll is checked to be stored once and to verify, the preview to show a
chance, the page to show the fight: a budget met by doing less than the page must is no
budget.
"""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.models import Notification, Post
from diary.services import post_create
from rolls import access
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from tests.rolls.conftest import PanelClient
from tests.rolls.initiative.test_initiative_event import fight  # noqa: F401 (a fixture)
from tests.rolls.test_append_costs import forum1000_roll

pytestmark = pytest.mark.django_db

# The GM's roll for a character through the panel (forum1000), into the GM's resolution post
# or the GM's own narrated post: 32 before the budgets. What is left (docs/performance.md):
# the log-in session and user, the session, the sheets (one statement), the NPC modifiers,
# the two catalogs; under the lock the replayed-token check, the turn's action state, the
# post, the turn's seed; the insert, the head's and the post's updates; the notification
# of the character's owner (six statements of diary.notifications.notices); on commit, the table
# chat's webhook; the redirect's page. Then: the owner told in two statements, the webhook's
# wish read with the lock, the redirect's page known without a count: 17. Then: the NPC
# modifiers read only when one is chosen or the field drawn; the session read once, locked
# from the start (rolls.views.panel); the replayed-token check, the action state, the post
# and the seed in one statement after the lock (rolls.selectors.locked_reads); the catalogs
# cached per process under their version, read with the session: 10.
ROLL_POST_MAX = 10
ROLL_INTO_NARRATED_POST_MAX = 10
# The preview the panel's form asks for as its fields change (htmx, #preview only): 17
# before; 8, then 7 without the NPC modifiers, 5 with the catalogs cached; still 5 with the
# line above the Roll button, the post it names read with the session (rolls.views.panel).
PREVIEW_MAX = 5
# The diary's newest page, read by a player while an initiative event runs: 10 before.
FIGHT_PAGE_MAX = 8

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE SAVEPOINT")


def counted(queries) -> list[str]:
    return [
        q["sql"]
        for q in queries.captured_queries
        if not q["sql"].lstrip().upper().startswith(TRANSACTION_CONTROL)
    ]


def shown(sqls) -> str:
    return "\n".join(f"{i}. {sql[:160]}" for i, sql in enumerate(sqls, 1))


def panel_url(session):
    return reverse("rolls:panel", args=[session.pk])


def signed(user, session, data) -> dict:
    """The form as the page holds it: its token issued to the user, and the digest of the
    roll its preview described (the page's form carries it; drawn before the roll)."""
    data = {**data, "token": access.sign_token(user, session, uuid.UUID(data["token"]))}
    client = PanelClient(user)
    return {**data, "plan": client.described_plan(panel_url(session), data)}


def roll_post(client, user, session, data):
    """The panel's roll; `data` as `signed` gave it (its preview drawn before)."""
    return client.post(panel_url(session), data)


def preview_get(client, user, session, data):
    """The form's own htmx trigger: its fields, a token issued to the user, #preview."""
    return client.get(
        panel_url(session),
        {**data, "token": access.issue_token(user, session)},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="preview",
    )


def _measured_roll(table, client, data, on_commit) -> list[str]:
    """The GM's roll for Lirael through the panel: checked, and its statements, those run
    when its transaction commits included (the table chat's webhook is looked up then)."""
    session, gm = table.session, table.gm
    before = Roll.objects.filter(session=session).count()
    data = signed(gm, session, data)
    with CaptureQueriesContext(connection) as queries, on_commit(execute=True):
        made = roll_post(client, gm, session, data)
    assert made.status_code == 302, made.content.decode()[-2000:]
    roll = Roll.objects.filter(session=session).latest("seq")
    assert made["Location"].endswith(f"#roll-{roll.seq}")
    assert Roll.objects.filter(session=session).count() == before + 1
    assert roll.character_id == table.lirael.pk and roll.rolled_by == gm
    assert verify_session(session.pk).ok
    return counted(queries)


def test_the_gms_roll_through_the_panel_is_within_its_budget(
    table, client_for, django_capture_on_commit_callbacks
):
    """The GM resolves the players' posts: the turn's first roll opens the GM's resolution
    post at the bottom of the diary, the next lands in it (rolls.services.resolution_post)."""
    session, gm = table.session, table.gm
    client = client_for(gm)
    post_create(
        session=session,
        author=table.alice,
        character=table.lirael,
        narration="Lirael sięga po łuk.",
        nc_note="",
        token=uuid.uuid4(),
    )
    assert roll_post(client, gm, session, forum1000_roll(table, table.borys)).status_code == 302
    resolution = Post.objects.filter(session=session).latest("pk")
    assert resolution.author == gm and resolution.narration == ""
    client.get(panel_url(session))  # warm up (content types, translations)
    sqls = _measured_roll(
        table, client, forum1000_roll(table, table.lirael), django_capture_on_commit_callbacks
    )
    assert Roll.objects.filter(session=session).latest("seq").post == resolution
    print(f"roll POST: {len(sqls)}\n{shown(sqls)}")
    assert len(sqls) <= ROLL_POST_MAX, shown(sqls)


def test_the_gms_roll_into_a_narrated_post_is_within_its_budget(
    table, client_for, django_capture_on_commit_callbacks
):
    """The same roll landing in the GM's own narrated post, already read: the post reads as
    changed and the character's owner is told (diary.notifications.notices)."""
    session, gm = table.session, table.gm
    client = client_for(gm)
    assert roll_post(client, gm, session, forum1000_roll(table, table.borys)).status_code == 302
    client.get(panel_url(session))  # warm up
    before = Notification.objects.filter(recipient=table.alice).count()
    sqls = _measured_roll(
        table, client, forum1000_roll(table, table.lirael), django_capture_on_commit_callbacks
    )
    assert Notification.objects.filter(recipient=table.alice).count() == before + 1
    print(f"roll POST into a narrated post: {len(sqls)}\n{shown(sqls)}")
    assert len(sqls) <= ROLL_INTO_NARRATED_POST_MAX, shown(sqls)


def test_the_panels_preview_is_within_its_budget(table, client_for):
    session, gm = table.session, table.gm
    client = client_for(gm)
    data = forum1000_roll(table, table.lirael)
    preview_get(client, gm, session, data)  # warm up
    with CaptureQueriesContext(connection) as queries:
        response = preview_get(client, gm, session, data)
    assert response.status_code == 200
    assert 'data-testid="chance"' in response.content.decode()
    sqls = counted(queries)
    print(f"preview: {len(sqls)}\n{shown(sqls)}")
    assert len(sqls) <= PREVIEW_MAX, shown(sqls)


def test_the_diary_page_in_a_fight_is_within_its_budget_for_a_player(fight, client_for):  # noqa: F811
    client = client_for(fight.alice)
    url = reverse("diary:session", args=[fight.session.pk])
    client.get(url)  # the first view after the change builds the page's cache
    with CaptureQueriesContext(connection) as queries:
        page = client.get(url)
    assert page.status_code == 200
    body = page.content.decode()
    assert "Wilki u brodu" in body  # the running fight is on the page
    sqls = counted(queries)
    print(f"diary page in a fight (player): {len(sqls)}\n{shown(sqls)}")
    assert len(sqls) <= FIGHT_PAGE_MAX, shown(sqls)
