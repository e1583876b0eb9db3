"""A session's webhook: the table chat hears of turns, posts, rolls and deadlines, sent by
the real task worker (`db_worker`) to a real HTTP server on loopback that answers as a
Discord webhook does (204, or 429/500 while it is busy or down)."""

import re
import socket
import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from diary import services
from diary.models import SessionWebhook
from diary.notifications import webhook_services
from diary.notifications.notices import notify_deadlines
from diary.notifications.webhook_delivery import (
    DeliveryError,
    _public_address,
    post_json,
    url_problem,
)
from rolls.free.services import FreeRoll, roll_make_free
from tests.conftest import polish
from tests.smtp import run_worker

# The task the worker runs for each message (its path is what the queue stores).
DELIVER_WEBHOOK = "diary.notifications.tasks.deliver_webhook"

# Messages are queued when the transaction commits: a real commit, so transactional tests.
pytestmark = pytest.mark.django_db(transaction=True)


def set_webhook(client_for, table, url, **events):
    data = {"url": url, "on_turn": "on", "on_post": "on", "on_roll": "on", "on_deadline": "on"}
    data.update({name: "on" for name, wanted in events.items() if wanted})
    for name, wanted in events.items():
        if not wanted:
            data.pop(name)
    response = client_for(table.gm).post(
        reverse("diary:session_webhook", args=[table.session.pk]), data
    )
    assert response.status_code == 302, response.content.decode()[:2000]


def write(table, who, text):
    character = table.lirael if who == table.alice else table.borys
    return services.post_create(
        session=table.session, author=who, character=character, narration=text, nc_note=""
    )


def test_turns_posts_and_rolls_reach_the_chat_through_the_worker(table, chat, client_for):
    set_webhook(client_for, table, chat.url)
    turn = services.turn_open_next(session=table.session, by=table.gm)
    post = write(table, table.alice, "Lirael **uderza** @everyone mieczem.")
    roll = roll_make_free(
        session=table.session, by=table.gm, free=FreeRoll("2k6+1", "Pułapka"), token=uuid.uuid4()
    ).roll
    # Nothing leaves in the request: the worker sends it.
    assert chat.received == []
    assert DBTaskResult.objects.filter(task_path=DELIVER_WEBHOOK).count() == 3

    run_worker()

    turn_message, post_message, roll_message = chat.received
    title = table.session.title
    assert turn_message["content"] == polish(
        "**%(session)s**: turn %(number)s is open.", session=title, number=turn.number
    )
    assert (
        turn_message["embeds"][0]["url"] == f"http://codziennik.test/sessions/{table.session.pk}/"
    )
    assert post_message["content"] == polish(
        "**%(session)s**: a new post by %(who)s.", session=title, who="Lirael"
    )
    # The excerpt is text, not Markdown; a post's @everyone pings nobody.
    assert post_message["embeds"][0]["description"] == "Lirael uderza @everyone mieczem."
    assert post_message["embeds"][0]["url"] == f"http://codziennik.test/sessions/posts/{post.pk}/"
    assert all(message["allowed_mentions"] == {"parse": []} for message in chat.received)
    assert roll_message["content"] == polish(
        "**%(session)s**: roll #%(seq)s by %(who)s.", session=title, seq=roll.seq, who="mg"
    )
    assert str(roll.record["result"]["total"]) in roll_message["embeds"][0]["description"]
    assert SessionWebhook.objects.get().last_error == ""


def test_only_the_events_the_gm_ticked_are_sent(table, chat, client_for):
    set_webhook(client_for, table, chat.url, on_post=False, on_roll=False)
    write(table, table.alice, "Cisza.")
    services.turn_open_next(session=table.session, by=table.gm)
    run_worker()
    assert len(chat.received) == 1
    assert "2" in chat.received[0]["content"]  # turn 2's opening, not the post


def test_a_deadline_is_announced_once_a_turn(table, chat, client_for):
    set_webhook(client_for, table, chat.url)
    turn = table.session.turns.get()
    turn.deadline = timezone.now() + timedelta(hours=2)
    turn.save()
    notify_deadlines()
    notify_deadlines()
    run_worker()
    assert chat.contents() == [
        polish(
            "**%(session)s**: turn %(number)s ends %(when)s.",
            session=table.session.title,
            number=1,
            when=timezone.localtime(turn.deadline).strftime("%d.%m.%Y %H:%M"),
        )
        # ... and what the turn awaits.
        + " "
        + polish("Still awaited: %(names)s.", names="Borys, Lirael")
    ]


