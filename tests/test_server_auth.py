"""API keys: how they are made and stored, and the 401 every /v1 route gives without a
valid one (missing, malformed, unknown, wrong secret, revoked)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import httpx
import pytest
from server_helpers import auth, make_key, revoke_key, running_server

from memstrata.errors import InvalidInput, NotFound
from memstrata.server import ApiKeys, parse_key
from memstrata.store import open_store


async def test_a_key_is_stored_only_as_a_hash(tmp_path: Path) -> None:
    db = str(tmp_path / "k.db")
    store = await open_store(db)
    try:
        keys = ApiKeys(store.api_keys)
        key, record = await keys.create("acme", "laptop")
        parsed = parse_key(key)
        assert parsed is not None and parsed[0] == record.id and len(parsed[1]) >= 40
        assert key.startswith(f"ms_{record.id}_")
        assert (record.tenant, record.name, record.revoked_at) == ("acme", "laptop", None)
        assert (await keys.verify(key)) == record
        other, _ = await keys.create("acme")
        assert other != key
    finally:
        await store.close()
    raw = sqlite3.connect(db)
    try:
        rows = raw.execute("SELECT id, secret_hash FROM api_keys").fetchall()
    finally:
        raw.close()
    secret = parsed[1]
    stored = dict(rows)[record.id]
    assert stored == hashlib.sha256(secret.encode()).digest()
    assert secret.encode() not in Path(db).read_bytes()


async def test_keys_refuse_bad_input(tmp_path: Path) -> None:
    store = await open_store(str(tmp_path / "k.db"))
    try:
        keys = ApiKeys(store.api_keys)
        with pytest.raises(InvalidInput) as bad_tenant:
            await keys.create("no spaces allowed")
        assert bad_tenant.value.field == "tenant"
        with pytest.raises(InvalidInput) as bad_name:
            await keys.create("acme", "two\nlines")
        assert bad_name.value.field == "name"
        with pytest.raises(InvalidInput):
            await keys.revoke("NOT-AN-ID")
        with pytest.raises(NotFound):
            await keys.revoke("abcd1234")
        assert await keys.list() == []
    finally:
        await store.close()


def _wrong_keys(good: str) -> dict[str, dict[str, str]]:
    key_id, secret = good.split("_")[1], good.split("_", 2)[2]
    flipped = ("A" if secret[0] != "A" else "B") + secret[1:]
    return {
        "missing": {},
        "empty": {"Authorization": ""},
        "not bearer": {"Authorization": f"Basic {good}"},
        "bearer alone": {"Authorization": "Bearer"},
        "malformed": {"Authorization": "Bearer not-a-key"},
        "unknown id": {"Authorization": f"Bearer ms_zzzz9999_{secret}"},
        "wrong secret": {"Authorization": f"Bearer ms_{key_id}_{flipped}"},
        "no secret": {"Authorization": f"Bearer ms_{key_id}_"},
    }


ROUTES = [("GET", "/v1/sessions"), ("POST", "/v1/sessions/s/messages"),
          ("GET", "/v1/sessions/s/context"), ("GET", "/v1/search?q=x"),
          ("GET", "/v1/messages/1"), ("DELETE", "/v1/sessions/s"), ("GET", "/v1/errors"),
          ("POST", "/v1/errors"), ("GET", "/v1/stats"), ("POST", "/v1/sessions/s/import")]


def test_every_route_refuses_a_request_without_a_valid_key(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    good = make_key(db, "acme")
    with running_server(db) as url:
        for name, headers in _wrong_keys(good).items():
            for method, path in ROUTES:
                r = httpx.request(method, url + path, headers=headers,
                                  json={"role": "user", "content": "x"})
                assert r.status_code == 401, (name, method, path, r.text)
                assert r.json()["error"]["type"] == "unauthorized"
                assert r.headers["www-authenticate"] == "Bearer"
        ok = httpx.post(url + "/v1/sessions/s/messages", headers=auth(good),
                        json={"role": "user", "content": "x"})
        assert ok.status_code == 201
        # Nothing the refused requests sent was stored.
        listed = httpx.get(url + "/v1/sessions/s/messages", headers=auth(good)).json()
        assert len(listed["messages"]) == 1


def test_a_revoked_key_stops_working_at_once(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    key, other = make_key(db, "acme"), make_key(db, "acme")
    with running_server(db) as url:
        assert httpx.get(url + "/v1/sessions", headers=auth(key)).status_code == 200
        revoke_key(db, key)
        refused = httpx.get(url + "/v1/sessions", headers=auth(key))
        assert refused.status_code == 401
        assert httpx.get(url + "/v1/sessions", headers=auth(other)).status_code == 200


def test_health_and_the_page_need_no_key(tmp_path: Path) -> None:
    db = str(tmp_path / "h.db")
    with running_server(db) as url:
        assert httpx.get(url + "/healthz").status_code == 200
        assert httpx.get(url + "/readyz").status_code == 200
        assert httpx.get(url + "/").status_code == 200
        assert httpx.get(url + "/v1/sessions").status_code == 401
