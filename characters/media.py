"""Serving uploaded portraits from MEDIA_ROOT.

WhiteNoise serves static files only, and `make serve` has no other file server, so this
small view serves media under both `make run` and `make serve`. Names are content hashes
(characters/portraits.py), so a file never changes under its name: cached for a year.
Only names the portrait checker writes are matched by the URL, so no path can escape
MEDIA_ROOT. On object storage (docs/deploy.md) MEDIA_URL points elsewhere and this is unused.
"""

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.views.decorators.http import require_GET


@require_GET
def media_file(request, path: str):
    if not default_storage.exists(path):
        raise Http404
    response = FileResponse(default_storage.open(path, "rb"), content_type="image/webp")
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = "default-src 'none'"
    return response
