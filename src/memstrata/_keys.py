"""API keys of the HTTP service: making them, checking them, revoking them.

A key reads ``ms_<id>_<secret>``: ``id`` is 8 lower-case letters and digits that name the key
in listings and logs, ``secret`` is 256 random bits (URL-safe base64). The store keeps the id,
the tenant, an optional name and the SHA-256 of the secret; the key itself is shown once, when
it is made, and never stored or logged. Checking a key hashes the presented secret and compares
the hashes with ``hmac.compare_digest``, so the time taken says nothing about the stored one.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Callable

from ._ingest import check_session
from .errors import InvalidInput, NotFound
from .store import KeyStore
from .text import check_stored_text
from .types import ApiKey

__all__ = ["KEY_ID_CHARS", "ApiKeys", "parse_key"]

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


class ApiKeys:
    """The API keys of one database (over its :class:`~memstrata.store.KeyStore`)."""

    def __init__(self, store: KeyStore, *, clock: Callable[[], int] = time.time_ns) -> None:
        self._store = store
        self._clock = clock

    async def create(self, tenant: str, name: str | None = None) -> tuple[str, ApiKey]:
        """Make a key for ``tenant``: returns the key (show it once; it is not stored) and
        what is stored about it."""
        check_session(tenant, "tenant")
        label = _check_name(name)
        for attempt in range(_ID_ATTEMPTS):
            key_id = "".join(secrets.choice(_ALPHABET) for _ in range(KEY_ID_CHARS))
            secret = secrets.token_urlsafe(_SECRET_BYTES)
            record = ApiKey(id=key_id, tenant=tenant, name=label, created_at=self._clock())
            try:
                await self._store.insert(record, secret_hash=_hash(secret))
            except InvalidInput:
                if attempt + 1 == _ID_ATTEMPTS:
                    raise
                continue  # an id already taken (one in 2.8e12 per key): draw again
            return f"ms_{key_id}_{secret}", record
        raise AssertionError("unreachable")  # pragma: no cover

    async def verify(self, presented: str) -> ApiKey | None:
        """The stored key ``presented`` is, if it is valid and not revoked; else ``None``."""
        parsed = parse_key(presented) if isinstance(presented, str) else None
        if parsed is None:
            return None
        key_id, secret = parsed
        found = await self._store.get(key_id)
        stored = found[1] if found is not None else _DUMMY_HASH
        if not hmac.compare_digest(stored, _hash(secret)) or found is None:
            return None
        return found[0] if found[0].revoked_at is None else None

    async def list(self, tenant: str | None = None) -> builtins.list[ApiKey]:
        """Every key (of one tenant), oldest first, revoked ones included."""
        if tenant is not None:
            check_session(tenant, "tenant")
        return await self._store.all(tenant)

    async def revoke(self, key_id: str) -> ApiKey:
        """Revoke a key by id; it stops working at once. ``NotFound`` when there is none."""
        revoked = await self._store.revoke(_check_id(key_id), now=self._clock())
        if revoked is None:
            raise NotFound(f"no API key with id {key_id!r}")
        return revoked

    async def count_active(self) -> int:
        """How many keys are valid (not revoked), of every tenant."""
        return await self._store.count_active()
