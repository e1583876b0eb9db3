"""Every page that shows a session's rolls and their statistics survives every feature of the
free-form notation: one session rolls each feature (fair dice, through the page, as the site
does) and each page opens for whom it is meant, with statistics that count every die drawn."""

import uuid
from collections import Counter

import pytest
from django.test import Client
from django.urls import reverse

from diary.models import GameSession
from rolls import access
from rolls.free.selectors import free_roll_stats
from rolls.ledger import verify as ledger
from rolls.models import Roll

pytestmark = [pytest.mark.django_db, pytest.mark.fair_dice]

# One expression a feature (docs/rules.md, "free — dice notation"), Fate dice among them.
FEATURES = [
    "2k6+3",
    "d%",
    "k100-1d4",
    "4dF",
    "3dF+1",
    "2dFr<0",
    "4dF>=1",
    "1d6 − 1",
    "(1d8[cięcie]+2)*2",
    "1d6/2",
    "-1d6/2",
    "1d4*1d4",
    "{1d20, 1d20}kh1",
    "{1d6+1, 2d4, 1d8}kl2",
    "{1d6, 1d4}",
    "{1d4, -1d6}dh1",
    "4d6!kh3",
    "3d6!",
    "2d6!!",
    "2d4>=3!!",
    "2d6r1",
    "2d6ro<3",
    "1d6r>=5",
    "4d6k3",
    "4d6d1",
    "2d20kl1",
    "3d6dh1",
    "10d10>=8f1",
    "5d10>7",
    "6d6<3",
    "6d6<=2",
    "4d4=4",
    "1d20[atak] + 1d6[ogień]",
    "1d6!>=5",
    "2d6!>=5>=4",
    "3d6!>=5kh2",
    "2d6!!>4",
    "1d6!=3",
    "1d6>=4!",
    "{4d10}kl1",
]


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="pl")
    client.force_login(user)
    return client


def roll_on_the_page(t, by, expression):
    data = {"expression": expression, "label": "Cecha", "character": "", "post": ""}
    data["token"] = access.sign_token(by, t.session, uuid.uuid4())
    response = logged_in(by).post(reverse("rolls:free", args=[t.session.pk]), data)
    assert response.status_code == 302, (expression, response.content.decode()[:2000])


def drawn(session) -> Counter:
    """(roller, die size) → dice drawn, read from the stored results themselves."""
    counts: Counter = Counter()

    def walk(terms, who):
        for term in terms:
            if term["kind"] == "dice":
                counts[who, term["faces"]] += len(term["dice"])
            for part in [*term.get("factors", ()), *term.get("items", ())]:
                walk(part["terms"], who)

    for roll in Roll.objects.filter(session=session, test="notation"):
        walk(roll.record["result"]["terms"], roll.record["rolled_by"]["username"])
    return counts


def test_every_page_survives_every_feature_and_counts_every_die(table):
    GameSession.objects.filter(pk=table.session.pk).update(players_free_rolls=True)
    for expression in FEATURES:
        roll_on_the_page(table, table.gm, expression)
    roll_on_the_page(table, table.alice, "4dF+1d6")  # a player's Fate dice beside numbered ones
    assert Roll.objects.filter(session=table.session, test="notation").count() == len(FEATURES) + 1
    assert ledger.verify_session(table.session.pk, recompute=True).ok

    # The statistics count every die drawn, nested ones (groups, products) included, each
    # die size apart and Fate dice as their own kind, against a fair die's mean.
    stats = {s.username: s for s in free_roll_stats(table.session)}
    counted = Counter()
    for username, row in stats.items():
        for size, count, mean, fair in row.dice:
            counted[username, size] += count
            low, high = (-1, 1) if size == "F" else (1, size)
            assert low <= mean <= high
            assert fair == (low + high) / 2
    every_draw = sum(len(r.record["result"]["dice"]) for r in Roll.objects.filter(test="notation"))
    assert sum(drawn(table.session).values()) == every_draw
    assert counted == drawn(table.session)
    assert stats["mg"].rolls == len(FEATURES) and stats["alicja"].rolls == 1
    assert [size for size, *_ in stats["alicja"].dice] == [6, "F"]

    session = table.session.pk
    audit = logged_in(table.moderator).get(reverse("rolls:audit", args=[session]))
    text = audit.content.decode()
    assert audit.status_code == 200
    assert 'data-testid="free-roll-stats"' in text and ">kF<" in text
    rows = sum(len(row.dice) for row in stats.values())
    assert text.count('data-testid="free-stats-row"') == rows
    assert text.count('data-testid="free-roll"') == len(FEATURES) + 1
    # The pages that show the same rolls: the diary, each roll's page, the ledger, the archive.
    for user in (table.gm, table.moderator, table.alice):
        diary = logged_in(user).get(reverse("diary:session", args=[session]))
        assert diary.status_code == 200
    gm = logged_in(table.gm)
    for roll in Roll.objects.filter(session=table.session, test="notation"):
        detail = gm.get(reverse("rolls:detail", args=[session, roll.seq]))
        assert detail.status_code == 200 and 'data-testid="free-total"' in detail.content.decode()
    assert gm.get(reverse("rolls:export", args=[session])).status_code == 200
    assert gm.get(reverse("rolls:archive", args=[session])).status_code == 200
