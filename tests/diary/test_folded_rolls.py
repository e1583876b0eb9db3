"""A post with a long run of rolls: the diary shows its newest rolls and folds the rest behind
"Pokaż N wcześniejszych rzutów" (rolls.selectors, rolls:post_rolls), so the page's size, its
queries and the roll rows it reads stay flat however many rolls a turn holds.

The big turn is real: a secret roll and a plain one made through the GM's panel, then copies
of the plain one chained after them (tests/scale_rolls.py), all in the GM's post; the chain
verifies."""

import html
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from diary.live import page_cache
from diary.services import post_create
from rolls.ledger.verify import verify_session
from rolls.models import Roll
from tests.rolls.test_append_costs import RollRowsRead, forum1000_roll, roll_post
from tests.scale_rolls import add_rolls

pytestmark = pytest.mark.django_db

# The speed issue's goal: a turn of 2,000 rolls made a 1.4 MB page.
PAGE_MAX_BYTES = 250_000
BIG = 2_000
SHOWN = 20  # rolls.posts.presenters.FOLD_SHOWN
FRAGMENT = 100  # rolls.posts.presenters.FOLD_PAGE
ROLL_ID = re.compile(r'id="roll-(\d+)"')


def _say(table, author, character, text):
    return post_create(
        session=table.session, author=author, character=character, narration=text, nc_note=""
    )


def grow(table, client_for, total: int):
    """The GM's post of the turn with `total` rolls in it: the first a secret one, the second
    a plain one (both through the panel), the rest copies of the second."""
    session, gm = table.session, table.gm
    post = _say(table, gm, None, "Burza nad jaskinią.")
    client = client_for(gm)
    secret = roll_post(client, gm, session, forum1000_roll(table, table.lirael, secret="on"))
    plain = roll_post(client, gm, session, forum1000_roll(table, table.lirael))
    assert secret.status_code == plain.status_code == 302
    add_rolls(session, total - 2)
    rolls = Roll.objects.filter(session=session, post__isnull=False)
    assert rolls.count() == rolls.filter(post=post).count() == total
    return post


def diary_url(table):
    return reverse("diary:session", args=[table.session.pk])


def shown_seqs(text: str) -> list[int]:
    return [int(seq) for seq in ROLL_ID.findall(text)]


def test_a_page_with_2000_rolls_in_a_post_stays_small(table, client_for):
    post = grow(table, client_for, BIG)
    seqs = list(Roll.objects.filter(post=post).order_by("seq").values_list("seq", flat=True))
    page_cache.clear()  # the first view after a change
    response = client_for(table.alice).get(diary_url(table))
    assert response.status_code == 200
    assert len(response.content) <= PAGE_MAX_BYTES, len(response.content)
    text = html.unescape(response.content.decode())
    assert shown_seqs(text) == seqs[-SHOWN:]  # the newest, in order
    assert f"Pokaż {BIG - SHOWN} wcześniejszych rzutów" in text
    assert verify_session(table.session.pk).ok


def _page_costs(client, url):
    page_cache.clear()
    reads = RollRowsRead()
    with CaptureQueriesContext(connection) as queries, connection.execute_wrapper(reads):
        response = client.get(url)
    assert response.status_code == 200
    return len(queries.captured_queries), reads.rows, len(response.content)


def test_the_page_reads_the_same_queries_and_few_roll_rows_at_30_and_2000_rolls(table, client_for):
    """The folded rolls are never loaded: counted in the query that reads the shown ones."""
    grow(table, client_for, 30)
    client = client_for(table.gm)
    url = diary_url(table)
    client.get(url)  # warm up; the reader's mark moves to the chain head
    small_queries, small_rows, _ = _page_costs(client, url)
    add_rolls(table.session, BIG - 30)
    client.get(url)  # the reader's mark moves to the new chain head (one write, once)
    large_queries, large_rows, _ = _page_costs(client, url)
    assert small_queries == large_queries
    # The shown rolls, the chain head and the turn's counts; never the folded 1,980.
    assert large_rows == small_rows <= SHOWN + 5, (small_rows, large_rows)


def fragment(client, post, **query):
    url = reverse("rolls:post_rolls", args=[post.session_id, post.pk])
    return client.get(url, query, HTTP_HX_REQUEST="true")


MORE_LINK = re.compile(r'<a [^>]*href="([^"]*posts/\d+/rolls/\?[^"]*)"')


