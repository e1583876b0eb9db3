"""A seeded random walk through the diary's post form, with Django's test client: what
cannot be undone (a die rolled into the chain, a request for the GM, a post published)
never happens by mistake.

At each step a random actor (the GM, a player, another player, a moderator, an outsider)
does a random act on the post form: a preview, a publish (with a random mix of valid dice
markers, invalid ones, too many, a `[[test: …]]` of a valid or an unknown name, a part for
chosen eyes with a valid or an unknown name, an NPC block, or none), the same form sent
twice (one token), an edit (markers kept, changed, removed, added), a draft saved or
discarded; now and then on a finished session or with another session's id. After each
step, against the walk's model:

- the ledger (Roll rows, the session's chain_seq) grew by exactly the new dice markers of a
  published post or edit, and by nothing on a preview, a refusal or a repeated token; the
  requests for the GM (RollAsk) by exactly the new `[[test: …]]` markers;
- every InlineRoll keeps its roll or request forever; every Roll row stays as it was;
- a refusal is a page with the Polish message next to the narration and writes nothing
  (tests/site/table_writes.py); no 500; a preview never deletes the draft;
- the chain verifies at the end (rolls.ledger.verify.verify_session).

Seeded (`POST_WALK_SEED`, default fixed) and bounded (`POST_WALK_STEPS`); a failure prints
the seed and the steps that led to it.
"""

from __future__ import annotations

import html
import os
import random
import re
import uuid
from collections import Counter

import pytest
from django.test import Client
from django.urls import resolve, reverse

from diary.models import Draft, GameSession, Notification, Post, PostRevision, SessionStatus
from diary.npcs import services as npc_services
from rolls.inline.services import INLINE_DICE_MAX
from rolls.ledger.verify import verify_session
from rolls.models import AskStatus, InlineRoll, Roll, RollAsk
from tests.conftest import new_character, new_session, new_user, polish
from tests.site.table_writes import TableWrites

pytestmark = [pytest.mark.django_db, pytest.mark.fair_dice]

DEFAULT_SEED, DEFAULT_STEPS = 20261208, 120
SEED = int(os.environ.get("POST_WALK_SEED", DEFAULT_SEED))
STEPS = int(os.environ.get("POST_WALK_STEPS", DEFAULT_STEPS))
# What the default walk must have done at least once (else it proves little).
COVERED = (
    ("preview", "shown"),
    ("preview", "refused"),
    ("publish", "done"),
    ("publish", "refused"),
    ("publish twice", "done"),
    ("edit", "done"),
    ("edit", "refused"),
    ("draft", "saved"),
    ("draft", "discarded"),
    ("elsewhere", "refused"),
)
NOT_COMPARED = {"sessions", "admin", "counters"}
ERROR_FIELD = 'id="id_narration_error"'

VALID_DICE = ("1k6 los", "2k6+1 obrażenia", "1k20+3 skok", "3k4 ogień")
INVALID_DICE = ("2x6 cios", "k0 nic", "1k6+ pusto")
VALID_TESTS = ("Percepcja", "Otwieranie zamków")
NPC = "Stary kupiec"
PUBLISH_ONLY = (
    "The GM rolls tests in the roll panel.",
    "No attribute or skill of that name in this system.",
)

FREE_NOT_ALLOWED = (
    "The GM has not allowed players to make free-form rolls in this session. "
    "Your character's dice are rolled from the roll panel."
)


def url_name(url: str) -> str:
    match = resolve(url)
    return f"{match.namespace}:{match.url_name}"


def text(response) -> str:
    return html.unescape(response.content.decode())


