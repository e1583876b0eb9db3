"""Loaded as a pytest plugin (`-p tests.environment`) before pytest-django sets Django up."""

import os

# The settings refuse to start without a key when DEBUG is off; tests need no real secret.
os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
# The test client and the live server speak plain HTTP; production redirects it to HTTPS
# (tests/site/test_deploy_check.py runs the documented production settings).
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
