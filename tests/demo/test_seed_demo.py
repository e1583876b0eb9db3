"""`seed_demo` builds the demo table through the services, and only once."""

import html
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from characters.models import Character
from demo.ford.story import SESSION_TITLE
from diary.models import GameSession, Post
from rolls.ledger.verify import verify_session
from rolls.models import Roll

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("demo_once")]


def test_seed_demo_builds_a_running_session_once(capsys):
    call_command("seed_demo")
    out = capsys.readouterr().out
    assert "gm / " in out and "gracz / " in out and "moderator / " in out
    session = GameSession.objects.get(title=SESSION_TITLE)
    assert session.status == "running" and session.system == "forum1000"
    assert session.participations.filter(status="accepted").count() == 3
    # Three forum1000 characters, and three of each other system.
    # The three of the demo session, the stand-in session's hunter (a character plays in
    # one running session at a time) and the applicant to the recruiting session.
    assert Character.objects.filter(is_stand_in=False, system="forum1000").count() == 3 + 2
    assert Character.objects.filter(is_stand_in=False).count() == 3 + 2 + 3 * 3
    assert Post.objects.filter(session=session).count() >= 4
    # The current turn has a deadline in the future.
    assert session.turns.order_by("-number").first().deadline > timezone.now()
    User = get_user_model()
    assert User.objects.get(username="moderator").groups.filter(name="Moderator").exists()
    assert User.objects.get(username="gm").check_password("kostka-gm-1000")


def test_seed_demo_has_a_request_in_every_state(client):
    """A new user meets roll requests in the demo: one answered as asked, one answered by the
    GM's judgment with the reason (the post shows both), one declined with the reason, one
    waiting."""
    from rolls.models import AskStatus, RollAsk

    call_command("seed_demo")  # again: built once
    # The requests made from the request page (a narration's test is another test's).
    asks = RollAsk.objects.filter(inline__isnull=True)
    statuses = sorted(asks.values_list("status", flat=True))
    assert statuses == sorted(
        [AskStatus.OPEN, AskStatus.ANSWERED, AskStatus.ANSWERED_DIFFERENTLY, AskStatus.DECLINED]
    )
    answered = asks.get(status=AskStatus.ANSWERED)
    assert answered.answer.record["answers"]["ask"] == answered.pk
    assert "rolled" not in answered.answer.record["answers"] and answered.note == ""
    assert answered.answer.post.pk > answered.post.pk
    judged = asks.get(status=AskStatus.ANSWERED_DIFFERENTLY)
    answer = judged.answer.record["answers"]
    assert answer["ask"] == judged.pk and answer["summary"] == judged.summary
    assert answer["note"] == judged.note and judged.note
    assert answer["rolled"] != judged.summary and "Hipnoza" in answer["rolled"]
    assert judged.answer.post.pk > judged.post.pk
    declined = asks.get(status=AskStatus.DECLINED)
    assert declined.answer is None and declined.note and declined.closed_at is not None
    waiting = asks.get(status=AskStatus.OPEN)
    assert waiting.answer is None and waiting.closed_at is None
    # The diary shows the reasons: beside the roll that answered differently, and beside
    # the declined request.
    client.force_login(judged.asked_by)
    page = html.unescape(client.get(judged.answer.post.get_absolute_url()).content.decode())
    assert judged.note in page and answer["rolled"] in page
    page = html.unescape(client.get(declined.post.get_absolute_url()).content.decode())
    assert declined.note in page


def test_seed_demo_shows_movement_on_foot_and_mounted():
    # RULES 1.5: a mounted move by a character with a horse, a move on foot in the
    # current turn next to an action roll.
    session = GameSession.objects.get(title=SESSION_TITLE)
    mounted = Post.objects.get(session=session, move_mounted=True)
    assert (mounted.character.name, mounted.move_metres, mounted.move_actions) == ("Mira", 50, 1)
    assert mounted.character.item_holdings.filter(item__is_mount=True).exists()
    current = session.turns.order_by("-number").first()
    on_foot = Post.objects.get(turn=current, move_metres__isnull=False)
    assert (on_foot.character.name, on_foot.move_mounted, on_foot.move_actions) == (
        "Borys",
        False,
        1,
    )


