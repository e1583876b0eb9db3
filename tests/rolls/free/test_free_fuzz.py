"""The free-form roll page fed whatever hypothesis invents (never a 500, nothing
stored from a refusal; a roll made verifies, recomputed), and the preview's range holds
every total the engine rolls."""

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls import access
from rolls.engine import notation
from rolls.engine.dice import SystemDice
from rolls.engine.errors import RuleError
from rolls.models import Roll
from rolls.presenters import notation_range

pytestmark = pytest.mark.django_db

PIECES = ["2", "k", "d", "6", "%", "!", "kh", "kl", "dh", "dl", "1", "+", "-", "(", ")", " ",
          "100", "1001", "*", "/", "'", "<b>", "\x00", "ą", "OR 1=1", ";"]  # fmt: skip
expressions = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=14).map("".join),
    st.text(max_size=40),
    st.just("9" * 200),
)
values = st.one_of(st.text(max_size=90), st.integers(-(10**12), 10**12).map(str))


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    expression=expressions,
    label=values,
    extra=st.dictionaries(st.sampled_from(["character", "post", "preview", "roll"]), values),
    method=st.sampled_from(["get", "post"]),
)
def test_the_free_roll_page_never_fails_on_garbage(
    table, client_for, expression, label, extra, method
):
    before = Roll.objects.count()
    data = {"expression": expression, "label": label, **extra}
    data["token"] = access.sign_token(table.gm, table.session, uuid.uuid4())
    response = getattr(client_for(table.gm), method)(
        f"/sessions/{table.session.pk}/rolls/free/", data
    )
    assert response.status_code < 500
    if response.status_code != 302:
        assert Roll.objects.count() == before
    else:
        from rolls.ledger.verify import verify_session

        assert method == "post" and verify_session(table.session.pk, recompute=True).ok


@settings(max_examples=150, deadline=None)
@given(expression=st.lists(st.sampled_from(PIECES[:15]), min_size=1, max_size=10).map("".join))
def test_the_preview_range_holds_every_rolled_total(expression):
    try:
        parsed = notation.parse_notation(expression)
    except RuleError:
        return
    low, high = notation_range(parsed)
    for _ in range(5):
        assert low <= notation.roll_notation(parsed, SystemDice()).total <= high
