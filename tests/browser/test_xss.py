"""The XSS corpus through every field a user controls, on every page that shows it.

Data-driven: FIELDS is the table. Each row names a field, how a user stores the corpus in
it (the same service or form the site's pages call, in the order a real game reaches it)
and the pages that show it. A new field, sheet or panel is one more row (and, for a new
page, one more PAGES entry). The test then stores every row's payloads and opens every
page once in Chromium (one browser, one context per role), with the site's real CSP, and
asserts on each page:

- no sentinel call (`__xss(n)`, exposed to the page by the test), no dialog;
- no request for the recorder URL `/__xss__/n` (an injected image, frame, style or object);
- no CSP violation (the policy would have had to stop markup the escaping let through);
- no element in the page carrying an event handler, a `javascript:` URL or a tag that
  loads or embeds something (script without the nonce, iframe, object, embed, base, ...);
- and, for every row, each payload is there as text (the page's text holds it verbatim;
  for Markdown fields, the post's marker line is there and the payload's markup is not).

Usernames are not a row: sign-up refuses every payload (test_signup_refuses_the_corpus).
"""

import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count, zip_longest

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from characters import services as character_services
from characters.models import NOTE_MAX, Attribute, Character, Item, Skill, Trait
from characters.systems import RuleSystem
from config.views import SignUpForm
from diary import services as diary_services
from diary.models import Npc, Post, SessionStatus
from diary.npcs import services as npc_services
from rolls.entries import services as entries
from rolls.initiative import services as initiative_services
from rolls.models import ASK_NOTE_MAX_LENGTH, InitiativeEvent, Roll
from rolls.services import roll_ask_decline
from rolls.systems.forum1000.requests import GmModifier, InitiativeLine, RollRequest, SideRequest
from tests.browser.conftest import log_in
from tests.browser.xss_corpus import ONE_LINE, PAYLOADS
from tests.conftest import PASSWORD
from tests.rolling import ask_roll, make_roll

pytestmark = pytest.mark.django_db(transaction=True)

RECORDER = "/__xss__/"
MARK = "xss-mark-"


def chunks(payloads: list[str], limit: int, sep: str = " ") -> list[str]:
    """The payloads joined into as few values of at most `limit` characters as they fit."""
    out, current = [], ""
    for p in payloads:
        joined = f"{current}{sep}{p}" if current else p
        if len(joined) > limit:
            out.append(current)
            joined = p
        current = joined
    return [*out, current] if current else out


def _once() -> dict:
    return {"token": uuid.uuid4(), "digest": "xss"}


class World:
    """A running session S with a GM, two players and a moderator; a second session P
    whose plan the moderator returned; what the table's rows store lands in these."""

    def __init__(self, make_user, make_character, make_session):
        self.gm = make_user("mg")
        self.alice = make_user("alicja")
        self.bob = make_user("bartek")
        self.moderator = make_user("moderator", moderator=True)
        self.lirael = make_character(self.alice, "Lirael")
        self.borys = make_character(self.bob, "Borys")
        self.session = make_session(self.gm, [self.lirael, self.borys])
        self.plan_session = make_session(self.gm, status=SessionStatus.DRAFT, title="Plan")
        self.perception = Attribute.objects.get(system=RuleSystem.FORUM1000, name="Percepcja")
        self.speed = Attribute.objects.get(system=RuleSystem.FORUM1000, name="Szybkość")
        self.payload_characters = []
        self.edited_post = None
        self.seq = count(1)

    def post(self, author, character, narration: str, nc_note: str = "") -> Post:
        return diary_services.post_create(
            session=self.session,
            author=author,
            character=character,
            narration=narration,
            nc_note=nc_note,
        )

    def roll(self, request: RollRequest, **extra) -> Roll:
        return make_roll(self.session, self.gm, request, **extra).roll


# ---------------------------------------------------------------------------
# How each field is stored: the service the page's form calls, as that user.
# `v` maps each row's key (FIELDS) to that row's values: its payloads, each followed by
# the row's own tag, so a page showing one field's text never passes for another's.


def marked(payloads: list[str], marker: str) -> str:
    """Markdown text holding every payload, each followed by its marker line."""
    return "\n\n".join(f"{p}\n\n{MARK}{marker}{n}." for n, p in enumerate(payloads, 1))