def test_seed_demo_has_damage_an_effect_with_a_length_and_a_potion_granted_and_used():
    """The demo's fight has entries in the session's chain."""
    from characters.models import HealingPotion, NegativeEffect
    from rolls.models import Roll

    session = GameSession.objects.get(title=SESSION_TITLE)
    kinds = list(Roll.objects.filter(session=session).values_list("test", flat=True))
    # Two characters' HP entries and the wolves' (a sheet-less NPC in the fight).
    assert kinds.count("hp") == 3
    assert {"effect", "item_grant", "item_use", "ability_use"} <= set(kinds)
    ability = Roll.objects.get(session=session, test="ability_use")
    assert ability.character.name == "Mira" and ability.post.author.username == "gracz3"
    assert verify_session(session.pk).ok
    stun = NegativeEffect.objects.get(kind="stun", began_in_session=session.pk)
    assert stun.length_turns == 2 and stun.freed_at is None
    potion = HealingPotion.objects.get(restores_hp=25)
    assert potion.count == 1
    use = Roll.objects.get(session=session, test="item_use")
    assert use.record["entry"]["hp_after"] == use.record["entry"]["hp_before"] + 25
    lirael = Character.objects.get(name="Lirael")
    assert use.character == lirael and lirael.hp_current == use.record["entry"]["hp_after"]


def test_seed_demo_runs_a_session_of_each_other_system_with_full_sheets():
    """The q10, ciernie and arsmagica sessions, running, with accepted plans,
    characters of the demo players, an open turn and Polish posts; run twice, built once."""
    from characters.models import Trait
    from characters.systems import ATTRIBUTE_RANGE
    from demo.systems import SESSIONS

    call_command("seed_demo")
    for system, spec in SESSIONS.items():
        session = GameSession.objects.get(title=spec["title"])
        assert (session.system, session.status) == (system, "running")
        assert session.gm.username == "gm"
        assert session.plan_submissions.get().decision == "accepted"
        playing = [p.character for p in session.participations.filter(status="accepted")]
        assert sorted(c.owner.username for c in playing) == ["gracz", "gracz2", "gracz3"]
        low, high = ATTRIBUTE_RANGE[system]
        for character in playing:
            assert character.system == system
            values = [row.value for row in character.attribute_values.all()]
            assert len(values) == 8 if system != "q10" else len(values) == 4
            assert all(low <= value <= high for value in values)
            assert character.skill_levels.count() >= 3
        # q10's first turn passed on at its deadline and the site opened the second
        # (demo/deadlines.py).
        assert session.turns.count() == (2 if system == "q10" else 1)
        assert Post.objects.filter(session=session).count() >= 3
    ciernie = GameSession.objects.get(system="ciernie")
    vera = Character.objects.get(name="Vera Kos")
    sources = [t for t in vera.traits.all() if t.rerolls]
    sources += [h.item for h in vera.item_holdings.all() if h.item.rerolls]
    assert len(sources) == 2
    stand_in = ciernie.npcs.get().stand_in
    assert stand_in.is_stand_in and stand_in.system == "ciernie"
    assert not stand_in.item_holdings.exists()
    assert Trait.objects.filter(system="q10", name="Wprawny szermierz", keep_modifier=1).exists()


