"""Search in the diary: posts of the sessions a user may read.

PostgreSQL gets full-text search in the `codziennik_search` configuration (migration
diary/0012_search: "simple" behind `unaccent`, since stock builds ship no Polish one), so
"zolw" finds "żółw". Plain words are matched as prefixes ("żółw" finds "żółwia", which is
most of what Polish inflection needs without a stemmer); a query using websearch syntax
("a phrase", -word, or) goes to `websearch_to_tsquery` as written. SQLite gets a simple
fallback: every word contained, compared lower-case without accents (a Python function
registered on the connection), -word excluded; no ranking, no prefixes needed.

Who finds what is the diary's own rule: the sessions SessionAccess.can_read lets in, hidden
posts only for those who may see their text (moderators). The NC note is searched with the
narration: the diary shows it to everyone who may read the post. A part for chosen eyes
(diary/eyes) is searched only by those who read every part of the post (its author, whoever
runs the session, moderators); everyone else searches the narration without its parts
(Post.narration_public), so a part's words find nothing for them, its named players too.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from django.contrib.postgres.search import SearchQuery, SearchRank, SearchVector
from django.db import connections, router
from django.db.models import BooleanField, Case, F, Func, Q, TextField, Value, When
from django.db.models.functions import Coalesce

from config.roles import is_moderator
from diary.models import READING_STATUSES, GameSession, Post, co_gm_sessions

CONFIGURATION = "codziennik_search"
# The SQLite function registered on the connection for the fallback (fold() below).
SQLITE_FOLD = "codziennik_fold"
# Letters and digits: what both databases index as a word (no "_", no operators).
WORD = re.compile(r"[^\W_]+")
# Websearch syntax: a quoted phrase, an excluded -word, an "or" between words.
WEBSEARCH_SYNTAX = re.compile(r'"|(?:^|\s)-[^\W_]|\s(?:or)\s', re.IGNORECASE)


@dataclass(frozen=True)
class ParsedQuery:
    wanted: tuple[str, ...]
    excluded: tuple[str, ...]
    websearch: bool


def parse_query(query: str) -> ParsedQuery:
    """The words to find and to leave out, and whether the user wrote websearch syntax."""
    wanted, excluded = [], []
    for token in query.split():
        words = WORD.findall(token)
        if token.startswith("-") and words:
            excluded.extend(words)
        elif token.lower() != "or":
            wanted.extend(words)
    websearch = bool(WEBSEARCH_SYNTAX.search(f" {query} "))
    return ParsedQuery(tuple(wanted), tuple(excluded), websearch)


def sessions_readable_by(user):
    """Sessions whose diary the user may read: the same rule as SessionAccess.can_read."""
    if not user.is_authenticated:
        return GameSession.objects.none()
    if is_moderator(user):
        return GameSession.objects.all()
    return GameSession.objects.filter(
        Q(gm=user)
        | Q(pk__in=co_gm_sessions(user))
        | Q(
            participations__character__owner=user,
            participations__status__in=READING_STATUSES,
        )
    ).distinct()


def posts_matching(user, query: str, *, session: GameSession | None = None):
    """Posts the user may read whose narration or NC note matches `query`: best match
    first on PostgreSQL, newest first on SQLite."""
    parsed = parse_query(query)
    if not parsed.wanted:
        return Post.objects.none()
    sessions = sessions_readable_by(user)
    if session is not None:
        sessions = sessions.filter(pk=session.pk)
    posts = Post.objects.filter(session__in=sessions.values("pk"))
    if not is_moderator(user):
        posts = posts.filter(hidden_at__isnull=True)
    posts = posts.select_related("session", "turn", "character", "author")
    # Whether this user reads every part for chosen eyes of the post: the narration they
    # search, and the snippet's reader (diary.search.presenters).
    posts = posts.annotate(reads_all_eyes=_reads_all_eyes(user))
    # Pinned to the database the router reads from (a replica, in a GET): the SQLite
    # fallback registers its function on that very connection.
    alias = router.db_for_read(Post)
    posts = posts.using(alias)
    if connections[alias].vendor == "postgresql":
        return _full_text(posts, query, parsed)
    return _contains(posts, parsed, connections[alias])


def _reads_all_eyes(user) -> Case | Value:
    if is_moderator(user):
        return Value(True, output_field=BooleanField())
    return Case(
        When(
            Q(author_id=user.pk)
            | Q(session__gm_id=user.pk)
            | Q(session_id__in=co_gm_sessions(user)),
            then=Value(True),
        ),
        default=Value(False),
        output_field=BooleanField(),
    )


# The narration a user searches: the whole of it, or without its parts for chosen eyes.
_SEARCHED = Case(
    When(reads_all_eyes=True, then=F("narration")),
    default=Coalesce(F("narration_public"), F("narration")),
    output_field=TextField(),
)


def _full_text(posts, query: str, parsed: ParsedQuery):
    if parsed.websearch:
        search = SearchQuery(query, config=CONFIGURATION, search_type="websearch")
    else:
        # Only letters and digits reach the raw tsquery: nothing the user typed is syntax.
        prefixes = " & ".join(f"{word}:*" for word in parsed.wanted)
        search = SearchQuery(prefixes, config=CONFIGURATION, search_type="raw")
    vector = SearchVector(_words(_SEARCHED), _words(F("nc_note")), config=CONFIGURATION)
    return (
        posts.annotate(found=vector, rank=SearchRank(vector, search))
        .filter(found=search)
        .order_by("-rank", "-pk")
    )


def _words(text) -> Func:
    """The text with its angle brackets as spaces: PostgreSQL's parser drops "<script>"
    whole as a tag, and a post that shows the word should be found by it."""
    return Func(text, Value("<>"), Value("  "), function="translate", output_field=TextField())


def _contains(posts, parsed: ParsedQuery, connection):
    # SQLite's LIKE folds ASCII only: both sides go through fold() so "zolw" finds "Żółw".
    connection.ensure_connection()
    connection.connection.create_function(SQLITE_FOLD, 1, _fold_or_none, deterministic=True)
    posts = posts.annotate(
        folded_narration=Func(_SEARCHED, function=SQLITE_FOLD, output_field=TextField()),
        folded_nc_note=Func(F("nc_note"), function=SQLITE_FOLD, output_field=TextField()),
    )
    for word in parsed.wanted:
        posts = posts.filter(_either_contains(fold(word)))
    for word in parsed.excluded:
        posts = posts.exclude(_either_contains(fold(word)))
    return posts.order_by("-pk")


def _either_contains(folded_word: str) -> Q:
    return Q(folded_narration__contains=folded_word) | Q(folded_nc_note__contains=folded_word)


def _fold_or_none(text: str | None) -> str | None:
    return None if text is None else fold(text)


def fold(text: str) -> str:
    """Lower case without accents, one character for one ("Żółw" → "zolw"), so a match
    found in the folded text is at the same place in the original."""
    return "".join(_fold_char(c) for c in text)


def _fold_char(char: str) -> str:
    if char in "łŁ":
        return "l"
    base = unicodedata.normalize("NFKD", char)[:1].lower()
    return base if len(base) == 1 else char