def store_posts(w: World, v):
    """One post per payload (the diary's pages hold them all), a marker line after it."""
    pairs = zip_longest(v["narration"], v["NC note"], fillvalue="")
    for n, (narration, nc_note) in enumerate(pairs, 1):
        w.post(w.alice, w.lirael, f"{narration}\n\n{MARK}p{n}.", nc_note=nc_note)


def store_edited_post(w: World, v):
    """A post edited to hold the corpus: its history shows both revisions."""
    w.edited_post = w.post(w.alice, w.lirael, "Lirael milczy.")
    diary_services.post_edit(
        post=w.edited_post,
        by=w.alice,
        character=w.lirael,
        narration="\n\n".join(
            f"{p}\n\n{MARK}e{n}." for n, p in enumerate(v["edited narration"], 1)
        ),
        nc_note="\n".join(v["edited NC note"]),
    )


def store_hide_reasons(w: World, v):
    for reason in chunks(v["hide reason"], 200):
        post = w.post(w.bob, w.borys, "Borys mówi coś niestosownego.")
        diary_services.post_hide(post=post, by=w.gm, reason=reason)


def store_characters(w: World, v):
    """A character per payload (name), owned by Alicja, playing in S; the first one's
    description holds the whole corpus."""
    # Room for each of them: a session seats no more characters than its places.
    w.session.player_slots += len(v["character name"])
    w.session.save(update_fields=["player_slots"])
    for n, name in enumerate(v["character name"]):
        character = character_services.character_create(
            owner=w.alice,
            system=RuleSystem.FORUM1000,
            values={
                "name": name,
                "description": marked(v["character description"], "c") if n == 0 else "",
                "hp_current": 50,
                "hp_max": 50,
                "attributes": dict.fromkeys(Attribute.objects.filter(system="forum1000"), 500),
                "skills": {},
                "traits": [],
                "items": {},
            },
        )
        invitation = diary_services.participation_invite(
            session=w.session, by=w.gm, character=character
        )
        diary_services.participation_decide(participation=invitation, by=w.alice, accept=True)
        w.payload_characters.append(character)


def store_asks(w: World, v):
    """A roll request per payload character: its summary names the character."""
    for character in w.payload_characters:
        post = w.post(w.alice, character, "Prośba o rzut.")
        ask_roll(
            w.session,
            w.alice,
            SideRequest(
                character_id=character.pk, test="attribute", attribute_ids=(w.perception.pk,)
            ),
            post=post,
        )


def store_sessions(w: World, v):
    """A session per payload (title, description), and S's own title and description."""
    pairs = zip(v["session title"], v["session description"], strict=True)
    for n, (title, description) in enumerate(pairs, 1):
        diary_services.session_create(
            gm=w.gm,
            title=title,
            description=f"{description}\n\n{MARK}d{n}.",
            system=RuleSystem.FORUM1000,
            criticals_enabled=True,
            npc_mode="fixed_modifiers",
            roll_policy="gm_only",
        )
    diary_services.session_update(
        session=w.session,
        by=w.gm,
        title=v["running session title"][0],
        description=marked(v["running session description"], "r"),
    )


def store_npcs(w: World, v):
    """An NPC per payload in S and in P (whose plan shows its designs), each with a fixed
    modifier per payload on the first NPC."""
    for session in (w.session, w.plan_session):
        pairs = zip(v["NPC name"], v["NPC description"], strict=True)
        for n, (name, description) in enumerate(pairs, 1):
            npc_services.npc_create(
                session=session,
                by=w.gm,
                name=name,
                description=f"{description}\n\n{MARK}n{n}.",
                visible_to_players=True,
            )
        npc = Npc.objects.filter(session=session).order_by("pk").first()
        for interaction, reason in zip(v["NPC interaction"], v["NPC modifier reason"], strict=True):
            npc_services.npc_modifier_create(
                npc=npc, by=w.gm, interaction=interaction, value=-50, reason=reason
            )


def store_plan(w: World, v):
    """P's scenario (Markdown), submitted; the moderator returns it with the corpus."""
    scenario = "\n\n".join(f"{p}\n\n{MARK}s{n}." for n, p in enumerate(v["plan scenario"], 1))
    diary_services.session_plan_update(session=w.plan_session, by=w.gm, scenario=scenario)
    diary_services.session_transition(
        session=w.plan_session, by=w.gm, to=SessionStatus.PLAN_SUBMITTED
    )
    diary_services.session_plan_review(
        session=w.plan_session,
        by=w.moderator,
        accept=False,
        comment="\n".join(v["plan review comment"]),
    )