class Walk:
    def __init__(self, rng: random.Random, t, finished, foreign):
        self.rng, self.t = rng, t
        self.session, self.finished, self.foreign = t.session, finished, foreign
        self.people = {
            "mg": t.gm,
            "alicja": t.alice,
            "bartek": t.bob,
            "moderator": t.moderator,
            "obcy": t.outsider,
        }
        self.character = {"alicja": t.lirael.pk, "bartek": t.borys.pk, "mg": ""}
        self.clients: dict[str, Client] = {}
        self.writes = TableWrites(NOT_COMPARED)
        self.tally: Counter = Counter()
        self.log: list[str] = []
        # The model: what the ledger and the posts hold.
        self.rolls = Roll.objects.count()
        self.chain = self._chain_seq()
        self.asks = RollAsk.objects.count()
        self.posts: dict[int, str] = {}  # post pk → author
        self.inline: dict[int, tuple] = {}  # InlineRoll pk → (post, roll, ask)
        self.roll_rows = self._roll_rows()
        self.drafts: set[str] = set()

    # -- helpers ----------------------------------------------------------------------------

    def _chain_seq(self) -> int:
        return GameSession.objects.get(pk=self.session.pk).chain_seq

    @staticmethod
    def _roll_rows() -> dict:
        return {pk: row for pk, *row in Roll.objects.values_list("pk", "seq", "hash", "post_id")}

    @staticmethod
    def stored() -> dict:
        """What a post's publishing stores, row by row."""
        return {
            model.__name__: list(model.objects.order_by("pk").values_list())
            for model in (Post, PostRevision, Roll, InlineRoll, RollAsk, Draft, Notification)
        }

    def client(self, who: str) -> Client:
        if who not in self.clients:
            self.clients[who] = Client(HTTP_ACCEPT_LANGUAGE="pl")
            self.clients[who].force_login(self.people[who])
        return self.clients[who]

    def note(self, line: str) -> None:
        self.log.append(f"{len(self.log) + 1:3}. {line}")

    def actor(self) -> str:
        return self.rng.choices(["mg", "alicja", "bartek", "moderator", "obcy"], [4, 4, 3, 1, 1])[0]

    def post(self, who: str, url: str, data: dict):
        client = self.client(who)  # logging in writes last_login: before the mark
        if self.writes.counters and url_name(url) != "diary:post_preview":
            self.before = self.stored()
        self.writes.mark()
        response = client.post(url, data)
        assert response.status_code != 500, f"500 on {url}"
        return response

    def nothing_written(self, *, rolled_back: bool = False) -> None:
        """Nothing written (every table). `rolled_back`: a refused publish or edit, whose
        transaction wrote the post and rolled back when a marker was refused (as designed:
        rolls.inline.services): PostgreSQL's counters count that, so there what is stored
        is compared, row by row; SQLite's snapshot compares every table."""
        if rolled_back and self.writes.counters:
            assert self.stored() == self.before, "a refused publish or edit stored something"
            return
        assert not self.writes.wrote(), "a refusal or a preview wrote to the database"

    @staticmethod
    def error_text(response) -> str:
        body = text(response)
        return body.split(ERROR_FIELD)[1][:600] if ERROR_FIELD in body else body[-600:]

    def refused(self, act: str, response, messages: list, *, forbidden: bool = False) -> None:
        """A refusal: a 400 page with one of the messages (a msgid, a (msgid, params) pair or
        ("raw", words)) in Polish next to the narration, or a 403/404 page for who may not
        write here; nothing written."""
        self.nothing_written(rolled_back=not forbidden and act != "preview")
        if forbidden:
            assert response.status_code in (403, 404), response.status_code
            assert '<main id="content"' in text(response)
        else:
            assert response.status_code == 400, response.status_code
            body = text(response)
            assert ERROR_FIELD in body, "the refusal is not next to the narration"
            error = body.split(ERROR_FIELD)[1][:3000]
            wanted = [
                m[1] if m[0] == "raw" else polish(m[0], **m[1])
                for m in (m if isinstance(m, tuple) else (m, {}) for m in messages)
            ]
            assert any(w in error for w in wanted), f"none of {wanted} in: {error[:600]}"
        self.tally[(act, "refused")] += 1

    # -- the narration the walk writes ---------------------------------------------------------

    def narration(self, who: str) -> tuple[str, int, int, list]:
        """(text, new free dice, new tests, the refusals it must meet: empty if valid)."""
        rng = self.rng
        pieces = [rng.choice(["Idę dalej.", "Mgła gęstnieje.", "Cisza."])]
        free = tests = 0
        errors: list = []
        kind = rng.choice(["dice", "dice", "invalid", "many", "test", "eyes", "npc", "none", "mix"])
        if kind in ("dice", "mix"):
            for _ in range(rng.randint(1, 3)):
                pieces.append(f"[[{rng.choice(VALID_DICE)}]]")
                free += 1
        if kind == "invalid":
            words = rng.choice(INVALID_DICE)
            pieces.append(f"[[{words}]]")
            errors.append(("raw", f"[[{words}]]:"))
        if kind == "many":
            count = INLINE_DICE_MAX + rng.randint(1, 3)
            pieces.extend(f"[[1k6 los {i}]]" for i in range(count))
            errors.append(
                (
                    "A post holds at most %(max)s dice in its text; this one would hold %(count)s.",
                    {"max": INLINE_DICE_MAX, "count": count},
                )
            )
        if kind in ("test", "mix"):
            if rng.random() < 0.6:
                pieces.append(f"[[test: {rng.choice(VALID_TESTS)}]]")
                if who == "mg":
                    errors.append("The GM rolls tests in the roll panel.")
                else:
                    tests += 1
            else:
                pieces.append("[[test: Qwxz]]")
                if who == "mg":  # whatever it names
                    errors.append("The GM rolls tests in the roll panel.")
                else:
                    errors.append("No attribute or skill of that name in this system.")
        if kind in ("eyes", "mix"):
            name = rng.choice(["Borys", "Lirael", "Zenon"])
            pieces.append(f"[dla: {name}]Szept.[/dla]")
            if name == "Zenon":
                errors.append(("No one in this session goes by “%(name)s”.", {"name": name}))
        if kind == "npc":
            name = rng.choice([NPC, NPC, "Nieznajomy"])
            pieces.append(f"[npc: {name}]Witajcie.[/npc]")
            if who != "mg":
                errors.append("Only the GM speaks as an NPC: remove the [npc: …] block.")
            elif name != NPC:
                errors.append(("The session has no NPC named “%(name)s”.", {"name": name}))
        self.kind = kind
        return " ".join(pieces), free, tests, errors

    def fields(self, who: str, narration: str) -> dict:
        return {
            "narration": narration,
            "nc_note": "",
            "character": self.character.get(who, ""),
            "token": str(uuid.uuid4()),
        }

    # -- the acts ------------------------------------------------------------------------------

    def act_preview(self) -> None:
        who = self.actor()
        narration, _free, _tests, errors = self.narration(who)
        self.note(f"{who} previews ({self.kind}): {narration[:80]}")
        url = reverse("diary:post_preview", args=[self.session.pk])
        response = self.post(who, url, self.fields(who, narration))
        self.nothing_written()
        if who not in self.character:
            return self.refused("preview", response, [], forbidden=True)
        # A sheet test is only named in the preview: its refusal comes on publishing.
        errors = [e for e in errors if e not in PUBLISH_ONLY]
        if errors:
            return self.refused("preview", response, errors)
        assert response.status_code == 200, (response.status_code, self.error_text(response))
        self.tally[("preview", "shown")] += 1

    def publish(self, who: str, data: dict, free: int, tests: int, errors: list, act: str):
        url = reverse("diary:post_create", args=[self.session.pk])
        response = self.post(who, url, data)
        if who not in self.character:
            return self.refused(act, response, [], forbidden=True)
        if errors:
            return self.refused(act, response, errors)
        assert response.status_code == 302, (response.status_code, self.error_text(response))
        post = Post.objects.get(author=self.people[who], token=data["token"])
        self.posts[post.pk] = who
        self.rolls += free
        self.chain += free
        self.asks += tests
        assert InlineRoll.objects.filter(post=post).count() == free + tests
        self.drafts.discard(who)
        self.tally[(act, "done")] += 1
        return post

    def act_publish(self) -> None:
        who = self.actor()
        narration, free, tests, errors = self.narration(who)
        self.note(f"{who} publishes ({self.kind}): {narration[:80]}")
        self.publish(who, self.fields(who, narration), free, tests, errors, "publish")

    def act_publish_twice(self) -> None:
        who = self.rng.choice(["mg", "alicja", "bartek"])
        narration, free, tests, errors = self.narration(who)
        self.note(f"{who} publishes twice ({self.kind}): {narration[:80]}")
        data = self.fields(who, narration)
        post = self.publish(who, data, free, tests, errors, "publish twice")
        stored = self.stored()
        again = self.post(who, reverse("diary:post_create", args=[self.session.pk]), data)
        if post is None:
            return self.refused("publish twice", again, errors)
        assert again.status_code == 302, again.status_code
        # Not TableWrites: on PostgreSQL its counters count the second send's insert, which
        # the token's constraint refused and rolled back; what is stored is compared.
        assert self.stored() == stored, "the same form sent twice stored something"
        assert Post.objects.filter(author=self.people[who], token=data["token"]).count() == 1

    def act_edit(self) -> None:
        if not self.posts:
            return self.act_publish()
        pk = self.rng.choice(sorted(self.posts))
        author = self.posts[pk]
        who = author if self.rng.random() < 0.8 else self.actor()
        post = Post.objects.get(pk=pk)
        markers = re.findall(r"\[\[[^\]]*#\d+\]\]", post.narration)
        rng = self.rng
        how = rng.choice(["keep", "remove", "change", "add", "add", "renumber"])
        narration = post.narration
        free = tests = 0
        errors: list = []
        if how == "remove" and markers:
            for marker in rng.sample(markers, rng.randint(1, len(markers))):
                narration = narration.replace(marker, "", 1)
        elif how == "change" and markers:
            marker = rng.choice(markers)
            number = re.search(r"#\d+", marker).group(0)
            # Its words change, its number stays: never rolled again.
            words = "test: Inna nazwa" if marker.startswith("[[test:") else "9k9 inaczej"
            narration = narration.replace(marker, f"[[{words} {number}]]", 1)
        elif how == "add":
            extra, free, tests, errors = self.narration(author)
            narration = f"{narration} {extra}"
            already = InlineRoll.objects.filter(post=post).count()
            if self.kind == "many":
                count = already + len(re.findall(r"\[\[1k6 los \d+\]\]", extra))
                errors = [
                    (
                        "A post holds at most %(max)s dice in its text; "
                        "this one would hold %(count)s.",
                        {"max": INLINE_DICE_MAX, "count": count},
                    )
                ]
            elif tests and RollAsk.objects.filter(post=post, status=AskStatus.OPEN).exists():
                errors.append(
                    (
                        "%(name)s already has an open request in this post: wait for the "
                        "GM's answer, or withdraw it first.",
                        {"name": post.character.name},
                    )
                )
            elif already + free + tests > INLINE_DICE_MAX:
                errors.append(
                    (
                        "A post holds at most %(max)s dice in its text; "
                        "this one would hold %(count)s.",
                        {"max": INLINE_DICE_MAX, "count": already + free + tests},
                    )
                )
        elif how == "renumber":
            narration = f"{narration} [[1k6 obce #999999]]"
            errors.append(
                (
                    "“%(marker)s”: no roll #%(number)s of this post; "
                    "remove the number to roll the dice anew.",
                    {"marker": "[[1k6 obce #999999]]", "number": 999999},
                )
            )
        self.note(f"{who} edits post {pk} of {author} ({how}): {narration[-80:]}")
        data = {"narration": narration, "nc_note": "", "character": self.character[author]}
        if post.npc_id:
            data["npc"] = post.npc_id
        response = self.post(who, reverse("diary:post_edit", args=[pk]), data)
        if who != author:
            return self.refused("edit", response, [], forbidden=True)
        if errors:
            return self.refused("edit", response, errors)
        assert response.status_code == 302, (response.status_code, self.error_text(response))
        self.rolls += free
        self.chain += free
        self.asks += tests
        self.check_results(Post.objects.get(pk=pk))
        self.tally[("edit", "done")] += 1

    @staticmethod
    def check_results(post: Post) -> None:
        """Every roll of the post is shown: where its marker stands, or, its marker taken out
        of the text, struck through below it; nothing was rolled again."""
        body = post.narration_html
        for row in InlineRoll.objects.filter(post=post, roll__isnull=False).select_related("roll"):
            seq = row.roll.seq
            assert f'data-seq="{seq}"' in body, f"roll #{seq} no longer shown in post {post.pk}"
            if not re.search(rf"\[\[[^\]]*#{seq}\]\]", post.narration):
                removed = body.split('data-testid="inline-removed"')
                assert len(removed) == 2 and f'data-seq="{seq}"' in removed[1], (
                    f"roll #{seq}, taken out of the text, is not struck through"
                )
                assert "<del>" in removed[1]

    def act_draft(self) -> None:
        # Often someone with a draft, who may throw it away.
        who = (
            self.rng.choice(sorted(self.drafts))
            if self.drafts and self.rng.random() < 0.5
            else self.actor()
        )
        discard = who in self.drafts and self.rng.random() < 0.6
        url_name = "diary:draft_discard" if discard else "diary:draft_save"
        url = reverse(url_name, args=[self.session.pk, "post"])
        self.note(f"{who} {'discards' if discard else 'saves'} a draft")
        response = self.post(
            who, url, {"narration": "Szkic [[1k6 los]]", "nc_note": "", "character": ""}
        )
        assert response.status_code in (302, 403, 404), response.status_code
        if discard:
            self.drafts.discard(who)
            self.tally[("draft", "discarded")] += 1
        elif response.status_code == 302 and who in self.character:
            self.drafts.add(who)
            self.tally[("draft", "saved")] += 1
        else:
            self.nothing_written()
            self.tally[("draft", "refused")] += 1

    def act_elsewhere(self) -> None:
        """A publish or a preview on the finished session, or on another GM's session."""
        who = self.actor()
        place = self.rng.choice([self.finished, self.foreign])
        name = self.rng.choice(["diary:post_create", "diary:post_preview"])
        narration, *_rest = self.narration(who)
        self.note(f"{who} sends {name} to session {place.title}: {narration[:60]}")
        response = self.post(who, reverse(name, args=[place.pk]), self.fields(who, narration))
        self.refused("elsewhere", response, [], forbidden=True)

    ACTS = {
        "act_preview": 4,
        "act_publish": 6,
        "act_publish_twice": 2,
        "act_edit": 4,
        "act_draft": 2,
        "act_elsewhere": 1,
    }

    # -- after every step --------------------------------------------------------------------

    def check(self) -> None:
        assert Roll.objects.count() == self.rolls, "the ledger changed by other than new dice"
        assert self._chain_seq() == self.chain
        assert RollAsk.objects.count() == self.asks
        rows = self._roll_rows()
        for pk, row in self.roll_rows.items():
            assert rows.get(pk) == row, f"roll {pk} changed or went away"
        self.roll_rows = rows
        inline = {r[0]: r[1:] for r in InlineRoll.objects.values_list("pk", "post", "roll", "ask")}
        for pk, row in self.inline.items():
            assert inline.get(pk) == row, f"dice of a post {pk} changed or went away"
        self.inline = inline
        assert set(Post.objects.filter(session=self.session).values_list("pk", flat=True)) >= set(
            self.posts
        )
        drafted = set(
            Draft.objects.filter(session=self.session, place="post").values_list(
                "author__username", flat=True
            )
        )
        assert drafted == self.drafts, f"drafts {drafted}, expected {self.drafts}"

    def run(self, steps: int) -> None:
        names, weights = zip(*self.ACTS.items(), strict=True)
        for _step in range(steps):
            getattr(self, self.rng.choices(names, weights)[0])()
            self.check()


