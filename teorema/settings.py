"""Teorema settings: everything comes from the environment, with safe local defaults.

Local mode (the default) needs nothing installed: SQLite under ``data/``, the in-memory
channel layer and cache, debates run inside the Daphne process. A team server sets
``DATABASE_URL``, ``REDIS_URL`` and ``TEOREMA_PRODUCTION=1`` (see docs/server.md).
"""

import math
import os
import re
import secrets
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypedDict, overload
from urllib.parse import urlsplit

import dj_database_url
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from teorema import database
from teorema.signing import checked_rsa_pem, new_rsa_pem

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("TEOREMA_DATA_DIR", BASE_DIR / "data"))
DATA_DIR.mkdir(parents=True, exist_ok=True)


def env_bool(name: str, default: bool = False) -> bool:
    """Read a yes/no variable; anything but a known spelling is a configuration error."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a yes/no value (use 1 or 0).")


@overload
def env_number(name: str, default: int, minimum: float) -> int: ...
@overload
def env_number(name: str, default: float, minimum: float, cast: Callable[[str], float]) -> float: ...
def env_number(name: str, default: float, minimum: float, cast: Callable[[str], float] = int) -> float:
    """A number from the environment, at least ``minimum``; anything else names the variable."""
    raw = os.environ.get(name, "")
    try:
        value = cast(raw) if raw.strip() else default
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a{'n integer' if cast is int else ' number'}.") from None
    if not math.isfinite(value):  # float() reads "nan" and "inf", and NaN passes every comparison
        raise ImproperlyConfigured(f"{name}={raw!r} is not a finite number.")
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r} must be at least {minimum}.")
    return value


def env_url(name: str) -> str:
    """An http(s) address from the environment, without its trailing slash; "" when unset."""
    raw = os.environ.get(name, "").strip()
    scheme, _, rest = raw.partition("://")
    if raw and (scheme not in {"http", "https"} or not rest.strip("/") or any(c.isspace() for c in raw)):
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not an http:// or https:// address (e.g. https://teorema.example.com)."
        )
    return raw.rstrip("/")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def data_file_secret(filename: str, make: Callable[[], str]) -> str:
    """A secret kept in a file under DATA_DIR, created once (mode 0600) on first use.

    Local mode must work without any setup, but secrets never live in the repo or the DB.
    """
    path = DATA_DIR / filename
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(make())
    return path.read_text().strip()


PRODUCTION = env_bool("TEOREMA_PRODUCTION")
DEBUG = env_bool("TEOREMA_DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY") or data_file_secret("secret_key", lambda: secrets.token_urlsafe(50))
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

# Fernet keys for provider API keys at rest; several (comma-separated) allow rotation,
# the first one encrypts. Kept out of the DB so a stolen database reveals no key.
TEOREMA_FERNET_KEYS = env_list("TEOREMA_FERNET_KEYS", "") or [
    data_file_secret("fernet.key", lambda: Fernet.generate_key().decode())
]

# Local single-user mode: requests from loopback are logged in as this user automatically.
TEOREMA_LOCAL_USER = os.environ.get("TEOREMA_LOCAL_USER", "")
if TEOREMA_LOCAL_USER and PRODUCTION:
    raise ImproperlyConfigured("TEOREMA_LOCAL_USER (auto-login) cannot be used with TEOREMA_PRODUCTION=1.")

# --- Sign-in (django-allauth; docs/server.md, "Sign-in (SSO)") -----------------------------
# Local accounts sign in with their password, and TOTP once they turn it on (allauth.mfa); each
# company identity below is offered on the sign-in page once its variables are set, with no row in
# the database. A first sign-in there creates the user, in TEOREMA_SSO_GROUP (debates/signin/).
# Nobody signs up with a password: the admin makes local accounts.
SSO_APPS = [
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.openid_connect",
    "allauth.socialaccount.providers.github",
    "allauth.socialaccount.providers.google",
    "allauth.socialaccount.providers.microsoft",
]
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
ACCOUNT_LOGOUT_REDIRECT_URL = "/accounts/login/"
ACCOUNT_ADAPTER = "debates.signin.adapter.AccountAdapter"
SOCIALACCOUNT_ADAPTER = "debates.signin.adapter.SocialAccountAdapter"
ACCOUNT_LOGIN_METHODS = {"username"}
# Local accounts have a password (allauth's sign-in form asks one only then); a first SSO sign-in whose
# username is taken asks for another (socialaccount's form, which has no password).
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*"]
ACCOUNT_EMAIL_VERIFICATION = "none"  # no mail is sent: the identity provider vouches for its users
ACCOUNT_SESSION_REMEMBER = True  # sessions last as Django's always did here, no checkbox
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if PRODUCTION else "http"  # the callback address given to providers
ACCOUNT_FORMS = {"login": "debates.signin.forms.LoginForm"}
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False  # a provider's e-mail never opens an existing local account
SOCIALACCOUNT_STORE_TOKENS = False  # Teorema calls no provider API for its users
# Proxies in front of the web processes (Compose: HAProxy, and your TLS proxy before it): allauth's
# limits on failed sign-ins count the client's address from X-Forwarded-For behind that many.
ALLAUTH_TRUSTED_PROXY_COUNT = env_number("TEOREMA_TRUSTED_PROXIES", 0, 0)
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
MFA_TOTP_ISSUER = "Teorema"


def sso_client(prefix: str) -> dict[str, str]:
    """A provider's client id and secret from ``<prefix>_CLIENT_ID`` and ``<prefix>_SECRET``; {} when
    neither is set. One without the other is a configuration error naming the one missing."""
    client_id, secret = (os.environ.get(f"{prefix}_{name}", "").strip() for name in ("CLIENT_ID", "SECRET"))
    if bool(client_id) != bool(secret):
        missing = f"{prefix}_SECRET" if client_id else f"{prefix}_CLIENT_ID"
        raise ImproperlyConfigured(f"{missing} is not set: a provider needs both its client id and its secret.")
    return {"client_id": client_id, "secret": secret} if client_id else {}


def sso_providers() -> dict[str, dict]:
    """allauth's SOCIALACCOUNT_PROVIDERS, read from the environment: OpenID Connect, GitHub, Google, Microsoft."""
    providers: dict[str, dict] = {}
    oidc_url, oidc = env_url("TEOREMA_OIDC_SERVER_URL"), sso_client("TEOREMA_OIDC")
    if bool(oidc_url) != bool(oidc):
        present, absent = (
            ("TEOREMA_OIDC_SERVER_URL", "TEOREMA_OIDC_CLIENT_ID")
            if oidc_url
            else ("TEOREMA_OIDC_CLIENT_ID", "TEOREMA_OIDC_SERVER_URL")
        )
        raise ImproperlyConfigured(
            f"{present} is set but {absent} is not: "
            "OpenID Connect needs the server's address, a client id and its secret."
        )
    if oidc:
        slug = os.environ.get("TEOREMA_OIDC_ID", "").strip() or "oidc"
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", slug):
            raise ImproperlyConfigured(
                f"TEOREMA_OIDC_ID={slug!r} is not a slug (lower-case letters, digits and -): "
                "it is part of the callback address."
            )
        name = os.environ.get("TEOREMA_OIDC_NAME", "").strip() or "Single sign-on"
        app = {"provider_id": slug, "name": name, **oidc, "settings": {"server_url": oidc_url}}
        providers["openid_connect"] = {"OAUTH_PKCE_ENABLED": True, "APPS": [app]}
    if github := sso_client("TEOREMA_GITHUB"):
        providers["github"] = {"APPS": [github], "SCOPE": ["read:user", "user:email"]}
    if google := sso_client("TEOREMA_GOOGLE"):
        providers["google"] = {"APPS": [google], "SCOPE": ["profile", "email"], "OAUTH_PKCE_ENABLED": True}
    if microsoft := sso_client("TEOREMA_MICROSOFT"):
        # "organizations": any work account; a tenant's id keeps the sign-in to one company's directory.
        tenant = os.environ.get("TEOREMA_MICROSOFT_TENANT", "").strip() or "organizations"
        providers["microsoft"] = {"APPS": [microsoft | {"settings": {"tenant": tenant}}]}
    return providers


