"""A session's outgoing webhook: its table chat (Discord, or anything that takes Discord's
JSON) hears of a new turn, a post, a roll and a near deadline.

The writers call `announce` inside their transaction; the message is built and queued
only after the commit (a rolled-back post announces nothing), and the task worker
(diary/notifications/tasks.py) sends it, retrying while the other end is down or asks to slow down.
The text is in the site's language whoever triggered it, and mentions never ping
anyone (diary/notifications/webhook_delivery.py sends it).
"""

from collections.abc import Callable

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import strip_tags
from django.utils.text import Truncator
from django.utils.translation import gettext as _

from config.markdown import SPOILER, render_narration
from diary.eyes.reading import NOBODY, visible_text
from diary.models import GameSession, Post, SessionWebhook, Turn
from diary.notifications.delivery import deadline_rule_words
from diary.notifications.tasks import deliver_webhook

EVENTS = ("turn", "post", "roll", "deadline", "nudge")
TEST_EVENT = "test"
EXCERPT_CHARS = 300


# ---------------------------------------------------------------------------
# Announcing: what the writers call
# ---------------------------------------------------------------------------


def announce(session_id: int, event: str, message: Callable[[], dict]) -> None:
    """After the current transaction commits, queue `message()` (a Discord message body)
    for the session's webhook if it has one that wants `event`."""
    transaction.on_commit(lambda: _queue(session_id, event, message))


def _queue(session_id: int, event: str, message: Callable[[], dict]) -> None:
    webhook = SessionWebhook.objects.filter(session_id=session_id).first()
    if webhook is None or (event != TEST_EVENT and not webhook.wants(event)):
        return
    with translation.override(settings.LANGUAGE_CODE):
        body = discord_body(**message())
    deliver_webhook.enqueue(webhook.pk, body, 1)


def discord_body(*, content: str, title: str = "", url: str = "", text: str = "") -> dict:
    """Discord's webhook JSON: a line of content, and an embed linking to the page."""
    body: dict = {
        "username": "Codziennik",
        "content": Truncator(content).chars(1900),
        # Text players wrote goes out as it is: it must never ping the channel.
        "allowed_mentions": {"parse": []},
    }
    if title or text:
        embed = {"title": Truncator(title).chars(250), "description": text}
        if url:
            embed["url"] = url
        body["embeds"] = [embed]
    return body


def absolute(path: str) -> str:
    return settings.SITE_URL + path


def plain_excerpt(markdown_text: str, chars: int = EXCERPT_CHARS) -> str:
    """A post's text as a chat shows it: the Markdown rendered, then its tags dropped; a
    spoiler stays hidden behind Discord's own spoiler marks until clicked."""
    markdown_text = SPOILER.sub(lambda m: f"||{m.group(1).strip()}||", markdown_text)
    text = " ".join(strip_tags(render_narration(markdown_text)).split())
    return Truncator(text).chars(chars)


def announce_turn_opened(turn: Turn) -> None:
    session = turn.session

    def message() -> dict:
        content = _("**%(session)s**: turn %(number)s is open.") % {
            "session": session.title,
            "number": turn.number,
        }
        if turn.deadline:
            local = timezone.localtime(turn.deadline)
            content += " " + _("Deadline: %(when)s.") % {"when": local.strftime("%d.%m.%Y %H:%M")}
        return {
            "content": content,
            "title": session.title,
            "url": absolute(reverse("diary:session", args=[session.pk])),
        }

    announce(session.pk, "turn", message)


def announce_post_created(post: Post) -> None:
    def message() -> dict:
        who = post.character.name if post.character_id else post.author.get_username()
        return {
            "content": _("**%(session)s**: a new post by %(who)s.")
            % {"session": post.session.title, "who": who},
            "title": _("Post #%(number)s") % {"number": post.pk},
            "url": absolute(reverse("diary:post_link", args=[post.pk])),
            # The chat is read by whoever is in it: no part for chosen eyes goes there.
            "text": plain_excerpt(visible_text(post, NOBODY)),
        }

    announce(post.session_id, "post", message)


def announce_deadline_near(turn: Turn, awaited: list[str] | None = None) -> None:
    """The chat hears that the turn's deadline is near, and whom the turn still awaits."""
    session = turn.session

    def message() -> dict:
        local = timezone.localtime(turn.deadline)
        content = _("**%(session)s**: turn %(number)s ends %(when)s.") % {
            "session": session.title,
            "number": turn.number,
            "when": local.strftime("%d.%m.%Y %H:%M"),
        }
        if awaited:
            content += " " + _("Still awaited: %(names)s.") % {"names": ", ".join(awaited)}
        rule = deadline_rule_words(session.deadline_rule)
        if rule:
            content += f" {rule}."
        return {
            "content": content,
            "title": session.title,
            "url": absolute(reverse("diary:session", args=[session.pk])),
        }

    announce(session.pk, "deadline", message)


def announce_nudge(turn: Turn, characters: list[str]) -> None:
    """The chat hears that the GM nudged a player (when the GM ticked it: off by default)."""
    session = turn.session

    def message() -> dict:
        return {
            "content": _("**%(session)s**: the GM nudges %(names)s to post in turn %(number)s.")
            % {"session": session.title, "names": ", ".join(characters), "number": turn.number},
            "title": session.title,
            "url": absolute(reverse("diary:session", args=[session.pk])),
        }

    announce(session.pk, "nudge", message)


def announce_test(session: GameSession) -> None:
    def message() -> dict:
        return {
            "content": _("**%(session)s**: the webhook works; this channel will hear of play.")
            % {"session": session.title},
            "title": session.title,
            "url": absolute(reverse("diary:session", args=[session.pk])),
        }

    announce(session.pk, TEST_EVENT, message)
