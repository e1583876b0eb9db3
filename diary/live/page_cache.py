"""The diary page's cache: per process (locmem, alias "diary"), never stale by construction.

Two kinds of entries (docs/performance.md, "The diary page and the live poll"):

- reads that change only when the session's activity marker moves (every post, edit, hide,
  turn, deadline, roll, entry, request and NPC change bumps it in the same transaction),
  keyed by the marker: a change makes a new key, and the old entry is never read again;
- rendered HTML keyed by a digest of everything it is rendered from (a post's fields, the
  names it shows, the viewer's flags that change it, the language; a roll's hash, which
  covers its whole record): an edit, a hide or another viewer's role is another key.

Nothing here is a copy that has to be invalidated, so a per-process cache is enough: each
worker fills its own, and a miss costs the queries it saves.
"""

import hashlib

from django.core.cache import caches

ALIAS = "diary"
# Part of every key: bump it when a cached template or entry changes shape, so a cache that
# outlives a deploy (a shared backend) never serves the old shape.
VERSION = 1

_MISSING = object()


def cache_key(*parts) -> str:
    raw = "\x1f".join(str(part) for part in parts)
    return f"d{VERSION}:{hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()}"


def memo(parts: tuple, build):
    """The value cached under these key parts, built (and cached) on a miss."""
    cache = caches[ALIAS]
    key = cache_key(*parts)
    value = cache.get(key, _MISSING)
    if value is _MISSING:
        value = build()
        cache.set(key, value)
    return value


def clear() -> None:
    caches[ALIAS].clear()