def store_rolls(w: World, v):
    """Rolls for Lirael: the typed action modifier, the GM's difficulty and bonus, each with
    a reason (as many payloads a reason as its 200 characters hold); a first roll, then each
    one a second action the GM allows with a reason."""
    plain = SideRequest(
        character_id=w.lirael.pk, test="attribute", attribute_ids=(w.perception.pk,)
    )
    w.roll(RollRequest(kind="attribute", a=plain))
    rows = zip(
        chunks(v["action modifier reason"], 200),
        chunks(v["GM difficulty reason"], 200),
        chunks(v["GM bonus reason"], 200),
        chunks(v["extra-action reason"], 200),
        strict=True,
    )
    for action, difficulty, bonus, extra in rows:
        side = SideRequest(
            character_id=w.lirael.pk,
            test="attribute",
            attribute_ids=(w.perception.pk,),
            action_value=10,
            action_reason=action,
            gm_difficulty=GmModifier(-50, difficulty),
            gm_bonus=GmModifier(50, bonus),
        )
        w.roll(RollRequest(kind="attribute", a=side), extra_action_reason=extra)


def store_entries(w: World, v):
    """The GM's diary entries for Lirael: damage (a reason), an effect (a description and
    a reason), freed again (a reason), a potion (its effect); each text as many payloads as
    it holds."""
    rows = zip(
        *(
            chunks(v[key], NOTE_MAX)
            for key in (
                "damage reason",
                "effect description",
                "effect reason",
                "effect freed reason",
                "potion effect",
            )
        ),
        strict=True,
    )
    session, by, who = w.session, w.gm, w.lirael.pk
    for damage, description, reason, freed, potion in rows:
        entries.damage_deal(
            session=session, by=by, character_id=who, delta=-1, reason=damage, **_once()
        )
        made = entries.effect_apply(
            session=session,
            by=by,
            character_id=who,
            kind="wound",
            description=description,
            length_turns=None,
            reason=reason,
            **_once(),
        )
        effect_id = made.entry.record["entry"]["effect"]["id"]
        entries.effect_free(
            session=session, by=by, character_id=who, effect_id=effect_id, reason=freed, **_once()
        )
        entries.item_grant(
            session=session,
            by=by,
            character_id=who,
            count=1,
            effect=potion,
            restores_hp=None,
            frees_kind="",
            **_once(),
        )


def store_initiative(w: World, v):
    """Initiative events (their names; the roll's line modifier reasons; as many payloads
    a text as it holds), each ended but the last, where every payload character joins the
    fight (the tracker keeps the names as rolled) and the GM adds order modifiers and
    records handovers (their reasons)."""
    names = chunks(v["initiative event name"], 100)
    reasons = chunks(v["initiative roll reason"], 200)
    for n, (name, reason) in enumerate(zip_longest(names, reasons, fillvalue="")):
        if n:
            initiative_services.initiative_event_end(
                event=InitiativeEvent.objects.get(session=w.session, ended_at=None), by=w.gm
            )
        lines = [
            InitiativeLine(w.lirael.pk, 50 if reason else 0, reason),
            InitiativeLine(w.borys.pk, 0, ""),
        ]
        if n == max(len(names), len(reasons)) - 1:
            lines += [InitiativeLine(c.pk, 0, "") for c in w.payload_characters]
        w.roll(RollRequest(kind="initiative", initiative=tuple(lines)), event_name=name)
    event = InitiativeEvent.objects.get(session=w.session, ended_at=None)
    for reason in chunks(v["initiative modifier reason"], 200):
        initiative_services.initiative_modifier_add(
            event=event, by=w.gm, character_id=w.lirael.pk, value=50, turns=2, reason=reason
        )
    for n, reason in enumerate(chunks(v["initiative handover reason"], 200)):
        taker, giver = (w.lirael, w.borys) if n % 2 else (w.borys, w.lirael)
        initiative_services.initiative_handover_record(
            event=event,
            by=w.gm,
            character_id=taker.pk,
            other_id=giver.pk,
            position=1,
            reason=reason,
        )


