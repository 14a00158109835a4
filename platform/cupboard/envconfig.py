"""Reading settings from environment variables, strictly.

Every knob of cupboard is an environment variable with a default that works on a
laptop. Booleans must be spelled out: a typo must fail loudly, not switch a
production server into debug mode.
"""
import ipaddress
import os
import re
import secrets
import time
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def envbool(name: str, default: str) -> bool:
    value = os.getenv(name, default).strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={value!r}: use one of {sorted(_TRUE | _FALSE)}")


def envint(name: str, default: str) -> int:
    value = os.getenv(name, default)
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={value!r} is not a whole number") from None


def envsecret(name: str) -> str | None:
    """A secret from NAME, or from the file named by NAME_FILE (Docker secrets)."""
    path = os.getenv(f"{name}_FILE")
    if path:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip()
    return os.getenv(name) or None


def local_secret(path: Path) -> str:
    """The key kept in `path`, made on first use: a site run from a checkout keeps its sessions
    and signed links across restarts without anyone choosing a key. Readable by its owner only;
    two processes starting at once agree (the first to create the file wins)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _read_secret(path)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(secrets.token_urlsafe(50) + "\n")
    return _read_secret(path)


def _read_secret(path: Path) -> str:
    for _ in range(50):  # another process may have created the file and not written it yet
        key = path.read_text(encoding="utf-8").strip()
        if key:
            return key
        time.sleep(0.02)
    raise ImproperlyConfigured(f"{path} is empty: remove it to make a new key, or set SECRET_KEY")


def database_from_url(url: str) -> dict:
    """A DATABASES entry from `sqlite:///path` or `postgres://user:pw@host:port/name`."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        # sqlite:///relative/path and sqlite:////absolute/path, as dj-database-url reads them.
        name = unquote(parsed.path)[1:]
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": name or ":memory:",
                "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE"}}
    if parsed.scheme in {"postgres", "postgresql"}:
        options = {key: values[-1] for key, values in parse_qs(parsed.query).items()}
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(parsed.path.lstrip("/")),
            "USER": unquote(parsed.username or ""),
            "PASSWORD": unquote(parsed.password or ""),
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": options,
        }
    raise ImproperlyConfigured(f"DATABASE_URL scheme {parsed.scheme!r} is not supported (sqlite, postgres)")


def cache_from_url(url: str) -> dict:
    """A CACHES entry from `locmem://` (one process) or `redis://host:6379/1` (shared)."""
    scheme = urlparse(url).scheme
    if scheme == "locmem":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    if scheme in {"redis", "rediss"}:
        return {"BACKEND": "cupboard.redis_cache.SharedClientRedisCache", "LOCATION": url}
    raise ImproperlyConfigured(f"CUPBOARD_CACHE_URL scheme {scheme!r} is not supported (locmem, redis)")


def rates_from_env(text: str, defaults: dict[str, str]) -> dict[str, str]:
    """`defaults` with the rates named in `scope=count/period,...` replaced; unknown scopes fail."""
    rates = dict(defaults)
    for item in filter(None, (part.strip() for part in text.split(","))):
        scope, _, rate = item.partition("=")
        if scope.strip() not in defaults or not re.fullmatch(r"[1-9][0-9]*/[0-9]*[smhd]?", rate.strip()):
            raise ImproperlyConfigured(f"CUPBOARD_RATES: {item!r}; write scope=count/period (10/15m, 5/h) "
                                       f"with a scope of {', '.join(defaults)}")
        rates[scope.strip()] = rate.strip()
    return rates


def trusted_proxies_from_env() -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """CUPBOARD_TRUSTED_PROXIES: the addresses or networks (`172.30.0.2`, `10.0.0.0/8`) of the
    proxies in front of the web, comma-separated; none by default. The old on/off switch
    CUPBOARD_BEHIND_PROXY trusted X-Forwarded-For from anyone who could reach gunicorn, so it
    fails loudly rather than being ignored."""
    if os.getenv("CUPBOARD_BEHIND_PROXY") is not None:
        raise ImproperlyConfigured("CUPBOARD_BEHIND_PROXY is gone: set CUPBOARD_TRUSTED_PROXIES to the address(es) "
                                   "of your proxy instead (X-Forwarded-For and -Proto are believed from them only)")
    networks = []
    for item in filter(None, (part.strip() for part in os.getenv("CUPBOARD_TRUSTED_PROXIES", "").split(","))):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ImproperlyConfigured(f"CUPBOARD_TRUSTED_PROXIES: {item!r} is not an address or a network "
                                       "(172.30.0.2, 10.0.0.0/8)") from None
    return tuple(networks)