SOCIALACCOUNT_PROVIDERS = sso_providers()


def sign_in_origin(provider: str, config: dict) -> str:
    """Where a provider's sign-in page is. A sign-in button posts to Teorema, which redirects there,
    and the browser holds that redirect to the CSP's form-action (SECURE_CSP below)."""
    if provider == "openid_connect":
        url = urlsplit(config["APPS"][0]["settings"]["server_url"])
        return f"{url.scheme}://{url.netloc}"
    known = {"github": "https://github.com", "google": "https://accounts.google.com"}
    return known.get(provider) or "https://login.microsoftonline.com"


SSO_FORM_ACTIONS = [sign_in_origin(provider, config) for provider, config in SOCIALACCOUNT_PROVIDERS.items()]
# The group a user made by a first SSO sign-in joins (its permissions are set in the admin); a name
# that no group has stops migrate and `check --database default` (debates/signin/checks.py).
TEOREMA_SSO_GROUP = os.environ.get("TEOREMA_SSO_GROUP", "").strip()
if TEOREMA_SSO_GROUP and not SOCIALACCOUNT_PROVIDERS:
    raise ImproperlyConfigured(
        "TEOREMA_SSO_GROUP is set but no sign-in provider is (TEOREMA_OIDC_*, _GITHUB_*, _GOOGLE_*, _MICROSOFT_*)."
    )
