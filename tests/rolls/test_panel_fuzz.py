"""No input produces a 500 or a half-made roll: the panel fed whatever hypothesis invents."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rolls.models import Roll

pytestmark = pytest.mark.django_db

FIELDS = [
    "token", "mode", "post", "patient", "effect", "ask", "answer_note", "secret",
    "extra_action_reason",
    *(f"{side}-{name}" for side in "ab" for name in (
        "character", "test", "attribute", "attribute_2", "skill", "sources", "action_value",
        "action_reason", "gm_difficulty", "gm_difficulty_reason", "gm_bonus", "gm_bonus_reason",
    )),
]  # fmt: skip

values = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
    st.sampled_from(["attribute", "combined", "opposed", "skill", "healing", "initiative",
                     "half_attribute", "trait:1", "item:1", "0", "-50", "1e3", "", "\x00"]),
    st.uuids().map(str),
)  # fmt: skip


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.dictionaries(st.sampled_from(FIELDS), values, max_size=14),
    method=st.sampled_from(["get", "post"]),
)
def test_panel_never_fails_on_garbage(table, client_for, data, method):
    before = Roll.objects.count()
    client = client_for(table.gm)
    url = f"/sessions/{table.session.pk}/rolls/panel/"
    response = getattr(client, method)(url, data)
    assert response.status_code < 500
    if method == "get" or response.status_code != 302:
        assert Roll.objects.count() == before
    else:
        # A redirect after a POST is a made (or replayed) roll, and it verifies.
        from rolls.ledger.verify import verify_session

        assert verify_session(table.session.pk).ok