def test_a_rolled_back_post_announces_nothing(table, chat, client_for):
    set_webhook(client_for, table, chat.url)

    def write_then_fail():
        with transaction.atomic():
            write(table, table.bob, "Ten wpis nigdy nie powstanie.")
            raise RuntimeError("rolled back")

    with pytest.raises(RuntimeError):
        write_then_fail()
    assert not DBTaskResult.objects.exists()


def test_a_server_that_is_down_or_busy_gets_the_message_again(table, chat, client_for):
    set_webhook(client_for, table, chat.url)
    chat.answers = [(500, {}), (429, {"Retry-After": "0"})]
    write(table, table.bob, "Borys czeka.")
    run_worker()
    # Refused twice, taken the third time: once in the chat, and the GM sees no error.
    assert chat.contents() == [
        polish("**%(session)s**: a new post by %(who)s.", session=table.session.title, who="Borys")
    ]
    assert DBTaskResult.objects.filter(task_path=DELIVER_WEBHOOK).count() == 3
    assert SessionWebhook.objects.get().last_error == ""


def test_a_lasting_refusal_is_kept_for_the_gm_to_see(table, chat, client_for):
    set_webhook(client_for, table, chat.url)
    chat.answers = [(404, {})]
    write(table, table.bob, "Borys czeka.")
    run_worker()
    assert chat.received == []
    # A 404 (the webhook was deleted in the chat) is not tried again.
    assert DBTaskResult.objects.filter(task_path=DELIVER_WEBHOOK).count() == 1
    page = client_for(table.gm).get(reverse("diary:session_webhook", args=[table.session.pk]))
    assert polish("The webhook's server answered %(status)s.", status=404) in page.content.decode()