# --- end of Sign-in -------------------------------------------------------------------------

INSTALLED_APPS = [
    "teorema.apps.DaphneConfig",  # before staticfiles: its runserver serves ASGI; its server loads when run
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",  # the htmx ws extension, as a static file
    "django_tasks_db",
    "debates",
    *SSO_APPS,  # sign-in: django-allauth (the block "Sign-in" below)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "debates.middleware.NamesAsSentMiddleware",  # before CSRF, which reads the body: names as sent
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "debates.middleware.LocalUserMiddleware",
    "allauth.account.middleware.AccountMiddleware",  # sign-in (the block "Sign-in" below)
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "debates.errors.UnstoredMiddleware",
]

# --- MCP's own authorization (docs/integrations.md, debates/integrations/mcp/oauth.py) -------------
# /mcp is an OAuth protected resource; allauth's OpenID provider (allauth.idp.oidc) is its
# authorization server: MCP clients register themselves (dynamic registration, open: public
# clients hold no secret), the user signs in on Teorema's own page and consents, and the access
# token is good for /mcp only. It stands on the sign-in block's allauth and allauth.account.
INSTALLED_APPS += ["allauth.idp.oidc"]
IDP_OIDC_ADAPTER = "debates.integrations.mcp.oauth.McpAdapter"
IDP_OIDC_DCR_ENABLED = True
IDP_OIDC_DCR_REQUIRES_INITIAL_ACCESS_TOKEN = False
# The signing key: TEOREMA_MCP_SIGNING_KEY (a PEM, e.g. from a secret store), else one made once under DATA_DIR.
IDP_OIDC_PRIVATE_KEY = checked_rsa_pem(
    os.environ.get("TEOREMA_MCP_SIGNING_KEY") or data_file_secret("mcp-signing-key.pem", new_rsa_pem),
    "TEOREMA_MCP_SIGNING_KEY" if os.environ.get("TEOREMA_MCP_SIGNING_KEY") else str(DATA_DIR / "mcp-signing-key.pem"),
)

ROOT_URLCONF = "teorema.urls"
ASGI_APPLICATION = "teorema.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Persistent connections (SQLite; PostgreSQL's are pooled, below): a run's writes, the lease watch
# and the snapshots reuse one connection per thread instead of paying for a new one each time
# (under load, connecting took real CPU).
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'teorema.sqlite3'}", conn_max_age=600, conn_health_checks=True
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Django's backend, with a request thread's connection kept for the next one (teorema/sqlite).
    DATABASES["default"]["ENGINE"] = "teorema.sqlite"
    # WAL + immediate transactions: the debate runner writes while pages read.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
    }
    # The test database too is a file in WAL mode: an in-memory one shares its cache between
    # threads under table locks, and a viewer's read beside a run's write (their threads differ)
    # failed at once with "database table is locked" where the app's own database lets both run.
    # One per test process, so that two test runs of one checkout never share it.
    DATABASES["default"]["TEST"] = {"NAME": str(Path(tempfile.gettempdir()) / f"teorema-test-{os.getpid()}.sqlite3")}
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A pool per process instead (psycopg-pool): each request runs on a thread of its own, and a
    # connection per thread made 100 questions posted at once open 100 connections, past
    # PostgreSQL's limit (503s), each after 2.8 ms of connecting. A thread takes one from the pool
    # (checked first: a server restart leaves none broken) and gives it back when Django closes it;
    # one more than the pool holds waits for it.
    # A database that is down costs a request DB_WAIT seconds, not psycopg-pool's 30: a connection
    # is tried for at most that long (libpq counts whole seconds, 2 at least), a request waits that
    # long for one, and a failed try is given up after it, so the next request tries afresh.
    DB_WAIT = env_number("TEOREMA_DB_WAIT_SECONDS", 2.0, 0.5, float)
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    options = DATABASES["default"].setdefault("OPTIONS", {})
    options.setdefault("connect_timeout", max(2, math.ceil(DB_WAIT)))
    options["pool"] = {
        "min_size": 2,
        "max_size": env_number("TEOREMA_DB_POOL_SIZE", 10, 1),
        "timeout": DB_WAIT,
        "reconnect_timeout": DB_WAIT,
        "check": database.check,  # a dead connection: every one pooled with it is replaced
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "debates.live.layer.SharedChannelLayer",
            # No read timeout: redis-py 8 times reads out after 5 s, channels_redis's own wait for
            # a message, and every socket without a broadcast for 5 s died with a 1011.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": None}]},
        }
    }
    CACHES = {"default": {"BACKEND": "teorema.cache.RedisCache", "LOCATION": REDIS_URL}}
