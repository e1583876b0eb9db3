"""Codziennik settings: one module, driven by the environment.

Every variable read here is listed, with its default, in README.md's
"Configuration" table; docs/deploy.md says how production sets them.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_flag("DEBUG")

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    # Development only: a fixed key so sessions survive restarts of `make run`.
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")

INSTALLED_APPS = [
    # Our apps first: rolls overrides `flush` so the test database can be emptied
    # despite the ledger's delete-refusing triggers (see rolls/ledger/triggers.py).
    "rolls",
    "diary",
    "characters",
    # The demo data for `make run` (`seed_demo`); no app imports it.
    "demo",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    # The tasks framework's database backend and its worker (`db_worker`).
    "django_tasks_db",
    # The rate-limit counters' table (config/rate_limits.py).
    "config.counters",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves collectstatic's output in production (before anything that needs a session).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "config.middleware.ChosenLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a locked-out log-in into the 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "diary.notifications.context_processors.notifications",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DEFAULT_SQLITE_PATH = BASE_DIR / "var" / "db.sqlite3"
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DEFAULT_SQLITE_PATH}",
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "0")),
        # A persistent connection (make serve: CONN_MAX_AGE=60) is checked before reuse.
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DEFAULT_SQLITE_PATH.parent.mkdir(exist_ok=True)
    # Wait for the write lock instead of failing at once when two requests write.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "transaction_mode": "IMMEDIATE"}
    )

# Streaming replicas of the primary (PostgreSQL), comma-separated URLs: GET and HEAD
# requests read from one of them, writes and transactions use the primary, and a browser
# that just wrote reads the primary for READ_YOUR_WRITES_SECONDS (config/db_router.py,
# docs/deploy.md). The test runner points them at the primary's test database (MIRROR).
DATABASE_REPLICA_URLS = env_list("DATABASE_REPLICA_URLS", "")
for number, url in enumerate(DATABASE_REPLICA_URLS, start=1):
    DATABASES[f"replica{number}"] = dj_database_url.parse(
        url,
        conn_max_age=DATABASES["default"]["CONN_MAX_AGE"],
        conn_health_checks=True,
    ) | {"TEST": {"MIRROR": "default"}}
# Behind pgbouncer in transaction mode a cursor cannot outlive its transaction: Django's
# .iterator() must fetch in chunks client-side (docs/deploy.md, "Past one machine").
if env_flag("PGBOUNCER_TRANSACTION_MODE"):
    for database in DATABASES.values():
        database["DISABLE_SERVER_SIDE_CURSORS"] = True
# The live poll's listener (diary/live/listener.py) holds one connection per worker that must
# stay on one server session: LISTEN through pgbouncer in transaction mode hears nothing, so
# there it is off (every poll then reads the marker) unless LIVE_POLL_LISTEN_URL names the
# primary directly (docs/deploy.md).
LIVE_POLL_LISTEN_URL = os.environ.get("LIVE_POLL_LISTEN_URL", "")
LIVE_POLL_LISTEN = env_flag(
    "LIVE_POLL_LISTEN",
    bool(LIVE_POLL_LISTEN_URL) or not env_flag("PGBOUNCER_TRANSACTION_MODE"),
)
# Well above a healthy replica's lag (milliseconds; seconds under a burst of writes), and
# short enough that an author's reads return to the replicas soon after they stop writing.
READ_YOUR_WRITES_SECONDS = int(os.environ.get("READ_YOUR_WRITES_SECONDS", "15"))
if DATABASE_REPLICA_URLS:
    DATABASE_ROUTERS = ["config.db_router.PrimaryReplicaRouter"]
    # Before the session and auth middleware, so their reads are routed too.
    MIDDLEWARE.insert(
        MIDDLEWARE.index("django.contrib.sessions.middleware.SessionMiddleware"),
        "config.db_router.ReplicaMiddleware",
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes first refuses a locked-out client, then Django's model backend logs in.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "pl"
LANGUAGES = [("pl", _("Polish")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Warsaw"
USE_I18N = True
USE_TZ = True


def _media_storage(configured: str) -> dict:
    """The portraits' storage. Empty: files under MEDIA_ROOT. Otherwise a JSON
    object as Django's STORAGES takes it (docs/deploy.md: django-storages' S3 backend)."""
    if not configured:
        return {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    import json

    try:
        storage = json.loads(configured)
    except ValueError as error:
        raise ImproperlyConfigured(f"MEDIA_STORAGE is not JSON: {error}") from None
    if not isinstance(storage, dict) or not isinstance(storage.get("BACKEND"), str):
        raise ImproperlyConfigured('MEDIA_STORAGE must be a JSON object with a "BACKEND"')
    return storage


def _media_origin(media_url: str) -> list[str]:
    """A CDN's origin for the CSP's img-src when portraits are served from elsewhere."""
    from urllib.parse import urlsplit

    parts = urlsplit(media_url)
    return [f"{parts.scheme}://{parts.netloc}"] if parts.scheme and parts.netloc else []


STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# `collectstatic` writes content-hashed, pre-compressed copies; WhiteNoise serves them
# with a one-year immutable Cache-Control. (With DEBUG on, the plain names are used.)
STORAGES = {
    "default": _media_storage(os.environ.get("MEDIA_STORAGE", "")),
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Uploaded portraits: files under MEDIA_ROOT, served by characters.media.media_file
# (WhiteNoise serves static files only). On object storage (MEDIA_STORAGE, docs/deploy.md)
# MEDIA_URL is the CDN's address: the local view is then not routed.
MEDIA_URL = os.environ.get("MEDIA_URL", "/media/")
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "var" / "media"))
# Uploads past 2.5 MB go to a temporary file, never all into memory; the portrait limit is
# 5 MB, and characters.portraits.PortraitSizeLimit stops keeping an upload past it.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
FILE_UPLOAD_PERMISSIONS = 0o644

# Django's built-in Content Security Policy: only our own origin, scripts by nonce.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:", *_media_origin(MEDIA_URL)],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "object-src": [CSP.NONE],
}

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    # HTTPS only (the default in production): secure cookies and a redirect of plain HTTP.
    # `SECURE_COOKIES=0` is for plain-HTTP tests on loopback.
    SESSION_COOKIE_SECURE = env_flag("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT", SESSION_COOKIE_SECURE)

# Behind a TLS-terminating proxy: which header says the request was HTTPS, which
# origins may POST (e.g. https://codziennik.example), and HSTS once HTTPS is sure.
if os.environ.get("SECURE_PROXY_SSL_HEADER"):
    SECURE_PROXY_SSL_HEADER = (os.environ["SECURE_PROXY_SSL_HEADER"], "https")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0"))
# With HSTS on: subdomains too, and eligible for the browsers' preload list (`0` to opt out).
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_flag("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_flag("SECURE_HSTS_PRELOAD", True)

# Rate limits ("count/period", period s, m, h or d): posts per user and per client
# address, drafts' saves per user, sign-ups per address, password changes per user.
# Refusals answer 429. The counters live in a table of the database (config/rate_limits.py,
# one statement a hit) so every worker shares them.
DEFAULT_RATE_LIMITS = {
    "post_user": "10/m",
    "post_ip": "30/m",
    "draft_user": "30/m",
    "signup_ip": "5/h",
    "password_change_user": "10/h",
}
RATE_LIMITS = {
    name: os.environ.get(f"RATE_LIMIT_{name.upper()}", rate)
    for name, rate in DEFAULT_RATE_LIMITS.items()
}
CACHES = {
    # Nothing the workers must share lives in a cache: the rate-limit counters have their
    # own table (above). This is Django's default, named so it is not mistaken for one.
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "codziennik-default",
    },
    # The diary page's reads and rendered HTML (diary/live/page_cache.py), per process: every
    # key changes with what it caches, so workers need not share it (docs/performance.md,
    # "The diary page and the live poll").
    "diary": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "codziennik-diary",
        "TIMEOUT": 600,
        "OPTIONS": {"MAX_ENTRIES": 20_000, "CULL_FREQUENCY": 4},
    },
}
# Behind a proxy every request comes from the proxy's address: name the META key
# that holds the client's (e.g. HTTP_X_REAL_IP, set by the proxy, never by clients).
RATELIMIT_IP_META_KEY = os.environ.get("RATELIMIT_IP_META_KEY") or None

# LOG_LEVEL governs everything: the handler's level (records that Django's own
# "django" logger propagates to the root bypass the root's level, not its handler's)
# and Django's loggers, whose defaults would let every 403/404 through.
LOG_LEVEL = os.environ.get("LOG_LEVEL", "WARNING").strip().upper()
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler", "level": LOG_LEVEL}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"level": LOG_LEVEL},
        "django.server": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
    },
}

# Log-in throttling (config/login_throttle.py, docs/security.md): after LOGIN_FAILURE_LIMIT
# failed log-ins for one username, or from one address, further tries are refused (429)
# for LOGIN_COOLOFF_MINUTES, which failing again does not prolong. A browser that has
# logged in as the user before is never locked out of that account.
AXES_FAILURE_LIMIT = int(os.environ.get("LOGIN_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("LOGIN_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_WHITELIST_CALLABLE = "config.login_throttle.is_known_device"
AXES_HANDLER = "config.login_throttle.LoginFailureHandler"
AXES_CLIENT_IP_CALLABLE = "config.login_throttle.client_address"
AXES_LOCKOUT_CALLABLE = "config.login_throttle.locked_out"
AXES_DISABLE_ACCESS_LOG = True  # failures are counted; successful log-ins are not logged
AXES_VERBOSE = False

# The roll ledger's Ed25519 signing key (rolls/ledger/signing.py), outside the database: a PEM file
# created on first use (back it up; docs/audit.md). After a rotation, the old keys' public
# halves (base64, comma-separated) keep verifying the rolls they signed.
LEDGER_SIGNING_KEY_FILE = Path(
    os.environ.get("LEDGER_SIGNING_KEY_FILE", BASE_DIR / "var" / "ledger-signing-key.pem")
)
LEDGER_RETIRED_PUBLIC_KEYS = env_list("LEDGER_RETIRED_PUBLIC_KEYS", "")

# Notifications by e-mail (diary/notifications/delivery.py). E-mails leave the request:
# Django's tasks framework queues them in the database (django-tasks-db) and `db_worker`
# (started by `make run` and `make serve`) sends them over SMTP. `make run` prints them
# to the console instead (EMAIL_BACKEND).
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["default"],
    }
}
# Django 6.1's MAILERS, from the classic variables. Any other backend (the console's,
# under `make run`) takes no SMTP options.
SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_BACKEND_PATH = os.environ.get("EMAIL_BACKEND", SMTP_BACKEND)
MAILERS = {"default": {"BACKEND": EMAIL_BACKEND_PATH}}
if EMAIL_BACKEND_PATH == SMTP_BACKEND:
    MAILERS["default"]["OPTIONS"] = {
        "host": os.environ.get("EMAIL_HOST", "localhost"),
        "port": int(os.environ.get("EMAIL_PORT", "25")),
        "username": os.environ.get("EMAIL_HOST_USER", ""),
        "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
        "use_tls": env_flag("EMAIL_USE_TLS"),
        "timeout": 30,
    }
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Codziennik <codziennik@localhost>")
# The site's address as e-mails link to it (no request to read it from).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# How long before a turn's deadline its players who have not posted are reminded.
DEADLINE_NOTICE_HOURS = int(os.environ.get("DEADLINE_NOTICE_HOURS", "24"))
# A reader whose read mark in a session stood still this long finds "since you were last
# here" above the first unread post (diary/recap/).
RECAP_AFTER_HOURS = int(os.environ.get("RECAP_AFTER_HOURS", "12"))
# A running (or paused) session whose GM has neither posted nor opened a turn for this many
# days is orphaned: a moderator may hand it to a new GM (diary/handover).
ORPHANED_AFTER_DAYS = int(os.environ.get("ORPHANED_AFTER_DAYS", "14"))
# A running session with no post and no turn change for this many days is marked quiet
# ("uśpiona") for its GM and on the moderators' home (diary/activity/).
INACTIVE_AFTER_DAYS = int(os.environ.get("INACTIVE_AFTER_DAYS", "7"))
# Sessions' webhooks (diary/notifications/webhook_delivery.py): seconds before each retry of a
# message the other end did not take (down, or 429), how long one attempt may take, and whether
# plain http and local addresses are allowed (only for tests and a developer's machine:
# in production a GM's URL must not reach into the server's own network).
WEBHOOK_RETRY_DELAYS = (60, 300, 1800, 7200)
# Notification e-mails the mail server did not take for now (down, or a 4xx reply): seconds
# before each new try (diary/notifications/tasks.py); after the last the notification stays in the
# bell.
EMAIL_RETRY_DELAYS = (60, 300, 1800, 7200)
WEBHOOK_TIMEOUT = 10
WEBHOOK_ALLOW_LOCAL = env_flag("WEBHOOK_ALLOW_LOCAL")
