"""Where the router sends each kind of query, seen from the server that answers it.

Run as `python -m tests.load.replica_probe` with the replica test's environment
(DATABASE_URL the primary, DATABASE_REPLICA_URLS its streaming replica;
tests/load/test_replica.py does). Each case runs inside the real `ReplicaMiddleware`
(or outside any request) and asks the connection the router chose whether it is a
standby (`pg_is_in_recovery()`). Prints one JSON object: case → true (replica) or false.
"""

import json
import os

import django


def main() -> dict:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.db import connections, router, transaction
    from django.http import HttpResponse
    from django.test import RequestFactory

    from config.db_router import ReplicaMiddleware
    from diary.models import GameSession, Post

    def on_standby(alias: str) -> bool:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT pg_is_in_recovery()")
            return cursor.fetchone()[0]

    seen: dict[str, bool] = {"outside a request: read": on_standby(router.db_for_read(Post))}

    def get_view(request):
        seen["GET: read"] = on_standby(router.db_for_read(Post))
        seen["GET: queryset"] = on_standby(GameSession.objects.all().db)
        seen["GET: select_for_update"] = on_standby(GameSession.objects.select_for_update().db)
        with transaction.atomic():
            seen["GET: read inside atomic"] = on_standby(router.db_for_read(Post))
        seen["GET: write"] = on_standby(router.db_for_write(Post))
        return HttpResponse()

    def post_view(request):
        seen["POST: read"] = on_standby(router.db_for_read(Post))
        return HttpResponse()

    factory = RequestFactory()
    ReplicaMiddleware(get_view)(factory.get("/"))
    ReplicaMiddleware(post_view)(factory.post("/"))
    return seen


if __name__ == "__main__":
    print(json.dumps(main()))