def test_the_demo_rolls_every_test_of_each_other_system():
    """Through the panel's service: Q10 a pool with a 10 and a raise;
    Ciernie attribute, combined, comparative, effect, skill with a delay and a failed roll
    rerolled after it (its own entry); Ars
    Magica simple, stress with a doubling and stress with a botch check."""

    results = {"q10": [], "ciernie": [], "arsmagica": []}
    for roll in Roll.objects.filter(session__system__in=results).order_by("session", "seq"):
        results[roll.session.system].append(roll.record["result"])
    q10 = results["q10"]
    assert any(10 in r["faces"] and r["extra"] and r["raises_achieved"] >= 1 for r in q10)
    ciernie = results["ciernie"]
    assert {"attribute", "combined", "comparative", "effect", "skill", "reroll_of"} == {
        r["test"] for r in ciernie
    }
    assert any(r["test"] == "skill" and r["outcome"] == "delay" for r in ciernie)
    index, reroll = next((i, r) for i, r in enumerate(ciernie) if r["test"] == "reroll_of")
    assert reroll["first"]["outcome"] in ("failure", "critical_failure")
    assert ciernie[index - 1] == reroll["first"]  # the failed roll, kept as it fell
    ars = results["arsmagica"]
    assert any(r["test"] == "simple" for r in ars)
    assert any(r["test"] == "stress" and r["doublings"] >= 1 for r in ars)
    assert any(r["test"] == "stress" and r["die_faces"][0] == 0 and r["botch_faces"] for r in ars)


def test_seed_demo_shows_a_quote_linked_back_and_its_notification():
    from diary.models import Notification
    from diary.posts.quoting import quoted_post_pks

    quoting = Post.objects.get(narration__contains="Świeże. Ktoś szedł tędy o świcie.")
    (quoted_pk,) = quoted_post_pks(quoting.narration)
    quoted = Post.objects.get(pk=quoted_pk)
    assert quoted.session_id == quoting.session_id and quoted.author.username == "gm"
    assert "<blockquote>" in quoting.narration_html
    assert Notification.objects.filter(recipient=quoted.author, kind="quote", post=quoting).exists()


def test_seed_demo_has_the_gms_free_form_rolls_in_the_diary(client):
    """Damage in dice notation and a keep-highest table roll, in the GM's post of
    the current turn, every die shown, the chain verified with every result recomputed."""
    from rolls.models import Roll

    session = GameSession.objects.get(title=SESSION_TITLE)
    free = list(
        Roll.objects.filter(session=session, test="notation", rolled_by=session.gm).order_by("seq")
    )
    assert [r.record["result"]["input"]["expression"] for r in free] == [
        "2k6+3",
        "4k6kh3",
        "1k8[cięcie] + 2k6[ogień]",
        "10k10>=8",
    ]
    labelled, successes = free[2].record["result"], free[3].record["result"]
    assert [t.get("label") for t in labelled["terms"]] == ["cięcie", "ogień"]
    assert successes["total"] == sum(d["success"] for d in successes["terms"][0]["dice"])
    assert len(successes["dice"]) == 10
    assert all(r.post.author == session.gm and not r.is_action for r in free)
    assert len(free[0].record["result"]["dice"]) == 2 and free[0].character.name == "Borys"
    assert [d["kept"] for d in free[1].record["result"]["terms"][0]["dice"]].count(False) == 1
    assert verify_session(session.pk, recompute=True).ok
    client.force_login(session.gm)
    page = client.get(free[1].post.get_absolute_url()).content.decode()
    assert page.count('data-testid="free-roll"') >= 2
    assert "Tabela spotkań na szlaku: kto nadjeżdża" in page
    assert "[cięcie]" in page and "[ogień]" in page


def test_seed_demo_has_a_revealed_and_a_still_secret_roll():
    """The demo session shows both states of a secret GM roll."""
    from rolls.models import SecretRoll

    session = GameSession.objects.get(title=SESSION_TITLE)
    secrets = SecretRoll.objects.filter(roll__session=session).select_related("roll", "reveal")
    assert sorted(s.is_revealed for s in secrets) == [False, True]
    revealed = next(s for s in secrets if s.is_revealed)
    assert revealed.reveal.record["reveals"]["seq"] == revealed.roll.seq
    assert revealed.reveal.post_id == revealed.roll.post_id
    assert revealed.record["characters"]["a"]["name"] == "Mira"
    assert all(s.roll.record["kind"] == "secret" for s in secrets)
    assert verify_session(session.pk, recompute=True).ok


