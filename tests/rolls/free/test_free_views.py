"""The GM's free-form roll page (rolls/free/views.py): preview, roll, refusals."""

import uuid

import pytest
from django.test import Client
from django.urls import reverse

from rolls import access
from rolls.ledger import verify as ledger
from rolls.models import Roll
from tests.conftest import polish

pytestmark = pytest.mark.django_db


def url(t):
    return reverse("rolls:free", args=[t.session.pk])


def logged_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="pl")
    client.force_login(user)
    return client


def form(t, *, by=None, token=None, **fields):
    data = {"expression": "4k6kh3+1", "label": "Obrażenia od topora", "character": "", "post": ""}
    data.update(fields)
    data["token"] = access.sign_token(by or t.gm, t.session, token or uuid.uuid4())
    return data


def test_the_gm_rolls_and_the_post_shows_every_die(table):
    response = logged_in(table.gm).post(url(table), form(table, character=table.lirael.pk))
    assert response.status_code == 302
    roll = Roll.objects.get(session=table.session)
    assert roll.record["result"]["system"] == "free"
    assert (roll.test, roll.is_action) == ("notation", False)
    assert roll.post.author == table.gm and roll.record["characters"]["a"]["name"] == "Lirael"
    page = logged_in(table.alice).get(response["Location"]).content.decode()
    assert page.count('data-testid="free-die"') == 4
    assert page.count(f"({polish('dropped')})") == 1
    assert f'data-testid="free-total">{roll.record["result"]["total"]}<' in page
    assert "Obrażenia od topora" in page and "4k6kh3+1" in page
    assert ledger.verify_session(table.session.pk, recompute=True).ok


def test_the_roll_detail_page_and_the_audit_show_it(table):
    logged_in(table.gm).post(url(table), form(table, expression="2k6+3", character=table.lirael.pk))
    detail = logged_in(table.alice).get(reverse("rolls:detail", args=[table.session.pk, 1]))
    assert detail.status_code == 200
    assert detail.content.decode().count('data-testid="free-die"') == 2
    audit = logged_in(table.moderator).get(reverse("rolls:audit", args=[table.session.pk]))
    assert audit.status_code == 200 and 'data-testid="free-roll"' in audit.content.decode()


def test_the_htmx_preview_says_what_it_means(table):
    response = logged_in(table.gm).get(
        url(table), {"expression": "3k6kh2+2"}, HTTP_HX_REQUEST="true"
    )
    text = response.content.decode()
    assert response.status_code == 200 and 'data-testid="free-summary"' in text
    assert "3 kości k6" in text and "zachowaj 2 najwyższe" in text and "4–14" in text
    assert "<html" not in text  # only the preview's fragment


def test_the_htmx_preview_shows_the_polish_refusal(table):
    response = logged_in(table.gm).get(url(table), {"expression": "2d6x3"}, HTTP_HX_REQUEST="true")
    text = response.content.decode()
    assert 'data-testid="free-preview-error"' in text and "mnożenie" in text.lower()


def test_the_preview_button_without_javascript_rolls_nothing(table):
    response = logged_in(table.gm).post(url(table), form(table, preview="1"))
    assert response.status_code == 200 and 'data-testid="free-summary"' in response.content.decode()
    assert not Roll.objects.exists()


def test_a_preview_never_carries_a_rollers_seed_on_to_the_roll(table):
    """A seed that came with a preview (a browser strips it; a script may not) is not put
    back into the form the preview shows: the roll that follows gets a fresh one."""
    seed = "ab" * 16
    response = logged_in(table.gm).post(url(table), form(table, preview="1", client_seed=seed))
    page = response.content.decode()
    assert response.status_code == 200 and 'name="client_seed"' in page
    assert seed not in page


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"expression": "1d6+" * 30}, "expression", "znaków"),
        ({"expression": "101d6"}, "expression", "kości"),
        ({"expression": "2d1"}, "expression", "ścian"),
        ({"expression": "2d1001"}, "expression", "ścian"),
        ({"expression": "rzut!"}, "expression", "znaku"),
        ({"expression": "<script>alert(1)</script>"}, "expression", "znaku"),
        ({"expression": "   "}, "expression", "wymagane"),
        ({"label": "x" * 81}, "label", "81"),
        ({"label": ""}, "label", "wymagane"),
        ({"character": "999999"}, "character", "wybierz"),
        ({"post": "999999"}, "post", "wybierz"),
    ],
)
def test_bad_input_is_refused_next_to_its_field(table, fields, field, words):
    response = logged_in(table.gm).post(url(table), form(table, **fields))
    assert response.status_code == 400
    text = response.content.decode()
    assert f'id="id_{field}_error"' in text
    error = text.split(f'id="id_{field}_error">', 1)[1].split("</p>", 1)[0]
    assert words in error.lower()
    assert "<script>alert" not in text
    assert not Roll.objects.exists()