def store_ask_closures(w: World, v):
    """Requests the GM closes with a reason (as many payloads a reason as it holds): Borys
    asks for Percepcja and the GM answers by judgment with Siła and a note, or declines
    with a reason. The fight left running makes every answer a counted action roll."""
    perception = SideRequest(
        character_id=w.borys.pk, test="attribute", attribute_ids=(w.perception.pk,)
    )
    strength = Attribute.objects.get(system=RuleSystem.FORUM1000, name="Siła")
    other = SideRequest(character_id=w.borys.pk, test="attribute", attribute_ids=(strength.pk,))
    for note in chunks(v["answer note"], ASK_NOTE_MAX_LENGTH):
        ask = ask_roll(w.session, w.bob, perception, post=w.post(w.bob, w.borys, "Prośba."))
        w.roll(RollRequest(kind="attribute", a=other), answers=ask, answer_note=note)
    for reason in chunks(v["decline reason"], ASK_NOTE_MAX_LENGTH):
        ask = ask_roll(w.session, w.bob, perception, post=w.post(w.bob, w.borys, "Prośba."))
        roll_ask_decline(ask=ask, by=w.gm, reason=reason)


def store_proposals(w: World, v):
    """Alicja proposes changes to Lirael's sheet; the GM approves each with a comment of
    as many payloads as it holds (the sheet's history shows every comment)."""
    # The approval's comment becomes the revision's note: NOTE_MAX characters.
    for n, comment in enumerate(chunks(v["sheet proposal comment"], NOTE_MAX), 1):
        character = Character.objects.get(pk=w.lirael.pk)
        proposal = character_services.sheet_proposal_create(
            character=character,
            by=w.alice,
            values={
                "name": character.name,
                "description": f"Wersja {n}",
                "hp_max": character.hp_max,
                "attributes": {r.attribute: r.value for r in character.attribute_values.all()},
                "skills": {r.skill: r.level for r in character.skill_levels.all()},
                "traits": list(character.traits.all()),
                "items": {},
            },
        )
        character_services.sheet_proposal_decide(
            proposal=proposal, by=w.gm, approve=True, comment=comment
        )


def store_catalog(w: World, v):
    """Catalog rows through Django's admin, as a staff user allowed to add them (the
    catalogs of every system arrive the same way): a story item, a skill and an ability per payload
    (name and description); a character of Alicja's holds them all."""
    staff = get_user_model().objects.create_superuser("admin", password=PASSWORD)
    client = Client()
    client.force_login(staff)
    rows = zip(
        v["catalog item name"],
        v["catalog item description"],
        v["catalog skill name"],
        v["catalog skill description"],
        v["catalog trait name"],
        v["catalog trait description"],
        strict=True,
    )
    for n, row in enumerate(rows, 1):
        item, item_description, skill, skill_description, trait, trait_description = row
        item_description = f"{item_description}\n\n{MARK}i{n}."
        skill_description = f"{skill_description}\n\n{MARK}k{n}."
        trait_description = f"{trait_description}\n\n{MARK}t{n}."
        data = {"system": RuleSystem.FORUM1000, "modifier": "0", "keep_modifier": "0"}
        data |= {"name": item, "description": item_description}
        response = client.post(reverse("admin:characters_item_add"), data)
        assert response.status_code == 302, response.content.decode()[:2000]
        data |= {"name": skill, "description": skill_description}
        data |= {"attribute": w.perception.pk, "heals": ""}
        response = client.post(reverse("admin:characters_skill_add"), data)
        assert response.status_code == 302, response.content.decode()[:2000]
        data |= {"name": trait, "description": trait_description}
        data |= {"kind": "ability", "modifier": "10", "botch_dice_reduction": "0"}
        response = client.post(reverse("admin:characters_trait_add"), data)
        assert response.status_code == 302, response.content.decode()[:2000]
    w.catalog_character = character_services.character_create(
        owner=w.alice,
        system=RuleSystem.FORUM1000,
        values={
            "name": "Katalogowa",
            "description": "",
            "hp_current": 50,
            "hp_max": 50,
            "attributes": dict.fromkeys(Attribute.objects.filter(system="forum1000"), 500),
            "skills": dict.fromkeys(Skill.objects.filter(name__in=v["catalog skill name"]), 1),
            "traits": list(Trait.objects.filter(name__in=v["catalog trait name"])),
            "items": dict.fromkeys(Item.objects.filter(name__in=v["catalog item name"]), 1),
        },
    )