def test_seed_demo_leaves_the_player_unread_posts(client):
    """`make run` shows the unread count on the home page and the list, and the
    diary marks the first unread post."""
    from demo.ford.reading import DEMO_UNREAD_POSTS
    from diary.reading import sessions_with_unread

    session = GameSession.objects.get(title=SESSION_TITLE)
    player = get_user_model().objects.get(username="gracz")
    row = sessions_with_unread(GameSession.objects.filter(pk=session.pk), player).get()
    assert row.unread_count == DEMO_UNREAD_POSTS
    client.force_login(player)
    home = client.get("/").content.decode()
    assert f'data-testid="session-unread-{session.pk}"' in home
    diary = client.get(f"/sessions/{session.pk}/").content.decode()
    assert f'id="post-{row.first_unread_id}"' in diary
    assert 'data-testid="first-unread"' in diary


def test_seed_demo_has_a_word_to_find_in_turn_3_and_one_gracz_may_not_read():
    """Search: gracz finds the turn-3 word, not the one in the stand-in session."""
    from demo.search_words import SEARCH_WORD_HIDDEN_FROM_GRACZ, SEARCH_WORD_TURN_3
    from diary.search.selectors import posts_matching

    users = get_user_model().objects
    gracz, gracz2 = users.get(username="gracz"), users.get(username="gracz2")
    (post,) = posts_matching(gracz, SEARCH_WORD_TURN_3)
    assert post.turn.number == 3 and post.session.title == SESSION_TITLE
    assert list(posts_matching(gracz, SEARCH_WORD_HIDDEN_FROM_GRACZ)) == []
    assert len(posts_matching(gracz2, SEARCH_WORD_HIDDEN_FROM_GRACZ)) == 1


def test_seed_demo_shows_ooc_talk_and_whispers_once(client):
    """gracz meets table talk: an OOC conversation and a whisper of the GM's, both unread
    (badges on the session page, the bell); gracz2 sees neither whisper; run twice, once."""

    from diary.models import Notification, TalkMessage, TalkThread

    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    assert TalkThread.objects.filter(session=session, kind="ooc").count() == 1
    assert TalkMessage.objects.filter(thread__session=session, thread__kind="ooc").count() == 4
    whispers = TalkThread.objects.filter(session=session, kind="whisper")
    assert whispers.count() == 2
    User = get_user_model()
    gracz = User.objects.get(username="gracz")
    assert Notification.objects.filter(recipient=gracz, kind="whisper", read_at=None).exists()
    client.force_login(gracz)
    page = html.unescape(client.get(reverse("diary:session", args=[session.pk])).content.decode())
    assert 'data-testid="ooc-unread">4 ' in page and 'data-testid="whispers-unread">1 ' in page
    client.force_login(User.objects.get(username="gracz2"))
    listing = client.get(reverse("diary:whispers", args=[session.pk])).content.decode()
    assert "Co Lirael widzi w mgle" not in listing and "Plan Miry" not in listing


def test_seed_demo_has_a_players_free_roll_where_the_gm_allows_them(client):

    session = GameSession.objects.get(title=SESSION_TITLE)
    assert session.players_free_rolls
    # The demo's player's free roll from the free-roll page (not the dice in a narration).
    mine = Roll.objects.get(
        session=session, test="notation", record__roller="player", inline__isnull=True
    )
    assert mine.post.author == mine.rolled_by != session.gm
    assert mine.record["result"]["input"]["expression"] == "2k6+1"


def test_seed_demo_puts_the_caravan_on_the_recruiting_board_with_its_habits(client):

    from demo.application_session import APPLICATION_SESSION_TITLE

    caravan = GameSession.objects.get(title=APPLICATION_SESSION_TITLE)
    client.force_login(get_user_model().objects.get(username="gracz"))
    page = client.get(reverse("diary:recruiting")).content.decode()
    card = page[page.index(f'data-testid="recruiting-{caravan.pk}"') :]
    assert APPLICATION_SESSION_TITLE in card
    assert "posty co 2–3 dni, tura zamykana w niedzielę wieczorem" in card
    assert 'data-testid="open-places">3 / 3<' in card
    assert reverse("diary:session_join", args=[caravan.pk]) in card


