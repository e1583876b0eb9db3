""" "Since you were last here" as plain text, for the daily digest e-mail: the same recap
the diary page shows (templates/diary/recap/recap.html), every link absolute."""

from __future__ import annotations

from django.conf import settings
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from diary.models import TurnOpenedBySite
from diary.recap.selectors import Recap


def _absolute(path: str) -> str:
    return path if path.startswith(("http://", "https://")) else settings.SITE_URL + path


def _line(text: str, url: str) -> str:
    return f"- {text}\n  {_absolute(url)}"


def _author(author) -> str:
    name = _("GM for %(name)s") % {"name": author.name} if author.gm_plays else author.name
    return f"{name} · {author.scene}" if author.scene else name


def _posts_text(recap: Recap) -> list[str]:
    if not recap.post_count:
        return []
    lines = [
        ngettext("%(count)s new post:", "%(count)s new posts:", recap.post_count)
        % {"count": recap.post_count}
    ]
    for turn in recap.turns:
        if turn.authors:
            authors = ", ".join(f"{_author(author)} ({author.count})" for author in turn.authors)
            heading = _("Turn %(number)s") % {"number": turn.number}
            lines.append(_line(f"{heading}: {authors}", turn.url))
    return lines


# Why the site opened a turn for the GM, as the diary says it (diary/deadlines).
BY_SITE = {
    TurnOpenedBySite.DEADLINE: lambda: _("The site opened this turn (the deadline passed)"),
    TurnOpenedBySite.ALL_ACTED: lambda: _("The site opened this turn (every character had acted)"),
}


def _turns_text(recap: Recap) -> list[str]:
    if not recap.opened_turns:
        return []
    lines = [_("Turns opened:")]
    for turn in recap.opened_turns:
        text = _("Turn %(number)s") % {"number": turn.number}
        if turn.deadline:
            moment = formats.date_format(timezone.localtime(turn.deadline), "DATETIME_FORMAT")
            text += " — " + _("deadline") + " " + moment
        if turn.by_site in BY_SITE:
            text += f" ({BY_SITE[turn.by_site]()})"
        lines.append(_line(text, turn.url))
    return lines


def _waited_text(recap: Recap) -> list[str]:
    if not recap.waited_turns:
        return []
    lines = [_("Turns passed on at the deadline:")]
    for turn in recap.waited_turns:
        heading = _("Turn %(number)s") % {"number": turn.number}
        names = _("the turn passed on without: %(names)s") % {"names": ", ".join(turn.waited)}
        lines.append(_line(f"{heading}: {names}", turn.url))
    return lines


def _notices_text(heading: str, notices) -> list[str]:
    return [heading, *(_line(notice.title, notice.url) for notice in notices)] if notices else []


def _items_text(heading: str, items, *, mine_word: bool = False) -> list[str]:
    if not items:
        return []
    lines = [heading]
    for item in items:
        text = f"{item.text} {_('(your character)')}" if mine_word and item.mine else item.text
        lines.append(_line(text, item.url))
    return lines


def _talk_text(recap: Recap) -> list[str]:
    if not recap.talk:
        return []
    lines = [_("Waiting for you:")]
    for talk in recap.talk:
        if not talk.whisper:
            name = _("Out of character (OOC)")
        elif talk.subject:
            name = _("Whisper “%(subject)s”") % {"subject": talk.subject}
        else:
            name = _("A whisper")
        count = ngettext("%(count)s unread message", "%(count)s unread messages", talk.count) % {
            "count": talk.count
        }
        lines.append(_line(f"{name}: {count}", talk.url))
    return lines


def recap_text(recap: Recap) -> str:
    """The recap of one session as the digest e-mail's section."""
    ledger = recap.ledger
    parts = [
        _("“%(session)s” — since you were last here:") % {"session": recap.title},
        *_posts_text(recap),
        *_turns_text(recap),
        *_waited_text(recap),
        *_notices_text(_("New announcements:"), recap.announcements),
        *_notices_text(_("New polls:"), recap.polls),
        *_items_text(_("Your characters:"), ledger.changes),
        *_items_text(_("Rolls:"), ledger.rolls, mine_word=True),
        *_items_text(_("Your roll requests:"), ledger.asks),
        *_talk_text(recap),
    ]
    if recap.first_unread_url:
        parts.append(
            _("Read on from the first unread post: %(url)s")
            % {"url": _absolute(recap.first_unread_url)}
        )
    return "\n".join(parts)
