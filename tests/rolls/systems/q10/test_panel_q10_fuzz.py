"""No input produces a 500 or a half-made roll in the q10 panel or its requests."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls.models import Roll, RollAsk

pytestmark = pytest.mark.django_db

FIELDS = [
    "token", "mode", "post", "ask", "character", "attribute", "skill", "sources", "difficulty",
    "difficulty_value", "raises", "pool_dice_1", "pool_keep_1", "pool_reason_1",
    "circumstance_1", "circumstance_reason_1", "preview", "answer_note", "secret",
]  # fmt: skip

values = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.sampled_from(["pool", "other", "15", "50", "trait:1", "item:1", "0", "-5", "1e3", ""]),
    st.uuids().map(str),
)  # fmt: skip

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(
    data=st.dictionaries(st.sampled_from(FIELDS), values, max_size=14),
    method=st.sampled_from(["get", "post"]),
)
def test_the_q10_panel_never_fails_on_garbage(q10, client_for, data, method):
    before = Roll.objects.count()
    response = getattr(client_for(q10.gm), method)(f"/sessions/{q10.session.pk}/rolls/panel/", data)
    assert response.status_code < 500
    if method == "get" or response.status_code != 302:
        assert Roll.objects.count() == before
    else:
        from rolls.ledger.verify import verify_session

        assert verify_session(q10.session.pk).ok


@SETTINGS
@given(data=st.dictionaries(st.sampled_from(FIELDS), values, max_size=14))
def test_the_q10_request_page_never_fails_on_garbage(q10, client_for, data):
    before = RollAsk.objects.count()
    response = client_for(q10.alice).post(f"/sessions/{q10.session.pk}/rolls/ask/", data)
    assert response.status_code < 500
    if response.status_code != 302:
        assert RollAsk.objects.count() == before