def test_a_replayed_token_makes_no_second_roll(table):
    token = uuid.uuid4()
    client = logged_in(table.gm)
    first = client.post(url(table), form(table, token=token))
    again = client.post(url(table), form(table, token=token))
    assert first.status_code == again.status_code == 302
    assert first["Location"] == again["Location"]
    other = client.post(url(table), form(table, token=token, expression="1d20"))
    assert other.status_code == 400
    assert Roll.objects.filter(session=table.session).count() == 1


def test_a_token_issued_to_someone_else_is_refused(table):
    data = form(table)
    data["token"] = access.sign_token(table.alice, table.session, uuid.uuid4())
    assert logged_in(table.gm).post(url(table), data).status_code == 400
    assert not Roll.objects.exists()


@pytest.mark.parametrize("who", ["alice", "moderator"])
def test_players_and_moderators_are_refused(table, who):
    user = getattr(table, who)
    client = logged_in(user)
    assert client.get(url(table)).status_code == 403
    assert client.post(url(table), form(table, by=user)).status_code == 403
    assert not Roll.objects.exists()


def test_an_outsider_does_not_learn_the_session_exists(table):
    assert logged_in(table.outsider).get(url(table)).status_code == 404


def test_the_diary_links_the_gm_only(table):
    diary = reverse("diary:session", args=[table.session.pk])
    assert 'data-testid="free-roll-link"' in logged_in(table.gm).get(diary).content.decode()
    assert 'data-testid="free-roll-link"' not in logged_in(table.alice).get(diary).content.decode()


def test_a_link_with_an_expression_opens_the_form_with_its_preview(table):
    response = logged_in(table.gm).get(url(table), {"expression": "2k6+3"})
    text = response.content.decode()
    assert response.status_code == 200 and 'value="2k6+3"' in text
    assert "2 kości k6, +3; wynik 5–15" in text


def test_the_gm_of_a_q10_session_rolls_free_form_dice_too(q10):
    response = logged_in(q10.gm).post(url(q10), form(q10, expression="1k20"))
    assert response.status_code == 302
    roll = Roll.objects.get(session=q10.session)
    assert roll.test == "notation" and 1 <= roll.record["result"]["total"] <= 20
    page = logged_in(q10.gm).get(response["Location"]).content.decode()
    assert page.count('data-testid="free-die"') == 1


def test_a_label_with_html_is_shown_as_text(table):
    label = '<img src=x onerror="alert(1)">'
    response = logged_in(table.gm).post(url(table), form(table, label=label))
    page = logged_in(table.alice).get(response["Location"]).content.decode()
    assert label not in page and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page


def test_a_secret_free_roll_shows_only_its_commitment_until_the_gm_reveals_it(table):
    """A hidden table roll (an ambush?) — the players see the commitment; after the
    reveal every die, and the chain verifies with the revealed record recomputed."""
    gm = logged_in(table.gm)
    response = gm.post(url(table), form(table, expression="3k6kh2", secret="on"))
    (secret,) = Roll.objects.filter(session=table.session)
    assert response.status_code == 302
    assert response["Location"] == reverse("rolls:detail", args=[table.session.pk, secret.seq])
    assert secret.test == "secret" and "result" not in secret.record
    own_page = gm.get(response["Location"]).content.decode()
    assert own_page.count('data-testid="free-die"') == 3  # the GM sees the hidden dice
    diary = logged_in(table.alice).get(secret.post.get_absolute_url()).content.decode()
    assert 'data-testid="free-die"' not in diary
    assert secret.record["secret"]["commitment"][:16] in diary

    reveal = gm.post(
        reverse("rolls:reveal", args=[table.session.pk, secret.seq]), {"confirm": "yes"}
    )
    assert reveal.status_code == 302
    diary = logged_in(table.alice).get(secret.post.get_absolute_url()).content.decode()
    assert diary.count('data-testid="free-die"') == 3
    assert diary.count(f"({polish('dropped')})") == 1
    assert ledger.verify_session(table.session.pk, recompute=True).ok


def test_the_preview_shows_the_exact_odds_and_the_chance_of_a_target(table):
    response = logged_in(table.gm).get(
        url(table), {"expression": "4d6k3", "target": "15"}, HTTP_HX_REQUEST="true"
    )
    text = response.content.decode()
    assert 'data-testid="free-odds"' in text
    assert "12,24" in text  # the mean, 15869/1296
    assert "23,15 %" in text and 'title="25/108"' in text  # P(≥ 15) = 300/1296
    too_large = logged_in(table.gm).get(
        url(table), {"expression": "100d1000"}, HTTP_HX_REQUEST="true"
    )
    assert 'data-testid="free-odds-too-large"' in too_large.content.decode()


def test_a_refusal_counts_the_position_in_the_text_as_typed(table):
    response = logged_in(table.gm).post(url(table), form(table, expression="   1d6*2x"))
    assert response.status_code == 400
    assert "na znaku 9" in response.content.decode()
