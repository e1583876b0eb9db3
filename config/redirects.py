"""Going back to the page a form was opened from: a `next` the request names is followed only
when it is a path of this site, never another site (no open redirect)."""

from urllib.parse import urlsplit, urlunsplit

from django.http import QueryDict
from django.utils.http import url_has_allowed_host_and_scheme


def local_path(request, target: str | None) -> str:
    """`target` when it is a path of this site ("/sessions/5/join/"), else "": a full URL,
    a scheme-relative "//host" or a backslash trick is refused as another site."""
    target = target or ""
    if target.startswith("/") and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def with_query(path: str, **params) -> str:
    """`path` with these query parameters set (replacing any of the same name)."""
    parts = urlsplit(path)
    query = QueryDict(parts.query, mutable=True)
    for name, value in params.items():
        query[name] = str(value)
    return urlunsplit(parts._replace(query=query.urlencode()))