def test_the_fold_loads_every_earlier_roll_a_hundred_at_a_time(table, client_for):
    post = grow(table, client_for, BIG)
    seqs = list(Roll.objects.filter(post=post).order_by("seq").values_list("seq", flat=True))
    client = client_for(table.alice)
    page = client.get(diary_url(table)).content.decode()
    link = html.unescape(MORE_LINK.search(page).group(1))
    loaded: list[int] = []
    pages = 0
    while link:
        pages += 1
        response = client.get(link, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
        assert len(response.content) <= PAGE_MAX_BYTES
        text = response.content.decode()
        batch = shown_seqs(text)
        assert len(batch) == FRAGMENT or not MORE_LINK.search(text)
        loaded = batch + loaded
        found = MORE_LINK.search(text)
        link = html.unescape(found.group(1)) if found else None
    assert pages == -(-(BIG - SHOWN) // FRAGMENT)
    assert loaded == seqs[:-SHOWN]  # every folded roll once, in order


def test_the_fold_shows_what_the_page_would_and_only_to_its_readers(table, client_for):
    """The fragment renders each roll as the diary does: the secret roll's commitment and no
    result for a player; an outsider gets nothing."""
    post = grow(table, client_for, 60)
    secret = Roll.objects.filter(post=post).order_by("seq").first()
    assert secret.test == "secret"
    player = client_for(table.alice)
    response = fragment(player, post, before=secret.seq + 1)
    text = html.unescape(response.content.decode())
    assert shown_seqs(text) == [secret.seq]
    assert 'data-testid="secret-commitment"' in text
    assert secret.record["secret"]["commitment"][:16] in text
    assert 'data-testid="roll-line"' not in text
    # The same roll on the diary page (its permalink unfolds it) reads the same.
    diary = html.unescape(player.get(diary_url(table), {"roll": secret.seq}).content.decode())
    start = diary.index(f'id="roll-{secret.seq}"')
    assert text[text.index(f'id="roll-{secret.seq}"') :][:600] == diary[start:][:600]
    outsider = fragment(client_for(table.outsider), post, before=secret.seq + 1)
    assert outsider.status_code in (403, 404)
    assert secret.record["secret"]["commitment"][:16] not in outsider.content.decode()


def test_the_fold_refuses_a_post_of_another_session_and_bad_bounds(table, client_for, make_session):
    post = grow(table, client_for, 30)
    client = client_for(table.gm)
    other = make_session(table.gm)
    url = reverse("rolls:post_rolls", args=[other.pk, post.pk])
    assert client.get(url, {"before": 5}).status_code == 404
    for bad in ("x", "-1", "1e9", "<script>", ""):
        response = fragment(client, post, before=bad)
        assert response.status_code == 200  # bad bounds are no bounds: the newest page
        assert len(shown_seqs(response.content.decode())) <= FRAGMENT


def test_without_javascript_the_fold_is_a_page_of_its_own(table, client_for):
    post = grow(table, client_for, 300)
    client = client_for(table.alice)
    page = client.get(diary_url(table)).content.decode()
    link = html.unescape(MORE_LINK.search(page).group(1))
    response = client.get(link)  # no HX-Request: the whole page
    text = response.content.decode()
    assert response.status_code == 200 and "<html" in text
    assert len(shown_seqs(text)) == FRAGMENT
    assert post.get_absolute_url() in html.unescape(text)  # back to the post
    assert MORE_LINK.search(text)  # and on to earlier rolls


def test_a_permalink_to_an_old_folded_roll_shows_it(table, client_for):
    post = grow(table, client_for, BIG)
    seqs = list(Roll.objects.filter(post=post).order_by("seq").values_list("seq", flat=True))
    old = Roll.objects.get(session=table.session, seq=seqs[500])
    client = client_for(table.alice)
    # The roll's own page links to it in the diary; that link unfolds the run around it.
    own = html.unescape(
        client.get(reverse("rolls:detail", args=[table.session.pk, old.seq])).content.decode()
    )
    link = re.search(rf'href="([^"]*#roll-{old.seq})"', own).group(1)
    response = client.get(link.split("#")[0])
    assert response.status_code == 200
    assert len(response.content) <= PAGE_MAX_BYTES
    text = html.unescape(response.content.decode())
    shown = shown_seqs(text)
    assert old.seq in shown and seqs[-1] in shown
    assert len(shown) <= SHOWN + FRAGMENT
    # The rest stays folded, before and after the roll, each behind its own control.
    assert len(MORE_LINK.findall(text)) == 2