def test_seed_demo_fixes_the_npc_modifier_a_roll_used_and_shows_a_moderators_correction(
    client,
):
    """Seed 000 line 51: the demo's roll against the merchant fixes his persuasion modifier;
    the moderator's correction is in the NPC's history on the NPC page."""
    from diary.models import NpcModifier

    session = GameSession.objects.get(title=SESSION_TITLE)
    used = NpcModifier.objects.get(
        npc__session=session, npc__name="Stary kupiec", interaction="perswazja"
    )
    assert used.used_by_seq is not None
    assert not NpcModifier.objects.get(
        npc__name="Stary kupiec", interaction="targowanie"
    ).used_by_seq
    correction = used.corrections.get()
    assert correction.by.username == "moderator" and correction.note
    client.force_login(session.gm)
    page = html.unescape(client.get(f"/sessions/{session.pk}/npcs/{used.npc_id}/").content.decode())
    assert "npc-modifier-history" in page and correction.note in page
    assert f"#{used.used_by_seq}" in page


def test_seed_demo_gives_each_character_its_grammatical_gender():
    """The order and its history write "Lirael ogłuszona", "Borys ogłuszony"."""
    genders = dict(Character.objects.values_list("name", "grammatical_gender"))
    for name in ("Lirael", "Mira", "Arya", "Vera Kos"):
        assert genders[name] == "feminine", name
    for name in ("Borys", "Zbyszko", "Jarogniew", "Basior", "Eragon", "Murtagh", "Wilhelm"):
        assert genders[name] == "masculine", name


def test_seed_demo_greets_a_player_back_after_a_while_with_the_recap(client):
    """gracz2 last read the main session days ago, before the rolls against Borys: the
    diary shows "since you were last here" with those rolls and Borys's wound."""
    from diary.models import ReadMark
    from tests.conftest import polish

    session = GameSession.objects.get(title=SESSION_TITLE)
    player = get_user_model().objects.get(username="gracz2")
    mark = ReadMark.objects.get(user=player, session=session)
    assert mark.moved_at < timezone.now() - timedelta(days=2)
    client.force_login(player)
    page = html.unescape(client.get(reverse("diary:session", args=[session.pk])).content.decode())
    recap = page.split('data-testid="recap"', 1)[1].split("</details>", 1)[0]
    assert polish("Since you were last here") in page
    assert "Cios miecza strażnika" in recap  # Borys's wound, among his player's changes
    assert 'data-testid="recap-rolls"' in recap and "Borys" in recap


def test_seed_demo_shows_the_deadlines_rules(client):
    """The q10 session's turn passed on at the deadline: its closed turn ends with who
    waited, and the site opened the next one; in the ciernie session the GM played, after
    the deadline, the character whose player was silent. Run twice, once."""
    from demo.systems import SESSIONS
    from diary.models import TurnPass

    call_command("seed_demo")
    passing = GameSession.objects.get(title=SESSIONS["q10"]["title"])
    assert (passing.deadline_rule, passing.auto_next_turn) == ("pass", True)
    assert TurnPass.objects.filter(turn__session=passing).count() == 1
    assert passing.current_turn.opened_by_site == "deadline"
    assert passing.current_turn.deadline > timezone.now()
    client.force_login(get_user_model().objects.get(username="gracz3"))
    page = html.unescape(client.get(reverse("diary:session", args=[passing.pk])).content.decode())
    assert "Murtagh czeka w tej turze" in page
    assert "Turę otworzyła strona (termin minął)" in page
    assert "Po terminie: tura przechodzi dalej; strona sama otworzy następną turę" in page
    playing = GameSession.objects.get(title=SESSIONS["ciernie"]["title"])
    played = Post.objects.get(session=playing, played_by_gm=True)
    assert played.author == playing.gm and played.character.owner != playing.gm
    page = html.unescape(client.get(reverse("diary:session", args=[playing.pk])).content.decode())
    assert f"MG za postać {played.character.name}" in page
    assert verify_session(passing.pk).ok and verify_session(playing.pk).ok