def test_the_gm_tests_the_webhook_and_players_never_see_its_url(table, chat, client_for):
    set_webhook(client_for, table, chat.url)
    url = reverse("diary:session_webhook", args=[table.session.pk])
    gm = client_for(table.gm)
    assert gm.post(url, {"action": "test"}).status_code == 302
    run_worker()
    assert len(chat.received) == 1
    # Not even the GM's page prints the secret back; players may not open it at all.
    assert "sekret" not in gm.get(url).content.decode()
    refused = client_for(table.alice).get(url)
    assert refused.status_code == 403
    assert "sekret" not in refused.content.decode()
    diary = client_for(table.alice).get(reverse("diary:session", args=[table.session.pk]))
    assert "sekret" not in diary.content.decode()
    assert url not in diary.content.decode()
    # Saving again with the URL left empty keeps it.
    response = gm.post(url, {"url": "", "on_post": "on"})
    assert response.status_code == 302
    saved = SessionWebhook.objects.get()
    assert saved.url == chat.url and saved.on_post and not saved.on_roll
    # Removed: the chat hears nothing more.
    assert gm.post(url, {"action": "remove"}).status_code == 302
    assert not SessionWebhook.objects.exists()


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "Paste the webhook URL from your chat's settings."),
        ("ftp://discord.com/api/webhooks/1/x", "The webhook address must start with https://."),
        ("http://discord.com/api/webhooks/1/x", "The webhook address must start with https://."),
        ("https://127.0.0.1/hook", "The webhook address must be on the public internet."),
        ("https://localhost:8000/hook", "The webhook address must be on the public internet."),
        ("https://[::1]/hook", "The webhook address must be on the public internet."),
        ("https://10.1.2.3/hook", "The webhook address must be on the public internet."),
        # IPv6 forms that carry a local IPv4 address inside them reach that IPv4 host.
        *(
            (f"https://[{address}]/hook", "The webhook address must be on the public internet.")
            for address in (
                "::ffff:127.0.0.1",  # IPv4-mapped
                "::127.0.0.1",  # IPv4-compatible
                "::ffff:0:7f00:1",  # IPv4-translated (SIIT)
                "64:ff9b::7f00:1",  # NAT64, the well-known prefix
                "64:ff9b::a9fe:a9fe",  # … to 169.254.169.254, a cloud's metadata
                "64:ff9b:1::808:808",  # NAT64's local-use prefix: never public
                "2002:7f00:1::1",  # 6to4
                "2002:a00:1::1",  # 6to4 of 10.0.0.1
                "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo (its client: 192.0.2.45)
                "2a00:1450:4001:800::5efe:a00:1",  # ISATAP's interface identifier (10.0.0.1)
            )
        ),
        ("https://a:b@discord.com/x", "The webhook address may not carry a user name or password."),
        ("nie adres", "Enter the whole webhook address, starting with https://."),
    ],
)
def test_a_bad_url_is_refused_next_to_its_field(table, client_for, url, message):
    response = client_for(table.gm).post(
        reverse("diary:session_webhook", args=[table.session.pk]), {"url": url}
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="id_url_error"' in page
    assert polish(message) in page.replace("&#x27;", "'")
    assert not SessionWebhook.objects.exists()


def test_the_server_never_posts_into_its_own_network(settings):
    settings.WEBHOOK_ALLOW_LOCAL = False
    assert url_problem("https://discord.com/api/webhooks/1/x") == ""
    with pytest.raises(DeliveryError) as refused:
        post_json("https://127.0.0.1:9/hook", {"content": "x"})
    assert not refused.value.retry
    # A name that resolves to a local address is refused after resolving it.
    with pytest.raises(DeliveryError) as refused:
        _public_address("localhost", 443)
    assert not refused.value.retry


@pytest.mark.parametrize(
    "address",
    [
        "8.8.8.8",
        "2001:4860:4860::8888",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2002:808:808::1",
    ],
)
def test_a_public_address_may_be_a_webhook(settings, address):
    settings.WEBHOOK_ALLOW_LOCAL = False
    host = f"[{address}]" if ":" in address else address
    assert url_problem(f"https://{host}/api/webhooks/1/x") == ""


def test_the_service_checks_the_url_again(table, settings):
    settings.WEBHOOK_ALLOW_LOCAL = False
    with pytest.raises(ValidationError) as refused:
        webhook_services.webhook_save(
            session=table.session, by=table.gm, url="https://[64:ff9b::7f00:1]/hook", on_post=True
        )
    assert refused.value.message_dict == {
        "url": [polish("The webhook address must be on the public internet.")]
    }
    assert not SessionWebhook.objects.exists()


def resolving(monkeypatch, name: str, address: str) -> None:
    """The DNS answers `address` for `name` (and as it would for any other name)."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host == name:
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize(
    "address",
    [
        "::ffff:127.0.0.1",
        "::127.0.0.1",
        "::ffff:0:7f00:1",
        "64:ff9b::7f00:1",
        "64:ff9b::a9fe:a9fe",
        "64:ff9b:1::808:808",
        "2002:7f00:1::1",
        "2001:0:4136:e378:8000:63bf:3fff:fdd2",
        "2001:0:7f00:1::f7ff:fffe",
        "2a00:1450:4001:800::5efe:a00:1",
    ],
)
def test_a_name_resolving_to_a_local_ipv4_inside_ipv6_is_refused_when_sending(
    table, client_for, settings, monkeypatch, address
):
    # The name passes the form (a name is only resolved when sending); its address,
    # resolved by the worker, is refused for good, and the GM's page says why.
    settings.WEBHOOK_ALLOW_LOCAL = False
    resolving(monkeypatch, "chat.example.com", address)
    set_webhook(client_for, table, "https://chat.example.com/api/webhooks/1/x")
    write(table, table.bob, "Borys czeka.")
    run_worker()
    assert DBTaskResult.objects.filter(task_path=DELIVER_WEBHOOK).count() == 1
    assert SessionWebhook.objects.get().last_error == polish(
        "The address is not on the public internet."
    )


def test_a_secret_roll_tells_the_chat_no_more_than_the_diary(table, chat, client_for):
    set_webhook(client_for, table, chat.url)
    roll = roll_make_free(
        session=table.session,
        by=table.gm,
        free=FreeRoll("1k1000", "Zasadzka", secret=True),
        token=uuid.uuid4(),
    ).roll
    run_worker()
    (message,) = chat.received
    text = message["embeds"][0]["description"]
    assert polish("Secret roll") in text
    hidden_total = roll.secret.record["result"]["total"]
    assert "Zasadzka" not in text
    # The commitment is hex and may hold any digits; past it, no number but the roll's own
    # seq may show (whatever the hidden total is).
    numbers = re.findall(r"\d+", re.sub(r"\b[0-9a-f]{16,}\b", "", text.replace(roll.hash, "")))
    assert set(numbers) <= {str(roll.seq)}, (numbers, hidden_total)


def test_a_nudge_reaches_the_chat_only_when_the_gm_ticked_it(table, chat, client_for):
    from diary.models import Nudge
    from diary.nudges.services import nudge_send

    set_webhook(client_for, table, chat.url)  # nudges are off unless ticked
    nudge_send(session=table.session, by=table.gm, character_id=table.borys.pk)
    run_worker()
    assert chat.contents() == []
    set_webhook(client_for, table, chat.url, on_nudge=True)
    Nudge.objects.all().delete()  # as if a day had passed
    nudge_send(session=table.session, by=table.gm, character_id=table.borys.pk)
    run_worker()
    assert chat.contents() == [
        polish(
            "**%(session)s**: the GM nudges %(names)s to post in turn %(number)s.",
            session=table.session.title,
            names="Borys",
            number=1,
        )
    ]
