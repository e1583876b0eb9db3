"""/health/: the load balancer's probe and the HTTP benchmark's trivial endpoint."""

import pytest
from django.urls import reverse


@pytest.mark.django_db
def test_health_answers_ok_without_database_or_session(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get(reverse("health"))
    assert response.status_code == 200
    assert response.content == b"ok"
    assert response["Content-Type"].startswith("text/plain")
    assert not response.cookies  # no session, no CSRF cookie: nothing a probe keeps


@pytest.mark.django_db
def test_health_refuses_a_post(client):
    assert client.post(reverse("health")).status_code == 405


def test_templates_are_compiled_once_per_process():
    """Production renders from Django's cached loader (the page's time is mostly
    template work; compiling it again per request would double it)."""
    from django.template import engines

    engine = engines["django"].engine
    assert not engine.debug
    assert [type(loader).__name__ for loader in engine.template_loaders] == ["Loader"]
    assert engine.template_loaders[0].__module__ == "django.template.loaders.cached"