def test_seed_demo_has_a_co_gm_and_a_session_handed_over(client):
    """The main session has a co-GM who plays no character there; another session's history
    shows it handed over, with the reason."""
    from demo.handover import HANDED_OVER_TITLE, HANDOVER_REASON
    from diary.models import CoGameMaster, SessionHandover

    call_command("seed_demo")  # again: built once
    main = GameSession.objects.get(title=SESSION_TITLE)
    co_gm = CoGameMaster.objects.get(session=main).user
    assert co_gm.username == "mg2"
    assert not main.participations.filter(character__owner=co_gm).exists()
    handover = SessionHandover.objects.get()
    assert handover.session.title == HANDED_OVER_TITLE
    assert (handover.from_gm.username, handover.to_gm.username) == ("mg2", "gm")
    client.force_login(get_user_model().objects.get(username="gracz"))
    page = html.unescape(client.get(reverse("diary:session", args=[main.pk])).content.decode())
    assert "mg2" in page.split('data-testid="co-gm-names"')[1].split("</dd>")[0]
    history = client.get(reverse("diary:session_history", args=[handover.session.pk]))
    assert "mg2" in html.unescape(history.content.decode())
    client.force_login(get_user_model().objects.get(username="gm"))
    history = client.get(reverse("diary:session_history", args=[handover.session.pk]))
    assert HANDOVER_REASON in html.unescape(history.content.decode())


def test_seed_demo_shows_pace_language_tags_an_ad_and_a_quiet_session(client):
    from demo.application_session import APPLICATION_SESSION_TITLE
    from demo.board import ENGLISH_SESSION_TITLE
    from demo.systems import SESSIONS
    from diary.models import PlayerAd

    call_command("seed_demo")  # again: added once
    assert PlayerAd.objects.filter(active=True).count() == 1
    User = get_user_model()
    client.force_login(User.objects.get(username="gracz"))
    board = client.get(reverse("diary:recruiting")).content.decode()
    caravan = GameSession.objects.get(title=APPLICATION_SESSION_TITLE)
    card = board[board.index(f'data-testid="recruiting-{caravan.pk}"') :]
    assert "co 2–3 dni" in card and "dla początkujących" in card
    english = GameSession.objects.get(title=ENGLISH_SESSION_TITLE)
    only_english = client.get(reverse("diary:recruiting"), {"language": "en"}).content.decode()
    assert f'data-testid="recruiting-{english.pk}"' in only_english
    assert f'data-testid="recruiting-{caravan.pk}"' not in only_english
    ad = PlayerAd.objects.get(active=True)
    ads = client.get(reverse("diary:ads_board")).content.decode()
    assert f'data-testid="ad-{ad.pk}"' in ads and "gracz3" in ads
    quiet = GameSession.objects.get(title=SESSIONS["arsmagica"]["title"])
    client.force_login(User.objects.get(username="moderator"))
    assert f'data-testid="quiet-row-{quiet.pk}"' in client.get(reverse("home")).content.decode()
    client.force_login(User.objects.get(username="gm"))
    home = client.get(reverse("home")).content.decode()
    assert f'data-testid="quiet-{quiet.pk}"' in home
    # The main session is alive: not marked.
    main = GameSession.objects.get(title=SESSION_TITLE)
    assert f'data-testid="quiet-{main.pk}"' not in home


def test_seed_demo_shows_an_absence_and_a_nudge_once(client):
    """gracz3 is away from the main session for a week (with a note): its diary lists Mira
    apart, not awaited; the GM nudged another player, whose button says so; run twice,
    once."""
    from diary.models import Absence, Notification, Nudge

    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    (absence,) = Absence.objects.all()
    assert absence.user.username == "gracz3" and absence.session == session and absence.note
    assert (absence.ends_on - absence.starts_on).days == 6
    client.force_login(session.gm)
    page = html.unescape(client.get(reverse("diary:session", args=[session.pk])).content.decode())
    assert 'data-testid="absent-' in page and "Mira — nieobecna do" in page
    assert absence.note in page
    (nudge,) = Nudge.objects.all()
    assert nudge.recipient != absence.user and nudge.by == session.gm
    assert Notification.objects.filter(recipient=nudge.recipient, kind="nudge").exists()
    nudged = nudge.session.participations.get(character__owner=nudge.recipient).character
    elsewhere = reverse("diary:session", args=[nudge.session.pk])
    assert f'data-testid="nudged-{nudged.pk}"' in client.get(elsewhere).content.decode()