else:
    # Chunks are coalesced (one fragment per voice per flush), so 2000 per channel is ample.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "debates.live.layer.LiveChannelLayer",
            "CONFIG": {"capacity": 2000, "expiry": 30},
        }
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise warns on every start when it is missing
# Local mode serves static files straight from the app folders (no collectstatic step);
# production serves the collected, hashed copies (`manage.py collectstatic`).
WHITENOISE_USE_FINDERS = not PRODUCTION
# Attachments (debates/attachments/) go to the default storage: files under DATA_DIR by default; a
# server may name any Django storage backend (django-storages' S3, say, configured by its own settings).
STORAGES = {
    "default": {
        "BACKEND": os.environ.get("TEOREMA_FILE_STORAGE", "django.core.files.storage.FileSystemStorage"),
        "OPTIONS": {"location": str(DATA_DIR / "files")} if not os.environ.get("TEOREMA_FILE_STORAGE") else {},
    },
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Model output is untrusted: no inline script anywhere, no third-party origin.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF, *SSO_FORM_ACTIONS],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^(healthz|livez|readyz)$"]  # probes speak plain HTTP to the process (debates/health.py)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_number("SECURE_HSTS_SECONDS", 31536000, 0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True

# Where Django logs a request refused for the client's mistake: django.request (403, unreadable
# bodies) and django.security.<exception> (Django's SuspiciousOperation subclasses and contrib's).
CLIENT_ERROR_LOGGERS = [
    "django.request",
    *(
        f"django.security.{name}"
        for name in (
            "SuspiciousOperation",
            "DisallowedHost",
            "DisallowedRedirect",
            "RequestDataTooBig",
            "TooManyFieldsSent",
            "TooManyFilesSent",
            "SuspiciousMultipartForm",
            "SuspiciousFileOperation",
            "SuspiciousSession",
            "InvalidSessionKey",
            "DisallowedModelAdminLookup",
            "DisallowedModelAdminToField",
        )
    ),
]
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"client_error": {"()": "teorema.logs.ClientErrorInOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # psycopg keeps itself at WARNING; LOG_LEVEL=DEBUG also shows each connection a request asks
        # of the pool and gets back (how the chaos tests count a page's waits for the database).
        "psycopg": {"level": "DEBUG" if LOG_LEVEL == "DEBUG" else "WARNING"},
        # httpx logs request URLs at INFO; Gemini puts nothing secret there, but keep it quiet.
        "httpx": {"level": "WARNING"},
        "httpcore": {"level": "WARNING"},
        # A client's mistake is one WARNING line, not a traceback (a filter on the logger, so
        # every handler sees the same line).
        **{name: {"filters": ["client_error"]} for name in CLIENT_ERROR_LOGGERS},
    },
}


