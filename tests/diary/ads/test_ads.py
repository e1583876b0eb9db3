"""A player's "szukam gry" ad: written, edited and withdrawn on its page, one active ad per
player, shown to logged-in users on the board's second tab (filtered by system and pace),
and a GM's invitation from it: a notification with a link to the session's join page."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters.systems import RuleSystem
from diary import services as diary_services
from diary.ads import services
from diary.models import Notification, NotificationKind, PlayerAd
from diary.notifications.delivery import notification_text, notification_url
from tests.conftest import polish

pytestmark = pytest.mark.django_db

MINE = "/sessions/recruiting/my-ad/"
PLAYERS = "/sessions/recruiting/players/"


def _ad(user, text="Szukam mrocznej kampanii.", **fields):
    return services.ad_save(
        by=user, system=fields.get("system", ""), pace=fields.get("pace", ""), text=text
    )


def test_a_player_writes_an_ad_and_it_is_on_the_board(make_user, client_for):
    player = make_user("mira")
    client = client_for(player)
    assert reverse("diary:ad_mine") == MINE
    response = client.post(
        MINE, {"system": "forum1000", "pace": "daily", "text": "Gram wieczorami."}
    )
    assert response.status_code == 302
    ad = PlayerAd.objects.get(author=player)
    assert (ad.system, ad.pace, ad.text, ad.active) == (
        "forum1000",
        "daily",
        "Gram wieczorami.",
        True,
    )
    board = client_for(make_user()).get(PLAYERS).content.decode()
    card = board[board.index(f'data-testid="ad-{ad.pk}"') :]
    assert "mira" in card and "Gram wieczorami." in card and ">codziennie<" in card
    assert polish("Players looking for a game") == "Gracze szukają gry"
    assert "Gracze szukają gry" in board


def test_saving_again_edits_the_one_active_ad(make_user, client_for):
    player = make_user()
    client = client_for(player)
    client.post(MINE, {"system": "", "pace": "", "text": "Pierwsze."})
    page = client.get(MINE).content.decode()
    assert "Pierwsze." in page and 'data-testid="ad-withdraw"' in page
    client.post(MINE, {"system": "q10", "pace": "weekly", "text": "Drugie."})
    ads = PlayerAd.objects.filter(author=player)
    assert ads.count() == 1
    assert (ads.get().text, ads.get().system, ads.get().pace) == ("Drugie.", "q10", "weekly")


def test_the_database_keeps_one_active_ad_per_player(make_user):
    player = make_user()
    _ad(player)
    with pytest.raises(IntegrityError), transaction.atomic():
        PlayerAd.objects.create(author=player, text="Drugie aktywne.")


def test_a_withdrawn_ad_leaves_the_board_and_a_new_one_can_follow(make_user, client_for):
    player = make_user()
    client = client_for(player)
    first = _ad(player, "Stare.")
    response = client.post(reverse("diary:ad_withdraw"))
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.active is False
    assert (
        f'data-testid="ad-{first.pk}"' not in client_for(make_user()).get(PLAYERS).content.decode()
    )
    assert 'data-testid="ad-withdraw"' not in client.get(MINE).content.decode()
    client.post(MINE, {"system": "", "pace": "", "text": "Nowe."})
    assert PlayerAd.objects.filter(author=player).count() == 2
    assert PlayerAd.objects.get(author=player, active=True).text == "Nowe."


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"system": "", "pace": "", "text": ""}, "text"),
        ({"system": "", "pace": "", "text": "x" * 501}, "text"),
        ({"system": "dnd5", "pace": "", "text": "Ok."}, "system"),
        ({"system": "", "pace": "hourly", "text": "Ok."}, "pace"),
    ],
)
def test_a_bad_ad_is_refused_next_to_its_field(make_user, client_for, data, field):
    player = make_user()
    response = client_for(player).post(MINE, data)
    assert response.status_code == 400
    assert f'id="id_{field}_error"' in response.content.decode()
    assert not PlayerAd.objects.filter(author=player).exists()


def test_the_ads_tab_filters_by_system_and_pace(make_user, client_for):
    forum = _ad(make_user(), system="forum1000", pace="daily")
    q10 = _ad(make_user(), system="q10", pace="weekly")
    anything = _ad(make_user())
    client = client_for(make_user())

    def shown(**query):
        page = client.get(PLAYERS, query).content.decode()
        return {ad for ad in (forum, q10, anything) if f'data-testid="ad-{ad.pk}"' in page}

    assert shown() == {forum, q10, anything}
    assert shown(system="q10") == {q10, anything}
    assert shown(pace="daily") == {forum, anything}
    assert shown(system="q10", pace="daily") == {anything}
    html = client.get(PLAYERS, {"system": "q10"}).content.decode()
    assert '<option value="q10" selected>' in html
    assert client.get(PLAYERS, {"pace": "hourly"}).status_code == 400


def test_ads_are_for_logged_in_users_only(client):
    for url in (PLAYERS, MINE):
        response = client.get(url)
        assert response.status_code == 302
        assert reverse("login") in response["Location"]


def test_a_gm_invites_from_an_ad_and_the_player_is_told_with_the_join_link(
    table, make_user, client_for
):
    mira = make_user("mira")
    ad = _ad(mira, system="forum1000")
    gm = client_for(table.gm)
    board = gm.get(PLAYERS).content.decode()
    assert f'data-testid="invite-{ad.pk}"' in board
    response = gm.post(
        reverse("diary:ad_invite", args=[ad.pk]),
        {"session": table.session.pk, "note": "Brakuje nam złodzieja."},
    )
    assert response.status_code == 302
    notice = Notification.objects.get(recipient=mira, kind=NotificationKind.AD_INVITATION)
    assert notice.session_id == table.session.pk
    assert notification_url(notice) == reverse("diary:session_join", args=[table.session.pk])
    from django.utils import translation

    with translation.override("pl"):
        assert notification_text(notice) == (
            f"mg zaprasza cię do „{table.session.title}” w odpowiedzi na twoje ogłoszenie: "
            "Brakuje nam złodzieja."
        )
    # Mira reads it in her list, follows it and may ask to join from there.
    listed = client_for(mira).get(reverse("notifications:list")).content.decode()
    assert "w odpowiedzi na twoje ogłoszenie" in listed
    opened = client_for(mira).get(reverse("notifications:open", args=[notice.pk]))
    assert opened["Location"] == reverse("diary:session_join", args=[table.session.pk])
    assert client_for(mira).get(notification_url(notice)).status_code == 200
    again = gm.post(reverse("diary:ad_invite", args=[ad.pk]), {"session": table.session.pk})
    assert again.status_code == 400
    assert 'id="id_session_error"' in again.content.decode()
    assert Notification.objects.filter(recipient=mira, kind="ad_invitation").count() == 1


def test_only_the_gms_own_recruiting_sessions_can_be_named(
    table, make_user, make_session, client_for
):
    ad = _ad(make_user())
    closed = make_session(table.gm, recruiting=False, title="Zamknięta")
    someone_elses = make_session(make_user(), title="Cudza")
    gm = client_for(table.gm)
    for session in (closed, someone_elses):
        response = gm.post(reverse("diary:ad_invite", args=[ad.pk]), {"session": session.pk})
        assert response.status_code == 400
        assert 'id="id_session_error"' in response.content.decode()
    page = gm.get(reverse("diary:ad_invite", args=[ad.pk])).content.decode()
    assert f'value="{table.session.pk}"' in page
    assert f'value="{closed.pk}"' not in page and f'value="{someone_elses.pk}"' not in page
    assert not Notification.objects.filter(kind="ad_invitation").exists()


def test_a_player_without_a_recruiting_session_is_told_so(make_user, client_for):
    ad = _ad(make_user())
    page = client_for(make_user()).get(reverse("diary:ad_invite", args=[ad.pk]))
    assert page.status_code == 200
    assert 'data-testid="no-recruiting-session"' in page.content.decode()


def test_no_one_invites_from_their_own_or_a_withdrawn_ad(table, client_for):
    ad = _ad(table.gm)
    gm = client_for(table.gm)
    assert f'data-testid="invite-{ad.pk}"' not in gm.get(PLAYERS).content.decode()
    refused = gm.post(reverse("diary:ad_invite", args=[ad.pk]), {"session": table.session.pk})
    assert refused.status_code == 403
    services.ad_withdraw(by=table.gm)
    other = _ad(table.alice)
    services.ad_withdraw(by=table.alice)
    gone = gm.post(reverse("diary:ad_invite", args=[other.pk]), {"session": table.session.pk})
    assert gone.status_code == 404
    assert not Notification.objects.filter(kind="ad_invitation").exists()


def test_the_ads_tab_costs_the_same_queries_however_many_ads(table, make_user, client_for):
    gm = client_for(table.gm)
    _ad(make_user())

    def count():
        with CaptureQueriesContext(connection) as queries:
            assert gm.get(PLAYERS).status_code == 200
        return len(queries)

    count()
    few = count()
    for n in range(5):
        _ad(make_user(), system=RuleSystem.Q10 if n % 2 else "")
    diary_services.session_create(
        gm=table.gm,
        title="Druga",
        description="",
        system=RuleSystem.FORUM1000,
        criticals_enabled=True,
        npc_mode="fixed_modifiers",
        roll_policy="gm_only",
    )
    assert count() == few


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_saves_at_once_make_one_active_ad(make_user):
    """The second save waits for the first's lock on the player, then edits the ad the
    first made: without the lock both would find none and one would hit the constraint."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from tests.rolls.concurrency import in_thread, waiting_for_a_lock

    player = make_user()
    first_saved, second_queued = threading.Event(), threading.Event()

    @in_thread
    def save_first():
        with transaction.atomic():
            _ad(player, "Z pierwszej karty.")
            first_saved.set()
            assert second_queued.wait(timeout=30)

    @in_thread
    def save_second():
        return _ad(player, "Z drugiej karty.").pk

    with ThreadPoolExecutor(max_workers=2) as pool:
        saving = pool.submit(save_first)
        assert first_saved.wait(timeout=20)
        queued = pool.submit(save_second)
        waiting_for_a_lock()
        second_queued.set()
        saving.result(timeout=30)
        queued.result(timeout=30)
    ads = PlayerAd.objects.filter(author=player)
    assert ads.count() == 1
    assert ads.get().text == "Z drugiej karty."


def test_a_co_gm_invites_from_an_ad_to_the_session_they_co_run(table, make_user, client_for):
    """A co-GM has the GM's powers in the session: recruiting for it too."""
    from diary.handover.services import co_gm_name

    kasia = make_user("kasia")
    co_gm_name(session=table.session, by=table.gm, user=kasia)
    mira = make_user("mira")
    ad = _ad(mira)
    co_gm = client_for(kasia)
    page = co_gm.get(reverse("diary:ad_invite", args=[ad.pk])).content.decode()
    assert f'value="{table.session.pk}"' in page
    response = co_gm.post(reverse("diary:ad_invite", args=[ad.pk]), {"session": table.session.pk})
    assert response.status_code == 302
    notice = Notification.objects.get(recipient=mira, kind=NotificationKind.AD_INVITATION)
    assert notice.actor == kasia
