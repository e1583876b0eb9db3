"""A poll's options as people read them: words, or (a scheduling poll) a moment shown in the
site's time zone inside `<time datetime="…">` with its offset, which static/js/local_time.js
rewrites into the reader's own time zone, named."""

from __future__ import annotations

from django.utils import formats, timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString

from diary.models import PollOption


def moment_html(moment) -> SafeString:
    """A moment for every reader: the site's time and zone without JavaScript, the reader's
    with it (the `datetime` attribute carries the offset, so the browser knows the moment)."""
    local = timezone.localtime(moment)
    return format_html(
        '<time datetime="{}" data-local-time>{} ({})</time>',
        local.isoformat(),
        formats.date_format(local, "DATETIME_FORMAT"),
        timezone.get_current_timezone_name(),
    )


def option_label(option: PollOption) -> SafeString | str:
    if option.starts_at is not None:
        return moment_html(option.starts_at)
    return option.text