# ---------------------------------------------------------------------------
# The pages, each as the role that sees it; a page may be several URLs (the diary's pages)


def diary_pages(w: World) -> list[str]:
    """Every page of S's diary, oldest first (20 posts a page), then the pages of each
    post's folded rolls (a post shows its newest FOLD_SHOWN; the rest come FOLD_PAGE at a
    time from rolls:post_rolls, as the diary's "earlier rolls" link opens them)."""
    from diary.models import DIARY_PAGE_SIZE
    from rolls.posts.presenters import FOLD_PAGE, FOLD_SHOWN

    url = reverse("diary:session", args=[w.session.pk])
    ids = list(Post.objects.filter(session=w.session).order_by("id").values_list("id", flat=True))
    pages = [f"{url}?after={ids[i] - 1}" for i in range(0, len(ids), DIARY_PAGE_SIZE)]
    for post_id in ids:
        seqs = list(
            Roll.objects.filter(post_id=post_id).order_by("seq").values_list("seq", flat=True)
        )
        folded = seqs[:-FOLD_SHOWN]
        for start in range(0, len(folded), FOLD_PAGE):
            chunk = folded[start : start + FOLD_PAGE]
            rolls_url = reverse("rolls:post_rolls", args=[w.session.pk, post_id])
            pages.append(f"{rolls_url}?before={chunk[-1] + 1}&after={chunk[0] - 1}")
    return pages


def session_url(name: str, **kwargs) -> Callable[[World], list[str]]:
    return lambda w: [reverse(name, kwargs={"pk": w.session.pk, **kwargs})]


PAGES: dict[str, tuple[str, Callable[[World], list[str]]]] = {
    "home (GM)": ("gm", lambda w: [reverse("home")]),
    "home (player)": ("alice", lambda w: [reverse("home")]),
    "diary": ("gm", diary_pages),
    "diary (player)": ("alice", diary_pages),
    "post history": ("gm", lambda w: [reverse("diary:post_history", args=[w.edited_post.pk])]),
    "post edit": ("alice", lambda w: [reverse("diary:post_edit", args=[w.edited_post.pk])]),
    "session list": ("gm", lambda w: [reverse("diary:session_list")]),
    "session edit": ("gm", session_url("diary:session_edit")),
    "participants": ("gm", session_url("diary:participants")),
    "npcs": ("gm", session_url("diary:npcs")),
    "npc edit": (
        "gm",
        lambda w: [
            reverse(
                "diary:npc_edit",
                args=[w.session.pk, Npc.objects.filter(session=w.session).order_by("pk")[0].pk],
            )
        ],
    ),
    "plan": ("gm", lambda w: [reverse("diary:session_plan", args=[w.plan_session.pk])]),
    "plan (moderator)": (
        "moderator",
        lambda w: [reverse("diary:session_plan", args=[w.plan_session.pk])],
    ),
    "panel": ("gm", session_url("rolls:panel")),
    "initiative": ("gm", session_url("rolls:initiative")),
    "entries": ("gm", session_url("rolls:entries")),
    "roll detail": (
        "gm",
        lambda w: [
            reverse(
                "rolls:detail",
                args=[w.session.pk, Roll.objects.filter(session=w.session).order_by("seq")[1].seq],
            )
        ],
    ),
    "audit": ("moderator", session_url("rolls:audit")),
    "character list": ("alice", lambda w: [reverse("characters:list")]),
    "catalog": ("alice", lambda w: [reverse("characters:catalog", args=["forum1000"])]),
    "character create": (
        "alice",
        lambda w: [reverse("characters:create") + "?system=forum1000"],
    ),
    "character (payload)": (
        "gm",
        lambda w: [reverse("characters:detail", args=[w.payload_characters[0].pk])],
    ),
    "character edit (payload)": (
        "alice",
        lambda w: [reverse("characters:edit", args=[w.payload_characters[0].pk])],
    ),
    "Lirael": ("gm", lambda w: [reverse("characters:detail", args=[w.lirael.pk])]),
    "Lirael's history": ("gm", lambda w: [reverse("characters:history", args=[w.lirael.pk])]),
    "catalog character": (
        "alice",
        lambda w: [reverse("characters:detail", args=[w.catalog_character.pk])],
    ),
}


