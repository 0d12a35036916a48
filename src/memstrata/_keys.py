"""API keys of the HTTP service: making them, checking them, revoking them.

A key reads ``ms_<id>_<secret>``: ``id`` is 8 lower-case letters and digits that name the key
in listings and logs, ``secret`` is 256 random bits (URL-safe base64). The store keeps the id,
the tenant (or a tenant prefix such as ``acme/*``), an optional name, the scopes (``read``,
``write``, ``admin``), an optional expiry and limits, and the SHA-256 of the secret; the key
itself is shown once, when it is made, and never stored or logged. Checking a key hashes the
presented secret and compares the hashes with ``hmac.compare_digest``, so the time taken says
nothing about the stored one.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable

from ._ingest import check_tenant
from .errors import InvalidInput, NotFound
from .store import KeyStore
from .text import check_stored_text
from .types import ApiKey

__all__ = ["DEFAULT_SCOPES", "KEY_ID_CHARS", "SCOPES", "ApiKeys", "check_pattern",
           "check_scopes", "parse_key", "within"]

SCOPES = ("read", "write", "admin")
"""What a key may be allowed: read memory, write it, manage keys."""
DEFAULT_SCOPES = ("read", "write")

KEY_ID_CHARS = 8
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_SECRET_BYTES = 32
_KEY_RE = re.compile(r"ms_([a-z0-9]{8})_([A-Za-z0-9_-]{16,128})")
_ID_RE = re.compile(r"[a-z0-9]{8}")
_MAX_NAME = 128
_ID_ATTEMPTS = 5
# Compared against when the id is unknown, so a miss costs the same work as a wrong secret.
_DUMMY_HASH = hashlib.sha256(b"memstrata: no such key").digest()


def parse_key(text: str) -> tuple[str, str] | None:
    """``(id, secret)`` of a well-formed key, else ``None``."""
    found = _KEY_RE.fullmatch(text)
    return (found.group(1), found.group(2)) if found else None


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("ascii")).digest()


def _check_id(key_id: object) -> str:
    if not isinstance(key_id, str) or not _ID_RE.fullmatch(key_id):
        raise InvalidInput("id", f"must be a key id: {KEY_ID_CHARS} lower-case letters and "
                           f"digits (as `keys list` shows it), got {key_id!r}")
    return key_id


def _check_name(name: object) -> str | None:
    if name is None:
        return None
    if not isinstance(name, str) or len(name) > _MAX_NAME or any(c in name for c in "\r\n\t"):
        raise InvalidInput("name", f"must be one line of at most {_MAX_NAME} characters")
    return check_stored_text(name, "name").strip() or None


def check_pattern(pattern: object, field: str = "tenant") -> str:
    """A key's tenant: one tenant name, or a prefix ending in ``*`` (``acme/*``; ``*`` alone
    covers every tenant)."""
    if isinstance(pattern, str) and pattern.endswith("*"):
        if pattern != "*":
            check_tenant(pattern[:-1], field)
        return pattern
    return check_tenant(pattern, field)


def within(outer: str, inner: str) -> bool:
    """Whether every tenant the pattern ``inner`` covers is covered by ``outer``."""
    if outer.endswith("*"):
        return inner.startswith(outer[:-1]) and inner != outer[:-1]
    return inner == outer


def check_scopes(scopes: object) -> tuple[str, ...]:
    """Scopes in their canonical order; at least one, each of :data:`SCOPES`."""
    if isinstance(scopes, str) or not isinstance(scopes, list | tuple | set | frozenset):
        raise InvalidInput("scopes", f"must be a list of scopes from {list(SCOPES)}")
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown or not scopes:
        raise InvalidInput("scopes", f"must be one or more of {list(SCOPES)}; got "
                           f"{list(scopes)!r}")
    return tuple(s for s in SCOPES if s in scopes)


def _positive(value: object, field: str, kind: type[int] | type[float]) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            (kind is int and not isinstance(value, int)) or not 0 < value < 2**62:
        what = "a positive integer" if kind is int else "a positive number"
        raise InvalidInput(field, f"must be {what} or null; got {value!r}")


class ApiKeys:
    """The API keys of one database (over its :class:`~memstrata.store.KeyStore`)."""

    def __init__(self, store: KeyStore, *, clock: Callable[[], int] = time.time_ns) -> None:
        self._store = store
        self._clock = clock

    async def create(self, tenant: str, name: str | None = None, *,
                     scopes: tuple[str, ...] | list[str] = DEFAULT_SCOPES,
                     expires_at: int | None = None, rate_per_second: float | None = None,
                     messages_per_day: int | None = None, stored_bytes: int | None = None,
                     under: str | None = None) -> tuple[str, ApiKey]:
        """Make a key for ``tenant`` (a name, or a prefix ``acme/*``): returns the key (show
        it once; it is not stored) and what is stored about it. ``under`` is the tenant of
        the admin key asking: the new key's tenant must lie within it."""
        tenant = check_pattern(tenant)
        if under is not None and not within(under, tenant):
            raise InvalidInput("tenant", f"must lie within {under!r}, the tenants of the key "
                               f"making it; got {tenant!r}")
        label = _check_name(name)
        chosen = check_scopes(scopes)
        now = self._clock()
        if expires_at is not None and (isinstance(expires_at, bool) or
                                       not isinstance(expires_at, int) or
                                       not now < expires_at < 2**63):
            raise InvalidInput("expires_at", "must be a time in the future (before 2262)")
        _positive(rate_per_second, "rate_per_second", float)
        _positive(messages_per_day, "messages_per_day", int)
        _positive(stored_bytes, "stored_bytes", int)
        for attempt in range(_ID_ATTEMPTS):
            key_id = "".join(secrets.choice(_ALPHABET) for _ in range(KEY_ID_CHARS))
            secret = secrets.token_urlsafe(_SECRET_BYTES)
            record = ApiKey(id=key_id, tenant=tenant, name=label, created_at=now,
                            scopes=chosen, expires_at=expires_at,
                            rate_per_second=None if rate_per_second is None
                            else float(rate_per_second),
                            messages_per_day=messages_per_day, stored_bytes=stored_bytes)
            try:
                await self._store.insert(record, secret_hash=_hash(secret))
            except InvalidInput:
                if attempt + 1 == _ID_ATTEMPTS:
                    raise
                continue  # an id already taken (one in 2.8e12 per key): draw again
            return f"ms_{key_id}_{secret}", record
        raise AssertionError("unreachable")  # pragma: no cover

    async def verify(self, presented: str) -> ApiKey | None:
        """The stored key ``presented`` is, if it is valid, not revoked and not expired; else
        ``None``."""
        parsed = parse_key(presented) if isinstance(presented, str) else None
        if parsed is None:
            return None
        key_id, secret = parsed
        found = await self._store.get(key_id)
        stored = found[1] if found is not None else _DUMMY_HASH
        if not hmac.compare_digest(stored, _hash(secret)) or found is None:
            return None
        key = found[0]
        if key.revoked_at is not None:
            return None
        if key.expires_at is not None and key.expires_at <= self._clock():
            return None
        return key

    async def list(self, tenant: str | None = None, *,
                   under: str | None = None) -> builtins.list[ApiKey]:
        """Every key (of one tenant; of those within ``under``), oldest first, revoked ones
        included."""
        if tenant is not None:
            check_pattern(tenant)
        found = await self._store.all(tenant)
        return [k for k in found if under is None or within(under, k.tenant)]

    async def revoke(self, key_id: str, *, under: str | None = None) -> ApiKey:
        """Revoke a key by id; it stops working at once. ``NotFound`` when there is none (or
        none within ``under``)."""
        _check_id(key_id)
        if under is not None:
            found = await self._store.get(key_id)
            if found is None or not within(under, found[0].tenant):
                raise NotFound(f"no API key with id {key_id!r}")
        revoked = await self._store.revoke(key_id, now=self._clock())
        if revoked is None:
            raise NotFound(f"no API key with id {key_id!r}")
        return revoked

    async def count_active(self) -> int:
        """How many keys are valid (neither revoked nor expired), of every tenant."""
        if await self._store.count_active() == 0:
            return 0
        now = self._clock()
        return sum(1 for k in await self._store.all()
                   if k.revoked_at is None and (k.expires_at is None or k.expires_at > now))
