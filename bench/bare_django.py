"""The baseline of the HTTP benchmark: bare Django answering "ok", nothing else.

No middleware, no database, no templates: one function view. bench/http_bench.py serves it
with gunicorn under the same worker count and timeout as `make serve`, so the app's cells
can be read as fractions of what Django itself costs on this machine, in the same run.

    .venv/bin/gunicorn bench.bare_django:application --bind 127.0.0.1:8001
"""

from django.conf import settings
from django.core.wsgi import get_wsgi_application
from django.http import HttpResponse
from django.urls import path

settings.configure(
    DEBUG=False,
    SECRET_KEY="bare-django-benchmark",
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=[],
    INSTALLED_APPS=[],
    DATABASES={},
    USE_TZ=True,
)


def ok(request):
    return HttpResponse("ok", content_type="text/plain")


# "/health/" too: the benchmark's drain() waits on it before every cell.
urlpatterns = [path("", ok), path("health/", ok)]

application = get_wsgi_application()