@dataclass(frozen=True)
class Field:
    key: str  # unique: the store function finds its values under it
    store: Callable[[World, dict[str, list[str]]], None]
    pages: tuple[str, ...]  # keys of PAGES where every value must be visible as text
    payloads: tuple[str, ...] = tuple(ONE_LINE)
    # Rendered as Markdown: the payload's own text is changed by design, so what must be
    # visible is the marker line stored after each payload ("xss-mark-<marker><n>.").
    marker: str = ""
    shows: str = ""  # a derived text (a summary): the values of the row named here


# A row per field; rows sharing a store function are stored together, the store functions
# in this order (a roll request needs the payload characters).
F, ALL = Field, tuple(PAYLOADS)
DIARY = ("diary", "diary (player)")
ROLLS = ("diary", "audit")  # the roll detail page shows one roll: visited, not checked
PLAN = ("plan", "plan (moderator)")
FIELDS = [
    F("narration", store_posts, DIARY, ALL, marker="p"),
    F("NC note", store_posts, DIARY),
    F("edited narration", store_edited_post, ("post history", "diary"), ALL, marker="e"),
    F("edited NC note", store_edited_post, ("post history", "diary")),
    F("hide reason", store_hide_reasons, ("diary",)),
    F(
        "character name",
        store_characters,
        ("character list", "participants", "panel", "diary", "initiative"),
    ),
    # Descriptions are Markdown too: their marker lines must show, their markup must not.
    F("character description", store_characters, ("character (payload)",), marker="c"),
    F("roll request summary", store_asks, ("home (GM)",), shows="character name"),
    F("session title", store_sessions, ("session list",)),
    # Shown on each session's own page only: checked on S's (the next rows).
    F("session description", store_sessions, (), marker="d"),
    F("running session title", store_sessions, ("diary", "panel", "session list"), ONE_LINE[:1]),
    F("running session description", store_sessions, ("diary",), marker="r"),
    F("NPC name", store_npcs, ("npcs", "diary", *PLAN)),
    F("NPC description", store_npcs, ("diary", *PLAN), marker="n"),
    F("NPC interaction", store_npcs, ("npc edit", "npcs", *PLAN)),
    F("NPC modifier reason", store_npcs, ("npc edit", *PLAN)),
    F("plan scenario", store_plan, PLAN, ALL, marker="s"),
    F("plan review comment", store_plan, PLAN),
    F("action modifier reason", store_rolls, ROLLS),
    F("GM difficulty reason", store_rolls, ROLLS),
    F("GM bonus reason", store_rolls, ROLLS),
    F("extra-action reason", store_rolls, ROLLS),
    F("damage reason", store_entries, ("diary", "Lirael's history")),
    F("effect description", store_entries, ("diary", "Lirael")),
    F("effect reason", store_entries, ("diary",)),
    F("effect freed reason", store_entries, ("diary", "Lirael")),
    F("potion effect", store_entries, ("diary", "Lirael")),
    F("initiative event name", store_initiative, ("initiative",)),
    F("initiative roll reason", store_initiative, ("diary",)),
    F("initiative modifier reason", store_initiative, ("initiative",)),
    F("initiative handover reason", store_initiative, ("initiative",)),
    # After the initiative rows: their fight is still running when the GM answers.
    F("answer note", store_ask_closures, DIARY),
    F("decline reason", store_ask_closures, DIARY),
    F("sheet proposal comment", store_proposals, ("Lirael's history",)),
    F("catalog item name", store_catalog, ("catalog character", "character create", "catalog")),
    F("catalog item description", store_catalog, ("catalog character", "catalog"), marker="i"),
    F("catalog skill name", store_catalog, ("catalog character", "character create", "catalog")),
    F("catalog trait name", store_catalog, ("catalog character", "character create", "catalog")),
    # The catalog page shows every entry's description.
    F("catalog skill description", store_catalog, ("catalog",), marker="k"),
    F("catalog trait description", store_catalog, ("catalog",), marker="t"),
]
# Two characters a row: "~" and a letter (the corpus leaves room for them).
TAGS = {f.key: f"~{letter}" for f, letter in zip(FIELDS, string.ascii_letters, strict=False)}
assert len(TAGS) == len(FIELDS)