def test_a_random_walk_through_the_post_form_never_rolls_by_mistake(table):
    GameSession.objects.filter(pk=table.session.pk).update(players_free_rolls=True)
    npc_services.npc_create(
        session=table.session, by=table.gm, name=NPC, description="", visible_to_players=True
    )
    finished = new_session(
        table.gm, [new_character(table.alice, "Lia")], status=SessionStatus.FINISHED
    )
    other = new_user("inny")
    foreign = new_session(other, [new_character(new_user("cezary"), "Cyryl")], title="Obca")
    walk = Walk(random.Random(SEED), table, finished, foreign)
    try:
        walk.run(STEPS)
        print("\n".join(f"{a} {o}: {n}" for (a, o), n in sorted(walk.tally.items())))
        report = verify_session(table.session.pk, recompute=True)
        assert report.ok, f"the chain does not verify: {report.problem} {report.detail}"
        if (SEED, STEPS) == (DEFAULT_SEED, DEFAULT_STEPS):
            never = [pair for pair in COVERED if not walk.tally[pair]]
            assert not never, f"the default walk never did {never}: choose another default seed"
    except Exception as error:
        steps = "\n".join(walk.log[-40:])
        raise AssertionError(
            f"the walk (POST_WALK_SEED={SEED} POST_WALK_STEPS={STEPS}) failed after:\n{steps}\n"
            f"-> {type(error).__name__}: {error}"
        ) from error
