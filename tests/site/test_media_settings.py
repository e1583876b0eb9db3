"""MEDIA_STORAGE picks the portraits' storage; a CDN's MEDIA_URL joins the CSP."""

import json
import os
import subprocess
import sys

from django.conf import settings


def _settings_in_a_fresh_process(**env) -> dict:
    script = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps({'default': s.STORAGES['default'], "
        "'img': s.SECURE_CSP['img-src']}))"
    )
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "x"}
    environment.update(env)
    done = subprocess.run(
        [sys.executable, "-c", script], env=environment, capture_output=True, text=True,
        cwd=settings.BASE_DIR, timeout=60,
    )  # fmt: skip
    return {"code": done.returncode, "out": done.stdout, "err": done.stderr}


def test_object_storage_and_its_cdn_come_from_the_environment():
    s3 = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {"bucket_name": "portrety"}}
    got = _settings_in_a_fresh_process(
        MEDIA_STORAGE=json.dumps(s3), MEDIA_URL="https://cdn.example/portrety/"
    )
    assert got["code"] == 0, got["err"]
    read = json.loads(got["out"])
    assert read["default"] == s3
    assert "https://cdn.example" in read["img"]


def test_a_media_storage_that_is_not_json_stops_the_start():
    got = _settings_in_a_fresh_process(MEDIA_STORAGE="storages.backends.s3.S3Storage")
    assert got["code"] != 0 and "MEDIA_STORAGE is not JSON" in got["err"]


def test_by_default_portraits_are_files_under_media_root():
    assert settings.STORAGES["default"]["BACKEND"].endswith("FileSystemStorage")
    assert settings.SECURE_CSP["img-src"][-1] == "data:"  # no other origin