def test_seed_demo_pins_announcements_and_has_a_closed_and_an_open_scheduling_poll(client):
    """The main session's notice board above its diary, a closed anonymous poll and an open
    scheduling poll with votes (gracz may still vote); run twice, once."""
    from diary.models import Announcement, Poll, PollVote

    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    assert Announcement.objects.filter(session=session).count() == 3
    assert Announcement.objects.filter(session=session, archived_at=None).count() == 2
    closed, scheduling = Poll.objects.filter(session=session).order_by("pk")
    assert closed.is_closed() and closed.anonymous and closed.votes.count() == 3
    assert scheduling.is_scheduling and not scheduling.is_closed()
    assert PollVote.objects.filter(poll=scheduling).values("voter").distinct().count() == 3
    gracz = get_user_model().objects.get(username="gracz")
    client.force_login(gracz)
    diary = html.unescape(client.get(reverse("diary:session", args=[session.pk])).content.decode())
    assert diary.index("Harmonogram i termin tury") < diary.index('id="diary-posts"')
    assert "Przerwa świąteczna" not in diary
    page = client.get(scheduling.get_absolute_url()).content.decode()
    assert page.count('name="choices"') == 3 and "<time datetime=" in page


def test_seed_demo_leaves_a_players_unfinished_draft_in_the_form(client):
    """gracz2 finds Borys's unfinished post in the diary's form, with its OOC note and its
    character, saved as a draft; nobody else sees it."""
    from demo.ford.drafts import DRAFT_NOTE, DRAFT_TEXT
    from diary.models import Draft

    session = GameSession.objects.get(title=SESSION_TITLE)
    draft = Draft.objects.get(session=session)
    assert (draft.author.username, draft.place, draft.character.name) == ("gracz2", "post", "Borys")
    User = get_user_model()
    client.force_login(User.objects.get(username="gracz2"))
    page = html.unescape(client.get(reverse("diary:session", args=[session.pk])).content.decode())
    assert DRAFT_TEXT in page and DRAFT_NOTE in page and "szkic zapisany" in page
    client.force_login(User.objects.get(username="gracz"))
    page = html.unescape(client.get(reverse("diary:session", args=[session.pk])).content.decode())
    assert DRAFT_TEXT not in page


def test_seed_demo_has_dice_inside_a_narration_one_struck_through(client):
    from demo.ford.inline_dice import DEMO_INLINE_EDITED
    from rolls.models import InlineRoll

    session = GameSession.objects.get(title=SESSION_TITLE)
    free = InlineRoll.objects.filter(post__session=session, roll__isnull=False)
    jump, pebbles = free.select_related("roll", "post")
    post = jump.post
    assert post.narration.startswith(DEMO_INLINE_EDITED + f"[[1k20+3 skok #{jump.roll.seq}]]")
    assert f"#{pebbles.roll.seq}" not in post.narration and post.version == 2
    assert jump.roll.record["roller"] == "player" and jump.roll.post == post
    client.force_login(post.author)
    page = html.unescape(client.get(post.get_absolute_url()).content.decode())
    assert f'href="{reverse("rolls:detail", args=[session.pk, jump.roll.seq])}"' in page
    assert 'data-testid="inline-removed"' in page and "usunięte z tekstu" in page
    assert verify_session(session.pk, recompute=True).ok


