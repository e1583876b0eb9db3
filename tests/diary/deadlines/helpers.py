"""What the deadline's tests share: a session's rule set through the service the settings
page uses, and a turn whose deadline has passed (time moved on, as a test cannot wait)."""

import html
import re
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from diary.models import GameSession, Turn
from diary.services import post_create, session_update, turn_set_deadline


def set_rule(table, rule: str, *, auto: bool = False) -> None:
    session_update(session=table.session, by=table.gm, deadline_rule=rule, auto_next_turn=auto)
    table.session.refresh_from_db()


def current_turn(table) -> Turn:
    return GameSession.objects.get(pk=table.session.pk).current_turn


def deadline_passes(table, *, length=timedelta(days=2), ago=timedelta(hours=1)) -> Turn:
    """The current turn gets a deadline `length` after its opening, then time moves on past
    it by `ago`: the turn opened `length + ago` ago."""
    turn_set_deadline(session=table.session, by=table.gm, deadline=timezone.now() + length)
    now = timezone.now()
    turn = current_turn(table)
    Turn.objects.filter(pk=turn.pk).update(opened_at=now - length - ago, deadline=now - ago)
    table.session.refresh_from_db()
    return current_turn(table)


def write(table, who, character, text="Idę dalej."):
    return post_create(
        session=table.session, author=who, character=character, narration=text, nc_note=""
    )


def diary(client, table, **query) -> str:
    url = reverse("diary:session", args=[table.session.pk])
    return html.unescape(client.get(url, query).content.decode())


def texts(body: str, testid: str) -> list[str]:
    """The text of each element with this data-testid, tags and extra spaces left out."""
    found = re.findall(rf'data-testid="{testid}"[^>]*>(.*?)</(?:p|li|span|dd)>', body, re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", text).split()) for text in found]
