"""Loaded as a pytest plugin (`-p tests.environment`) before pytest-django sets Django up."""

import os

# The settings refuse to start without a key when DEBUG is off; tests need no real secret.
os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