def test_seed_demo_has_a_test_named_in_a_narration_and_answered(client):
    from demo.ford.inline_dice import DEMO_INLINE_TEST
    from rolls.models import AskStatus, InlineRoll

    session = GameSession.objects.get(title=SESSION_TITLE)
    row = InlineRoll.objects.select_related("ask__answer", "post").get(
        post__session=session, ask__isnull=False
    )
    assert row.ask.status == AskStatus.ANSWERED and row.words == "Percepcja"
    assert row.post.narration == DEMO_INLINE_TEST.replace("]]", f" #{row.ask.pk}]]")
    client.force_login(row.post.author)
    page = html.unescape(client.get(row.post.get_absolute_url()).content.decode())
    answer = reverse("rolls:detail", args=[session.pk, row.ask.answer.seq])
    assert f'href="{answer}" data-testid="inline-test">test: Percepcja — ' in page


def test_seed_demo_has_text_for_borys_eyes_and_a_spoiler(client):
    """The GM's post in the main session: Borys's player reads the line for his eyes,
    Lirael's reads that something is there; both open the spoiler."""
    from demo.ford.eyes import EYES_WORDS, SPOILER_WORDS

    session = GameSession.objects.get(title=SESSION_TITLE)
    users = get_user_model().objects
    pages = {}
    for username in ("gracz", "gracz2"):
        client.force_login(users.get(username=username))
        pages[username] = html.unescape(client.get(f"/sessions/{session.pk}/").content.decode())
    assert EYES_WORDS in pages["gracz2"] and "tylko dla: Borys" in pages["gracz2"]
    assert EYES_WORDS not in pages["gracz"] and "(tekst tylko dla wybranych)" in pages["gracz"]
    for page in pages.values():
        assert '<details class="spoiler"><summary>Spoiler</summary>' in page
        assert SPOILER_WORDS in page


def test_seed_demo_has_a_handout_map_on_a_gm_post_pinned_in_the_gallery(client):
    """The GM's opening post carries a map with its description, pinned in Galeria; a
    player sees its thumbnail in the diary and opens the full picture."""
    from demo.ford.handout import MAP_ALT
    from diary.models import PostPicture

    session = GameSession.objects.get(title=SESSION_TITLE)
    (picture,) = PostPicture.objects.filter(session=session)
    assert picture.post.author == session.gm and picture.pinned_at is not None
    assert picture.alt == MAP_ALT and (picture.width, picture.height) == (1400, 1000)
    client.force_login(get_user_model().objects.get(username="gracz"))
    diary = client.get(reverse("diary:session", args=[session.pk])).content.decode()
    diary += client.get(picture.post.get_absolute_url().split("#")[0]).content.decode()
    assert html.escape(MAP_ALT) in diary or MAP_ALT in html.unescape(diary)
    gallery = client.get(reverse("diary:gallery", args=[session.pk])).content.decode()
    pinned = gallery.split('data-testid="gallery-pinned"')[1].split("</ul>")[0]
    assert picture.thumb_file in pinned
    full = client.get(reverse("diary:picture_file", args=[session.pk, picture.image_file]))
    assert full.status_code == 200 and full["Content-Type"] == "image/webp"


def test_seed_demo_splits_the_party_into_a_second_scene(client):
    """Mira scouts the old watchtower, a scene of its own with the GM's post and hers: the
    diary's tabs, each post's scene, "Czekamy na" per scene; run twice, once."""
    from demo.ford.scenes import SCENE_NAME
    from diary.models import Participation, Scene

    call_command("seed_demo")
    session = GameSession.objects.get(title=SESSION_TITLE)
    scene = Scene.objects.get(session=session)
    assert scene.name == SCENE_NAME and scene.is_open
    assert Participation.objects.get(session=session, scene=scene).character.name == "Mira"
    in_scene = Post.objects.filter(session=session, scene=scene)
    assert {post.author.username for post in in_scene} == {"gm", "gracz3"}
    client.force_login(get_user_model().objects.get(username="gracz"))
    url = reverse("diary:session", args=[session.pk])
    diary = html.unescape(client.get(url).content.decode())
    assert 'data-testid="scene-tabs"' in diary and f"Scena: {SCENE_NAME}" in diary
    assert f'data-testid="awaited-scene-{scene.pk}"' in diary
    only = html.unescape(client.get(url, {"scena": scene.pk}).content.decode())
    assert "Mira przywiera do muru" in only and "Scena: " not in only
