"""Conformance checks of the API-key part (``store.api_keys``): storing a key and its hash,
refusing a taken id, listing by tenant, revoking, and counting the keys still valid."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from ..errors import InvalidInput
from ..store import Store
from ..types import ApiKey
from ._common import T0, Check

__all__ = ["KEY_CHECKS"]


def _key(key_id: str, tenant: str = "t", *, name: str | None = None,
         created: int = T0) -> ApiKey:
    return ApiKey(id=key_id, tenant=tenant, name=name, created_at=created)


def _hash(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


async def check_key_insert_and_get(store: Store) -> None:
    """A stored key reads back field for field with the exact hash bytes it was stored with;
    an unknown id reads as ``None``."""
    one = _key("aaaa1111", name="laptop")
    await store.api_keys.insert(one, secret_hash=_hash("s1"))
    assert await store.api_keys.get("aaaa1111") == (one, _hash("s1"))
    assert await store.api_keys.get("bbbb2222") is None
    assert await store.api_keys.get("AAAA1111") is None  # ids are compared exactly


async def check_key_id_taken(store: Store) -> None:
    """Inserting a second key under a taken id raises ``InvalidInput`` (field ``id``) and
    leaves the first key as it was."""
    first = _key("aaaa1111", "t")
    await store.api_keys.insert(first, secret_hash=_hash("s1"))
    try:
        await store.api_keys.insert(_key("aaaa1111", "u"), secret_hash=_hash("s2"))
    except InvalidInput as exc:
        assert exc.field == "id", exc.field
    else:
        raise AssertionError("a taken key id was accepted")
    assert await store.api_keys.get("aaaa1111") == (first, _hash("s1"))
    assert await store.api_keys.count_active() == 1


async def check_key_list_by_tenant(store: Store) -> None:
    """``all()`` lists every tenant's keys oldest first; ``all(tenant)`` only that tenant's."""
    keys = [_key("cccc0003", "t", created=T0 + 3), _key("aaaa0001", "u", created=T0 + 1),
            _key("bbbb0002", "t", created=T0 + 2)]
    for k in keys:
        await store.api_keys.insert(k, secret_hash=_hash(k.id))
    assert [k.id for k in await store.api_keys.all()] == ["aaaa0001", "bbbb0002", "cccc0003"]
    assert [k.id for k in await store.api_keys.all("t")] == ["bbbb0002", "cccc0003"]
    assert await store.api_keys.all("v") == []


async def check_key_revoke(store: Store) -> None:
    """Revoking marks the key with the time (a second revoke keeps the first time), keeps it
    listed and readable, and stops counting it as valid; an unknown id revokes nothing."""
    await store.api_keys.insert(_key("aaaa1111"), secret_hash=_hash("s1"))
    await store.api_keys.insert(_key("bbbb2222"), secret_hash=_hash("s2"))
    assert await store.api_keys.count_active() == 2
    revoked = await store.api_keys.revoke("aaaa1111", now=T0 + 5)
    assert revoked == ApiKey(id="aaaa1111", tenant="t", name=None, created_at=T0,
                             revoked_at=T0 + 5), revoked
    again = await store.api_keys.revoke("aaaa1111", now=T0 + 9)
    assert again is not None and again.revoked_at == T0 + 5, again
    assert await store.api_keys.revoke("cccc3333", now=T0) is None
    assert await store.api_keys.count_active() == 1
    got = await store.api_keys.get("aaaa1111")
    assert got is not None and got[0].revoked_at == T0 + 5 and got[1] == _hash("s1")
    assert [k.revoked_at for k in await store.api_keys.all()] == [T0 + 5, None]


async def check_key_scopes_expiry_and_limits(store: Store) -> None:
    """Scopes, a tenant prefix, an expiry and limits read back as stored (a fractional rate
    included); a key stored without them reads back with read and write and no limits; the
    readiness ping reads."""
    full = ApiKey(id="aaaa1111", tenant="acme/*", name=None, created_at=T0,
                  scopes=("read", "admin"), expires_at=T0 + 10**12, rate_per_second=2.5,
                  messages_per_day=1000, stored_bytes=5 << 30)
    await store.api_keys.insert(full, secret_hash=_hash("s1"))
    await store.api_keys.insert(_key("bbbb2222"), secret_hash=_hash("s2"))
    got = await store.api_keys.get("aaaa1111")
    assert got is not None and got[0] == full, got
    plain = await store.api_keys.get("bbbb2222")
    assert plain is not None and plain[0].scopes == ("read", "write"), plain
    assert plain[0].expires_at is None and plain[0].rate_per_second is None, plain
    assert [k.tenant for k in await store.api_keys.all("acme/*")] == ["acme/*"]
    await store.api_keys.ping()
    assert await store.api_keys.usage("acme/nobody") == (0, 0)


KEY_CHECKS: Sequence[Check] = (
    check_key_insert_and_get, check_key_id_taken, check_key_list_by_tenant, check_key_revoke,
    check_key_scopes_expiry_and_limits,
)