def values(field: Field) -> list[str]:
    """What the row stores: each payload followed by the row's tag (unless Markdown: the
    marker line tells its posts apart)."""
    return [p if field.marker else p + TAGS[field.key] for p in field.payloads]


def expected(field: Field) -> list[str]:
    if field.shows:
        return expected(next(f for f in FIELDS if f.key == field.shows))
    if field.marker:
        return [f"{MARK}{field.marker}{n}." for n in range(1, len(field.payloads) + 1)]
    return values(field)


# What the page must not have, whatever the escaping let through.
DANGEROUS = """() => {
  const found = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase(), value = attr.value.trim().toLowerCase();
      if (name.startsWith('on')) found.push(`${el.tagName} ${name}`);
      if (/^(javascript|data|vbscript):/.test(value.replace(/[\\s\\u0000-\\u001f]/g, '')))
        found.push(`${el.tagName} ${name}=${value}`);
      if (name === 'style') found.push(`${el.tagName} style`);
    }
  }
  // The header's own icons (templates/icons/) are the one <svg> the site draws itself.
  const tags = 'script:not([nonce]), iframe, frame, object, embed, base, math, ' +
    'svg:not(.site-header svg.icon), ' +
    'video, audio, source, marquee, details[open], body input[autofocus], img, ' +
    'meta[http-equiv], ' +
    'link:not([rel=stylesheet][href^="/static/"]):not([rel=icon][href^="/static/"])';
  for (const el of document.querySelectorAll(tags)) found.push(el.outerHTML.slice(0, 80));
  return found;
}"""

WATCH = """
document.addEventListener('securitypolicyviolation', e =>
  window.__cspViolation(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));
"""


@pytest.fixture
def world(make_user, make_character, make_session):
    w = World(make_user, make_character, make_session)
    for store in dict.fromkeys(f.store for f in FIELDS):
        store(w, {f.key: values(f) for f in FIELDS})
    return w


def test_no_payload_runs_on_any_page_and_each_shows_as_text(world, browser, live_server):
    w = world
    contexts, problems, texts = {}, [], {}

    def context_for(role: str):
        if role not in contexts:
            context = browser.new_context(locale="pl-PL", base_url=live_server.url)
            seen = {"hits": [], "dialogs": [], "csp": [], "requests": [], "console": []}
            context.expose_function("__xss", lambda n: seen["hits"].append(n))
            context.expose_function("__cspViolation", lambda v: seen["csp"].append(v))
            context.add_init_script(WATCH)
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
            page.on(
                "request",
                lambda r: seen["requests"].append(r.url) if RECORDER in r.url else None,
            )
            page.on(
                "console",
                lambda m: seen["console"].append(m.text) if "Refused" in m.text else None,
            )
            log_in(page, getattr(w, role).username, PASSWORD)
            contexts[role] = (context, page, seen)
        return contexts[role]

    for key, (role, urls) in PAGES.items():
        _context, page, seen = context_for(role)
        text = []
        for url in urls(w):
            for bucket in seen.values():
                bucket.clear()
            response = page.goto(url)
            assert response.status == 200, f"{key}: {url} answered {response.status}"
            page.wait_for_load_state("load")
            page.wait_for_timeout(50)  # handlers such as onfocus fire after load
            text.append(page.evaluate("() => document.documentElement.textContent"))
            found = page.evaluate(DANGEROUS)
            for what, values in {**seen, "dangerous markup": found}.items():
                if values:
                    problems.append(f"{key} ({url}): {what}: {sorted(set(map(str, values)))}")
        texts[key] = "\n".join(text)

    for field in FIELDS:
        for key in field.pages:
            missing = [text for text in expected(field) if text not in texts[key]]
            if missing:
                problems.append(f"{field.key}: not shown as text on {key}: {missing}")
    for context, _page, _seen in contexts.values():
        context.close()
    assert problems == [], "\n".join(problems)


def test_signup_refuses_the_corpus(db):
    """Usernames cannot carry a payload: sign-up's validator allows letters, digits and
    @ . + - _ only, so not one payload of the corpus becomes a username."""
    accepted = [
        p
        for p in PAYLOADS
        if SignUpForm(
            data={"username": p, "password1": PASSWORD + "x", "password2": PASSWORD + "x"}
        ).is_valid()
    ]
    assert accepted == []
