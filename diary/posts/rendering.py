"""The diary's posts rendered once: each post's head and body (templates/diary/
session_detail.html#post_body), cached under a digest of every value it shows.

The key is the content itself (fields, names, the viewer's one flag that changes it, the
language and time zone), not an id to invalidate: an edit, a hide, a renamed character or a
viewer who may not read a hidden post's text is another key, so a cached body is never
stale or another viewer's. The post's links and forms (its footer: the viewer's own flags
and a CSRF token) are rendered per request."""

from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.translation import get_language

from diary.eyes.reading import NOBODY, Reader, visible_html
from diary.live.page_cache import memo


def post_body_html(
    post,
    *,
    gm_id: int,
    can_see_content: bool,
    co_gm_ids: frozenset[int] = frozenset(),
    reader: Reader = NOBODY,
) -> str:
    """`co_gm_ids`: the session's co-GMs, whose posts are marked as a co-GM's. `reader`:
    whose eyes the text is for (diary.eyes): the narration in the key is what they read."""
    co_gm = post.author_id in co_gm_ids and post.author_id != gm_id
    narration_html = visible_html(post, reader)
    shown = (
        post.pk,
        post.created_at,
        post.edited_at,
        post.hidden_at,
        str(post.hidden_by) if post.hidden_by_id else "",
        post.hidden_reason,
        str(post.author),
        post.author_id == gm_id,
        co_gm,
        post.character.name if post.character_id else None,
        # A new portrait is a new (content-hash) name, so it shows at once.
        post.character.portrait.name if post.character_id else None,
        narration_html,
        post.nc_note,
        post.move_metres,
        post.move_mounted,
        post.move_actions,
        post.played_by_gm,
        can_see_content,
        get_language(),
        timezone.get_current_timezone_name(),
    )
    return memo(
        ("post", *shown),
        lambda: render_to_string(
            "diary/session_detail.html#post_body",
            {
                "post": post,
                "narration_html": narration_html,
                "gm_id": gm_id,
                "co_gm": co_gm,
                "can_see_content": can_see_content,
            },
        ),
    )