# --- Teorema ---------------------------------------------------------------------------
class TeoremaSettings(TypedDict):
    """The app's own settings (settings.TEOREMA), each one from the environment."""

    MAX_QUESTION_CHARS: int
    MAX_CONTEXT_CHARS: int
    QUESTIONS_PER_HOUR: int
    FLUSH_INTERVAL_MS: int
    FLUSH_ADAPTS: bool
    VOTE_SIMILARITY: float
    LEASE_SECONDS: float
    WORKER_CONCURRENCY: int
    RETRY_BASE_SECONDS: float
    RETRY_MAX_SECONDS: float
    RETRY_AFTER_CAP_SECONDS: float
    LOCAL_THREADS: int
    LOCAL_SERVERS: dict[str, str]
    CLI_SCRATCH: str
    CLI_PATH: list[str]
    CLI_OUTPUT_BYTES: int
    DATASETS_DIR: str
    PUBLIC_URL: str
    ATTACHMENTS_MAX_FILES: int
    ATTACHMENT_MAX_BYTES: int
    ATTACHMENTS_MAX_BYTES: int
    ATTACHMENT_MAX_PAGES: int
    ATTACHMENT_MAX_PIXELS: int
    ATTACHMENT_IMAGE_SIDE: int
    ATTACHMENT_TEXT_CHARS: int
    ATTACHMENT_SECONDS: float
    CHECKS_SECONDS: float
    MCP_WAIT_SECONDS: float


TEOREMA: TeoremaSettings = {
    # Documented in docs/configuration.md ("Limits"); the form and the API enforce them.
    "MAX_QUESTION_CHARS": env_number("TEOREMA_MAX_QUESTION_CHARS", 8000, 1),
    "MAX_CONTEXT_CHARS": env_number("TEOREMA_MAX_CONTEXT_CHARS", 20000, 0),
    "QUESTIONS_PER_HOUR": env_number("TEOREMA_QUESTIONS_PER_HOUR", 30, 1),
    # Live fragments: at most one per voice per flush interval. The window adapts to how busy the
    # process is (debates/live/pace.py): words go out at once while it is quiet; off, always the window.
    "FLUSH_INTERVAL_MS": env_number("TEOREMA_FLUSH_INTERVAL_MS", 50, 1),
    "FLUSH_ADAPTS": env_bool("TEOREMA_FLUSH_ADAPTS", True),
    # Vote protocol: decisions whose normalised similarity reaches this share one group.
    "VOTE_SIMILARITY": env_number("TEOREMA_VOTE_SIMILARITY", 85.0, 0, float),
    # A run's lease: a runner that stops renewing it for this long is presumed dead.
    "LEASE_SECONDS": env_number("TEOREMA_LEASE_SECONDS", 60.0, 1, float),
    # Debates one worker process runs at once (they wait on the network, not the CPU).
    "WORKER_CONCURRENCY": env_number("TEOREMA_WORKER_CONCURRENCY", 8, 1),
    # Provider retries: exponential waits from the base up to the max; a Retry-After is capped.
    "RETRY_BASE_SECONDS": env_number("TEOREMA_RETRY_BASE_SECONDS", 1.0, 0, float),
    "RETRY_MAX_SECONDS": env_number("TEOREMA_RETRY_MAX_SECONDS", 20.0, 0, float),
    "RETRY_AFTER_CAP_SECONDS": env_number("TEOREMA_RETRY_AFTER_CAP_SECONDS", 60.0, 0, float),
    # The embedded model's threads; 0: one core fewer than the process may use (providers/local.py).
    "LOCAL_THREADS": env_number("TEOREMA_LOCAL_THREADS", 0, 0),
    # Local model servers the ask page looks for on their default ports (debates/roster/discover.py);
    # off on a production server, where loopback is not the user's machine.
    "LOCAL_SERVERS": {
        "ollama": "http://127.0.0.1:11434/v1",
        "lmstudio": "http://127.0.0.1:1234/v1",
        "llamacpp": "http://127.0.0.1:8080/v1",
    }
    if env_bool("TEOREMA_DISCOVER_LOCAL_SERVERS", not PRODUCTION)
    else {},
    # CLI voices (debates/providers/cli/, docs/providers.md): where each call's scratch directory is made
    # (private: Gemini CLI refuses settings under a directory others may write), folders searched for a
    # CLI before PATH (the tests name node_modules/.bin, where `npm ci` puts the pinned CLIs), and what
    # one call may print.
    "CLI_SCRATCH": os.environ.get("TEOREMA_CLI_SCRATCH", str(DATA_DIR / "cli")),
    "CLI_PATH": [folder for folder in os.environ.get("TEOREMA_CLI_PATH", "").split(os.pathsep) if folder],
    "CLI_OUTPUT_BYTES": env_number("TEOREMA_CLI_OUTPUT_MB", 4, 1) * 2**20,
    # The labelled data sets the Evaluations page offers (.jsonl and .csv files), beside the built-in task.
    "DATASETS_DIR": os.environ.get("TEOREMA_DATASETS_DIR", str(BASE_DIR / "datasets")),
    # The site's address, for links made outside a request (the CLI, Telegram, stdio MCP); none
    # set, such a link is left out rather than guessed.
    "PUBLIC_URL": env_url("TEOREMA_PUBLIC_URL"),
    # Attachments (docs/attachments.md): refused in words past these, before anything is stored.
    "ATTACHMENTS_MAX_FILES": env_number("TEOREMA_ATTACHMENTS_MAX_FILES", 5, 0),
    "ATTACHMENT_MAX_BYTES": env_number("TEOREMA_ATTACHMENT_MAX_MB", 20, 1) * 2**20,
    "ATTACHMENTS_MAX_BYTES": env_number("TEOREMA_ATTACHMENTS_MAX_MB", 50, 1) * 2**20,
    "ATTACHMENT_MAX_PAGES": env_number("TEOREMA_ATTACHMENT_MAX_PAGES", 100, 1),
    # Decoded pixels of one image (a decompression bomb is refused before it is decoded), and the
    # longest side an image keeps once re-encoded (what every model and viewer gets).
    "ATTACHMENT_MAX_PIXELS": env_number("TEOREMA_ATTACHMENT_MAX_PIXELS", 40_000_000, 1),
    "ATTACHMENT_IMAGE_SIDE": env_number("TEOREMA_ATTACHMENT_IMAGE_SIDE", 2048, 64),
    # The text a voice that reads a file as text gets of it, at most (the rest is cut, and said).
    "ATTACHMENT_TEXT_CHARS": env_number("TEOREMA_ATTACHMENT_TEXT_CHARS", 200_000, 1000),
    # Reading one file in the limited child process (debates/attachments/sandbox.py).
    "ATTACHMENT_SECONDS": env_number("TEOREMA_ATTACHMENT_SECONDS", 30.0, 1, float),
    # The numbers checked between rounds (docs/checks.md): a round's checks together, at most; what
    # does not fit is "not checked", in words.
    "CHECKS_SECONDS": env_number("TEOREMA_CHECKS_SECONDS", 5.0, 0.5, float),
    # An MCP tool call that asked for no progress returns within this, the run going on (clients
    # give up on a silent call after 60 s); with progress it follows the run to its end.
    "MCP_WAIT_SECONDS": env_number("TEOREMA_MCP_WAIT_SECONDS", 45.0, 1, float),
}

