"""Every URL × every role × GET and POST answers what config/access_matrix.py's table says.

That table is the one place the expected answers live; docs/decisions.md shows the same
table to readers (between its `access-matrix` markers; a test keeps them equal). This test
walks the URL configuration, so a new URL without a row fails, and a refused request (login
redirect, 403, 404, 405, 429) must leave every table of the database exactly as it was.

Roles, all around one running session S:
- anonymous;
- outsider: logged in, nothing to do with S;
- other_player: plays in another session (another GM), not in S;
- player: plays in S (character C, author of post P), may roll for C;
- gm: runs S;
- moderator;
- superuser: Django's superuser (the admin), who is a moderator too but plays no part in S.
"""

import re
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.urls import URLResolver, get_resolver, reverse

from characters.models import Skill
from characters.services import sheet_proposal_create
from config import access_matrix
from diary import services as diary_services
from diary.ads import services as ad_services
from diary.models import Participation
from diary.talk import services as talk_services
from rolls.systems.forum1000.requests import RollRequest, SideRequest
from tests.diary_entries import effect_entry, grant_entry
from tests.rolling import ask_roll, make_roll
from tests.rolls.conftest import described_plan
from tests.site.table_writes import TableWrites

pytestmark = pytest.mark.django_db

DECISIONS = Path(settings.BASE_DIR) / "docs" / "decisions.md"
ROLES = list(access_matrix.ROLES)
# Tables a request may touch without changing anything anyone reads: the log-in session
# and the rate limiter's counters.
# The rate limits count every POST, refused or not (docs/decisions.md, "Rate limits").
NOT_COMPARED = {"sessions", "admin", "counters"}
REFUSED = {"login", "403", "404", "405", "429"}


def site_url_names() -> list[str]:
    """Every named URL of the site except Django's admin (which has its own staff-only gate)."""
    return sorted({name for name, _pattern in _patterns() if not name.startswith("admin:")})


def documented_matrix() -> dict[tuple[str, str], dict[str, str]]:
    """(URL name, method) → role → the expected answer, from config/access_matrix.py."""
    rows = {}
    for name, method, *statuses in access_matrix.MATRIX:
        assert len(statuses) == len(ROLES), (name, method)
        assert (name, method) not in rows, f"two rows for {name} {method}"
        rows[(name, method)] = dict(zip(ROLES, statuses, strict=True))
    return rows