# Request size limits (docs/api.md): 1 MiB for the rest of a form plus the longest question and
# context with every character escaped (12 bytes each at worst: %F0%9F%A4%94, or \ud83e\udd14 in
# JSON), so they never refuse a question the form accepts; a larger request gets a 400 that says so.
if TEOREMA["ATTACHMENTS_MAX_BYTES"] < TEOREMA["ATTACHMENT_MAX_BYTES"]:
    raise ImproperlyConfigured(
        "TEOREMA_ATTACHMENTS_MAX_MB (a question's attachments together) must be at least "
        "TEOREMA_ATTACHMENT_MAX_MB (one file)."
    )

# Attachments sent as base64 in JSON (the API, /v1, MCP over HTTP) take 4/3 of their size on top.
DATA_UPLOAD_MAX_MEMORY_SIZE = (
    2**20
    + 12 * (TEOREMA["MAX_QUESTION_CHARS"] + TEOREMA["MAX_CONTEXT_CHARS"])
    + TEOREMA["ATTACHMENTS_MAX_BYTES"] * 4 // 3
)
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000  # the ask form has 6; the admin's largest forms stay far below

# OpenTelemetry traces (docs/server.md, teorema/telemetry.py): exported over OTLP/HTTP where the
# standard variable names an endpoint, off otherwise; prompts and answers on the spans only when asked.
OTEL_ENDPOINT = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get(
    "OTEL_EXPORTER_OTLP_ENDPOINT", ""
)
OTEL_CONTENT = env_bool("TEOREMA_OTEL_CONTENT")

# Debates run outside the request either way, through django.tasks. Local mode runs them on
# the Daphne process's loop; the server setup queues them in the database for workers.
RUN_IN_PROCESS = env_bool("TEOREMA_RUN_IN_PROCESS", True)
TASKS = {
    "default": {"BACKEND": "debates.runs.taskbackend.InProcessBackend"}
    if RUN_IN_PROCESS
    else {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}
}