def decisions_table() -> list[list[str]]:
    text = DECISIONS.read_text(encoding="utf-8")
    block = re.search(r"<!-- access-matrix:start -->(.*?)<!-- access-matrix:end -->", text, re.S)
    assert block, "docs/decisions.md has no access-matrix table"
    lines = block.group(1).strip().splitlines()
    return [
        [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")] for line in lines
    ]


def test_the_readers_table_is_the_codes_table():
    """docs/decisions.md shows exactly config/access_matrix.py: same roles, same rows."""
    header, _rule, *rows = decisions_table()
    assert header == ["URL", "method", *ROLES]
    assert [tuple(row) for row in rows] == list(access_matrix.MATRIX)


class World:
    """One running session S and everything its URLs point at."""

    def __init__(self, make_user, make_character, make_session):
        self.gm = make_user("mg_s")
        self.player = make_user("gracz_s")
        self.other_player = make_user("gracz_inny")
        self.outsider = make_user("obcy")
        self.moderator = make_user("moderatorka", moderator=True)
        self.superuser = make_user("administratorka")
        self.superuser.is_superuser = self.superuser.is_staff = True
        self.superuser.save()
        self.character = make_character(self.player, "Cyra", skills={"Leczenie ran": 2})
        self.invited = make_character(self.player, "Druga")
        elsewhere = make_character(self.other_player, "Gdzieindziej")
        self.session = make_session(self.gm, [self.character], roll_policy="players_own")
        make_session(make_user("mg_inny"), [elsewhere])
        self.invitation = diary_services.participation_invite(
            session=self.session, by=self.gm, character=self.invited
        )
        self.participation = Participation.objects.get(
            session=self.session, character=self.character
        )
        self.post = diary_services.post_create(
            session=self.session,
            author=self.player,
            character=self.character,
            narration="Cyra rozgląda się.",
            nc_note="",
        )
        # In play the GM wounds and grants through the diary's entries.
        self.effect = effect_entry(self.session, self.gm, self.character, "wound", "rana")
        self.potion = grant_entry(self.session, self.gm, self.character, 2, "+20 PŻ")
        self.proposal = sheet_proposal_create(
            character=self.character,
            by=self.player,
            values={
                "name": "Cyra Odważna",
                "description": "",
                "hp_max": self.character.hp_max,
                "attributes": {
                    row.attribute: row.value for row in self.character.attribute_values.all()
                },
                "skills": {row.skill: row.level for row in self.character.skill_levels.all()},
                "traits": [],
                "items": {},
            },
        )
        self.ask = ask_roll(
            self.session,
            self.player,
            SideRequest(
                character_id=self.character.pk,
                test="attribute",
                attribute_ids=(self.character.attribute_values.first().attribute_id,),
            ),
            post=self.post,
        )
        attribute = self.character.attribute_values.select_related("attribute").first()
        attribute_roll = RollRequest(
            kind="attribute",
            a=SideRequest(
                character_id=self.character.pk,
                test="attribute",
                attribute_ids=(attribute.attribute_id,),
            ),
        )
        self.roll = make_roll(self.session, self.gm, attribute_roll).roll
        # A secret roll of the GM's, for its reveal.
        self.secret_roll = make_roll(self.session, self.gm, attribute_roll, secret=True).roll

        self.npc, self.npc_modifier = _npc(self.session)
        # A whisper of the GM's to the player (table talk beside the diary).
        self.whisper = talk_services.whisper_create(
            session=self.session,
            by=self.gm,
            players=[self.player],
            subject="Sekret",
            text="Tylko dla ciebie.",
            token=uuid.uuid4(),
        )
        self.portrait = _portrait(self.character)
        # A "szukam gry" ad of the other player's, which the GM may invite from.
        self.ad = ad_services.ad_save(
            by=self.other_player, system="", pace="", text="Szukam drużyny."
        )
        # The player's absences: one that lasts today (to end early), one to come (to
        # withdraw).
        self.absence, self.future_absence = _absences(self.player, self.session)
        # The GM's announcement on the notice board, and the player's poll in the OOC thread.
        self.announcement, self.poll = _board_and_poll(self.session, self.gm, self.player)
        # A picture on the player's post (its file, its pin in the gallery).
        self.picture = _picture(self.post, self.player)

    def kwargs(self, name: str) -> dict:
        session, character = self.session.pk, self.character.pk
        by_name = {
            # A system's catalog; the skill edited is on the character's sheet.
            "characters:catalog": {"system": "forum1000"},
            "characters:catalog_add": {"system": "q10", "kind": "skill"},
            "characters:catalog_edit": {
                "system": "forum1000",
                "kind": "skill",
                "entry_pk": Skill.objects.get(system="forum1000", name="Leczenie ran").pk,
            },
            "characters:detail": {"pk": character},
            "characters:edit": {"pk": character},
            "characters:history": {"pk": character},
            "characters:hp": {"pk": character},
            "characters:effect_add": {"pk": character},
            "characters:effect_free": {"pk": character, "effect_pk": self.effect.pk},
            "characters:potion_grant": {"pk": character},
            "characters:potion_use": {"pk": character, "potion_pk": self.potion.pk},
            "characters:proposal_decide": {"pk": character, "proposal_pk": self.proposal.pk},
            "characters:portrait_remove": {"pk": character},
            "characters:portrait_upload": {"pk": character},
            "media_file": {"path": self.portrait},
            "diary:participation_accept": {"pk": self.invitation.pk},
            "diary:participation_decline": {"pk": self.invitation.pk},
            "diary:participation_withdraw": {"pk": self.participation.pk},
            "diary:post_edit": {"pk": self.post.pk},
            "diary:post_hide": {"pk": self.post.pk},
            "diary:post_history": {"pk": self.post.pk},
            "diary:post_link": {"pk": self.post.pk},
            # The player's own notification (the invitation of Druga).
            "notifications:read": {
                "pk": self.player.notifications.filter(kind="invitation").first().pk
            },
            "notifications:open": {
                "pk": self.player.notifications.filter(kind="invitation").first().pk
            },
            "rolls:detail": {"pk": session, "seq": self.roll.seq},
            "rolls:post_rolls": {"pk": session, "post_pk": self.roll.post_id},
            "rolls:reveal": {"pk": session, "seq": self.secret_roll.seq},
            "rolls:reroll": {"pk": session, "seq": self.roll.seq},
            "rolls:ask_withdraw": {"pk": session, "ask_pk": self.ask.pk},
            "rolls:ask_decline": {"pk": session, "ask_pk": self.ask.pk},
            "diary:absence_end": {"absence_pk": self.absence.pk},
            "diary:absence_delete": {"absence_pk": self.future_absence.pk},
            "diary:whisper": {"pk": session, "thread_pk": self.whisper.pk},
            "diary:draft_save": {"pk": session, "place": "post"},
            "diary:draft_discard": {"pk": session, "place": "post"},
            "diary:ad_invite": {"ad_pk": self.ad.pk},
            "diary:announcement_edit": {"pk": session, "announcement_pk": self.announcement.pk},
            "diary:announcement_pin": {"pk": session, "announcement_pk": self.announcement.pk},
            "diary:picture_file": {"pk": session, "name": self.picture.thumb_file},
            "diary:picture_pin": {"pk": session, "picture_pk": self.picture.pk},
            "diary:poll": {"pk": session, "poll_pk": self.poll.pk},
            "diary:poll_close": {"pk": session, "poll_pk": self.poll.pk},
            "diary:npc_edit": {"pk": session, "npc_pk": self.npc.pk},
            "diary:npc_modifier_add": {"pk": session, "npc_pk": self.npc.pk},
            "diary:npc_stand_in": {"pk": session, "npc_pk": self.npc.pk},
            "diary:npc_portrait_upload": {"pk": session, "npc_pk": self.npc.pk},
            "diary:npc_portrait_remove": {"pk": session, "npc_pk": self.npc.pk},
            "diary:npc_modifier_delete": {
                "pk": session,
                "npc_pk": self.npc.pk,
                "modifier_pk": self.npc_modifier.pk,
            },
            "diary:npc_modifier_edit": {
                "pk": session,
                "npc_pk": self.npc.pk,
                "modifier_pk": self.npc_modifier.pk,
            },
        }
        if name in by_name:
            return by_name[name]
        pattern = next(p for p in _patterns() if p[0] == name)[1]
        return {"pk": session} if "<int:pk>" in pattern else {}

    def client(self, role: str) -> Client:
        client = Client()
        if role != "anonymous":
            client.force_login(getattr(self, role))
        return client


def _portrait(character) -> str:
    """C's portrait (a stored file under the tests' MEDIA_ROOT); its media name."""
    import io

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    from characters.portraits import portrait_check_and_encode
    from characters.services import character_portrait_set

    buf = io.BytesIO()
    Image.new("RGB", (64, 64), (90, 40, 20)).save(buf, format="PNG")
    checked = portrait_check_and_encode(SimpleUploadedFile("c.png", buf.getvalue()))
    return character_portrait_set(
        character_pk=character.pk, by=character.owner, portrait=checked
    ).portrait.name


def _picture(post, author):
    """A picture attached to the post, stored as the post form stores it."""
    import io

    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    from diary.pictures.services import pictures_attach
    from diary.pictures.uploads import picture_check_and_encode

    buf = io.BytesIO()
    Image.new("RGB", (300, 200), (20, 60, 90)).save(buf, format="PNG")
    upload = picture_check_and_encode(SimpleUploadedFile("mapa.png", buf.getvalue()), "Mapa")
    with transaction.atomic():
        (picture,) = pictures_attach(post=post, images=[upload], by=author)
    return picture


def _absences(player, session):
    from datetime import timedelta

    from diary.absences.selectors import today
    from diary.absences.services import absence_create

    day = today()
    return (
        absence_create(
            user=player,
            session=session,
            starts_on=day - timedelta(days=1),
            ends_on=day + timedelta(days=3),
            note="Wyjazd",
        ),
        absence_create(
            user=player,
            session=None,
            starts_on=day + timedelta(days=10),
            ends_on=day + timedelta(days=12),
        ),
    )


def _board_and_poll(session, gm, player):
    from diary.board.services import announcement_create
    from diary.polls.services import poll_create

    announcement = announcement_create(
        session=session, by=gm, title="Harmonogram", text="Tura w niedzielę.", token=uuid.uuid4()
    )
    poll = poll_create(
        session=session,
        by=player,
        question="Kiedy gramy?",
        kind="text",
        options=["Sobota", "Niedziela"],
        max_choices=1,
        anonymous=False,
        closes_at=None,
        token=uuid.uuid4(),
    )
    return announcement, poll


def _npc(session):
    """An NPC of S with one fixed modifier."""
    from diary.npcs import services as npc_services

    npc = npc_services.npc_create(
        session=session, by=session.gm, name="Stary kupiec", description="", visible_to_players=True
    )
    modifier = npc_services.npc_modifier_create(
        npc=npc, by=npc.session.gm, interaction="perswazja", value=100, reason="łatwowierny"
    )
    return npc, modifier


def _patterns():
    def walk(patterns, prefix="", namespace=None):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                yield from walk(
                    pattern.url_patterns,
                    prefix + str(pattern.pattern),
                    pattern.namespace or namespace,
                )
            elif pattern.name:
                name = f"{namespace}:{pattern.name}" if namespace else pattern.name
                yield name, prefix + str(pattern.pattern)

    return list(walk(get_resolver().url_patterns))


def outcome(response) -> str:
    """The status as the table writes it; a redirect to the log-in page is "login"."""
    if response.status_code == 302 and response["Location"].startswith(reverse("login")):
        return "login"
    return str(response.status_code)


def test_every_url_has_a_row_for_get_and_post():
    documented = {name for name, _method in documented_matrix()}
    missing = [name for name in site_url_names() if name not in documented]
    stale = sorted(documented - set(site_url_names()))
    assert missing == [], "URLs without a row in docs/decisions.md's access matrix"
    assert stale == [], "rows for URLs that no longer exist"
    methods = {(name, method) for name, method in documented_matrix()}
    assert all((name, m) in methods for name in site_url_names() for m in ("GET", "POST"))


MATRIX = sorted(documented_matrix().items())


@pytest.mark.parametrize(
    ("name", "method", "expected"),
    [(name, method, expected) for (name, method), expected in MATRIX],
    ids=[f"{name}-{method}" for (name, method), _ in MATRIX],
)
def test_each_role_gets_the_documented_answer(world, name, method, expected):
    url = reverse(name, kwargs=world.kwargs(name))
    observed = {}
    writes = TableWrites(NOT_COMPARED)
    for role in ROLES:
        client = world.client(role)
        # Each role meets the same world: what an allowed request wrote is rolled back.
        with transaction.atomic():
            writes.mark()
            response = client.get(url) if method == "GET" else client.post(url, {})
            observed[role] = outcome(response)
            if observed[role] in REFUSED:
                assert not writes.wrote(), f"{role} {method} {url} was refused but wrote"
            transaction.set_rollback(True)
    assert observed == expected


# The GM's answer to a request (the panel's `ask` and `answer_note`) and the decline
# (rolls:ask_decline) with a body that would succeed: only the GM's goes through; every
# other role is refused as the matrix says of the URL, and writes nothing.
ANSWER_EXPECTED = {
    "anonymous": "login",
    "outsider": "404",
    "other_player": "404",
    "player": "403",
    "gm": "302",
    "moderator": "403",
    "superuser": "403",
}


def _answer_body(world) -> dict:
    """An answer by judgment: another attribute than the one asked, with the reason."""
    from characters.models import Attribute

    asked = int(world.ask.case_fields["a-attribute"])
    other = Attribute.objects.filter(system="forum1000").exclude(pk=asked).order_by("pk").first()
    return {
        "mode": "attribute",
        "ask": str(world.ask.pk),
        "a-character": str(world.character.pk),
        "a-attribute": str(other.pk),
        "a-action_value": "0",
        "a-gm_difficulty": "0",
        "a-gm_bonus": "0",
        "extra_action_reason": "odpowiedź na prośbę",
        "answer_note": "Percepcja tu nie pomoże.",
    }


@pytest.mark.parametrize("what", ["answer", "decline"])
def test_only_the_gm_answers_or_declines_a_request(world, what):
    from rolls import access
    from rolls.models import AskStatus, RollAsk

    if what == "answer":
        url, body = reverse("rolls:panel", args=[world.session.pk]), _answer_body(world)
        closed = AskStatus.ANSWERED_DIFFERENTLY
    else:
        url = reverse("rolls:ask_decline", args=[world.session.pk, world.ask.pk])
        body, closed = {"reason": "Lepiej rzuć na Percepcję."}, AskStatus.DECLINED
    observed = {}
    writes = TableWrites(NOT_COMPARED)
    for role in ROLES:
        client = world.client(role)
        with transaction.atomic():
            writes.mark()
            user = getattr(world, role, None)
            token = access.issue_token(user, world.session) if user else "x"
            data = {**body, "token": token}
            if what == "answer":  # the page's form carries the roll its line described
                data["plan"] = described_plan(client, url, data)
            response = client.post(url, data)
            observed[role] = outcome(response)
            ask = RollAsk.objects.get(pk=world.ask.pk)
            if observed[role] in REFUSED:
                assert not writes.wrote(), f"{role} {what} was refused but wrote"
            else:
                assert ask.status == closed, (role, response.status_code)
            transaction.set_rollback(True)
    assert observed == ANSWER_EXPECTED


def _answers(world, name: str, method: str, kwargs: dict) -> dict[str, str]:
    url = reverse(name, kwargs=kwargs)
    observed = {}
    writes = TableWrites(NOT_COMPARED)
    for role in ROLES:
        client = world.client(role)
        with transaction.atomic():
            writes.mark()
            response = client.get(url) if method == "GET" else client.post(url, {})
            observed[role] = outcome(response)
            if observed[role] in REFUSED:
                assert not writes.wrote(), f"{role} {method} {url} was refused but wrote"
            transaction.set_rollback(True)
    return observed


# The matrix's cells where the session's state, not only the role, changes the answer.
FREE_ROLLS_ALLOWED = {
    ("GET",): {"player": "200", "gm": "200", "other_player": "404", "moderator": "403"},
    ("POST",): {"player": "400", "gm": "400", "other_player": "404", "moderator": "403"},
}


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_where_the_gm_allows_free_rolls_the_player_opens_the_page(world, method):
    from diary.models import GameSession

    GameSession.objects.filter(pk=world.session.pk).update(players_free_rolls=True)
    observed = _answers(world, "rolls:free", method, {"pk": world.session.pk})
    expected = FREE_ROLLS_ALLOWED[(method,)]
    assert {role: observed[role] for role in expected} == expected


def test_a_closed_turns_post_is_no_longer_its_players_to_edit_or_hide(world):
    diary_services.turn_open_next(session=world.session, by=world.gm)
    kwargs = {"pk": world.post.pk}
    edit_get = _answers(world, "diary:post_edit", "GET", kwargs)
    edit_post = _answers(world, "diary:post_edit", "POST", kwargs)
    hide = _answers(world, "diary:post_hide", "POST", kwargs)
    assert edit_get["player"] == edit_post["player"] == hide["player"] == "403"
    # The GM and the moderators still hide it, as in the open turn.
    assert (hide["gm"], hide["moderator"]) == ("302", "302")
