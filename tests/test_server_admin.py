"""Scoped keys and the admin API: ``/v1/admin/keys``, scopes, expiry, tenant prefixes, and
keys made before scopes existed, on a real server over a real SQLite file."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path

import httpx
import psycopg
import pytest
from pg_server import PgServer
from server_helpers import auth, make_key, running_server
from typer.testing import CliRunner

from memstrata.cli import app
from memstrata.server import ApiKeys
from memstrata.store import open_store

CLI_ENV = {"MEMSTRATA_DB": "", "MEMSTRATA_URL": "", "MEMSTRATA_KEY": "", "NO_COLOR": "1",
           "COLUMNS": "200"}
MSG = {"role": "user", "content": "the ferry leaves at nine"}


def _error(r: httpx.Response, status: int, kind: str) -> dict[str, object]:
    assert r.status_code == status, r.text
    body = r.json()["error"]
    assert body["type"] == kind
    return dict(body)


def test_an_admin_key_makes_lists_and_revokes_keys(tmp_path: Path) -> None:
    db = str(tmp_path / "a.db")
    admin = make_key(db, "*", "ops", scopes=["admin"])
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        made = http.post("/v1/admin/keys", headers=auth(admin),
                         json={"tenant": "acme", "name": "app", "scopes": ["read", "write"],
                               "expires_at": "2200-01-01T00:00:00Z", "rate_per_second": 50})
        assert made.status_code == 201, made.text
        body = made.json()
        key = body["key"]
        assert body["tenant"] == "acme" and body["scopes"] == ["read", "write"]
        assert body["expires_at_iso"].startswith("2200-01-01") and body["rate_per_second"] == 50
        # Times also as exact decimal strings (a JavaScript number rounds them).
        assert body["created_at_ns"] == str(body["created_at"])
        assert body["expires_at_ns"] == str(body["expires_at"])
        assert body["revoked_at_ns"] is None
        assert http.post("/v1/sessions/s/messages", headers=auth(key), json=MSG
                         ).status_code == 201
        listed = http.get("/v1/admin/keys", headers=auth(admin)).json()["keys"]
        assert [k["id"] for k in listed] == [admin.split("_")[1], body["id"]]
        assert all("key" not in k for k in listed)
        # The admin key holds no read scope: it cannot read memory.
        _error(http.get("/v1/sessions", headers=auth(admin)), 403, "forbidden")
        # Nor can a memory key manage keys.
        _error(http.get("/v1/admin/keys", headers=auth(key)), 403, "forbidden")
        _error(http.post("/v1/admin/keys", headers=auth(key), json={"tenant": "x"}),
               403, "forbidden")
        bad = _error(http.post("/v1/admin/keys", headers=auth(admin),
                               json={"tenant": "acme", "scopes": ["root"]}),
                     422, "invalid_input")
        assert str(bad["field"]).startswith("scopes")
        late = _error(http.post("/v1/admin/keys", headers=auth(admin),
                                json={"tenant": "acme", "expires_at": "2999-01-01"}),
                      422, "invalid_input")
        assert late["field"] == "expires_at"
        revoked = http.delete(f"/v1/admin/keys/{body['id']}", headers=auth(admin))
        assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
        _error(http.get("/v1/sessions", headers=auth(key)), 401, "unauthorized")
        _error(http.delete("/v1/admin/keys/zzzz9999", headers=auth(admin)), 404, "not_found")


def test_scopes_decide_what_a_key_may_do(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    reader = make_key(db, "t", scopes=["read"])
    writer = make_key(db, "t", scopes=["write"])
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        assert http.post("/v1/sessions/s/messages", headers=auth(writer), json=MSG
                         ).status_code == 201
        forbidden = _error(http.post("/v1/sessions/s/messages", headers=auth(reader),
                                     json=MSG), 403, "forbidden")
        assert "'write' scope" in str(forbidden["message"])
        _error(http.delete("/v1/sessions/s", headers=auth(reader)), 403, "forbidden")
        page = http.get("/v1/sessions/s/messages", headers=auth(reader))
        assert page.status_code == 200 and len(page.json()["messages"]) == 1
        _error(http.get("/v1/sessions/s/messages", headers=auth(writer)), 403, "forbidden")
        # MCP reads and writes: a read-only key is refused there too.
        assert http.post("/mcp", headers=auth(reader), json={}).status_code == 403


def test_an_expired_key_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "e.db")
    then = time.time_ns() - 3600 * 10**9

    async def make() -> str:
        store = await open_store(db)
        try:
            # Made an hour ago, valid for a minute.
            key, _ = await ApiKeys(store.api_keys, clock=lambda: then).create(
                "t", expires_at=then + 60 * 10**9)
            return key
        finally:
            await store.close()

    key = asyncio.run(make())
    fresh = make_key(db, "t", expires_at=time.time_ns() + 3600 * 10**9)
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        _error(http.get("/v1/sessions", headers=auth(key)), 401, "unauthorized")
        assert http.get("/v1/sessions", headers=auth(fresh)).status_code == 200


def test_a_prefix_key_serves_many_isolated_tenants(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    app_key = make_key(db, "acme/*", "acme app")
    admin = make_key(db, "acme/*", "acme admin", scopes=["admin"])
    other = make_key(db, "globex")

    def as_user(user: str) -> dict[str, str]:
        return {**auth(app_key), "X-Memstrata-Tenant": user}

    with running_server(db) as url, httpx.Client(base_url=url) as http:
        assert http.post("/v1/sessions/s/messages", headers=as_user("acme/user-1"),
                         json=MSG).status_code == 201
        assert http.get("/v1/sessions", headers=as_user("acme/user-2")).json()["sessions"] == []
        one = http.get("/v1/sessions", headers=as_user("acme/user-1")).json()["sessions"]
        assert [s["id"] for s in one] == ["s"]
        # Outside the prefix, the prefix alone, or no tenant named: refused.
        for named in ("globex", "acme/", "acmeuser"):
            _error(http.get("/v1/sessions", headers=as_user(named)), 403, "forbidden")
        _error(http.get("/v1/sessions", headers=auth(app_key)), 403, "forbidden")
        bad = _error(http.get("/v1/sessions", headers=as_user("acme/a b")), 422,
                     "invalid_input")
        assert bad["field"] == "X-Memstrata-Tenant"
        # A key of one tenant cannot name another.
        _error(http.get("/v1/sessions", headers={**auth(other), "X-Memstrata-Tenant":
                                                  "acme/user-1"}), 403, "forbidden")
        assert http.get("/v1/sessions", headers={**auth(other), "X-Memstrata-Tenant":
                                                  "globex"}).status_code == 200
        # The prefix's admin manages keys within it, and only those.
        inside = http.post("/v1/admin/keys", headers=auth(admin),
                           json={"tenant": "acme/user-9"})
        assert inside.status_code == 201
        outside = _error(http.post("/v1/admin/keys", headers=auth(admin),
                                   json={"tenant": "globex"}), 422, "invalid_input")
        assert outside["field"] == "tenant"
        _error(http.post("/v1/admin/keys", headers=auth(admin), json={"tenant": "*"}),
               422, "invalid_input")
        listed = {k["tenant"] for k in http.get("/v1/admin/keys",
                                                 headers=auth(admin)).json()["keys"]}
        assert listed == {"acme/*", "acme/user-9"}
        globex_id = other.split("_")[1]
        _error(http.delete(f"/v1/admin/keys/{globex_id}", headers=auth(admin)), 404,
               "not_found")
        assert http.get("/v1/sessions", headers=auth(other)).status_code == 200


_UNDO_TENANT_NUMBERS = (
    "DROP TABLE tenants", "DROP INDEX messages_by_seq", "DROP INDEX messages_by_session",
    "CREATE INDEX messages_by_session ON messages (tenant, session, id)",
    "ALTER TABLE messages DROP COLUMN seq")
"""What undoes the step after scoped keys (message numbers per tenant), on either backend."""


def _undo_tenant_numbers(raw: sqlite3.Connection) -> None:
    for statement in _UNDO_TENANT_NUMBERS:
        raw.execute(statement)


async def _downgrade_sqlite(db: str) -> None:
    """Make ``db`` look as a release before scoped keys left it: the key columns of then
    only, and the schema version of then."""
    store = await open_store(db)
    await store.close()
    raw = sqlite3.connect(db)
    try:
        for column in ("scopes", "expires_at", "rate_per_second", "messages_per_day",
                       "stored_bytes"):
            raw.execute(f"ALTER TABLE api_keys DROP COLUMN {column}")
        _undo_tenant_numbers(raw)
        raw.execute("DELETE FROM schema_version WHERE version >= 9")
        raw.commit()
    finally:
        raw.close()


def test_keys_made_before_scopes_keep_reading_and_writing(tmp_path: Path) -> None:
    db = str(tmp_path / "old.db")
    old = make_key(db, "acme")
    asyncio.run(_downgrade_sqlite(db))
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        assert http.post("/v1/sessions/s/messages", headers=auth(old), json=MSG
                         ).status_code == 201
        assert http.get("/v1/sessions/s/messages", headers=auth(old)).status_code == 200
        # Never admin: an existing key gains no power it did not have.
        _error(http.get("/v1/admin/keys", headers=auth(old)), 403, "forbidden")


@pytest.mark.parametrize("pattern", ["acme/*", "*", "a.b:c@d-e/f"])
async def test_tenant_patterns_are_accepted(tmp_path: Path, pattern: str) -> None:
    store = await open_store(str(tmp_path / "k.db"))
    try:
        _, record = await ApiKeys(store.api_keys).create(pattern, scopes=["admin", "read"])
        assert record.tenant == pattern and record.scopes == ("read", "admin")
        assert record.is_prefix == pattern.endswith("*")
    finally:
        await store.close()


def test_the_keys_commands_work_on_a_file_and_on_a_server(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    runner = CliRunner()
    made = runner.invoke(app, ["--json", "--db", db, "keys", "create", "--tenant", "*",
                               "--scope", "admin", "--name", "ops", "--expires", "30d"],
                         env=CLI_ENV)
    assert made.exit_code == 0, made.output
    admin = json.loads(made.stdout)
    assert admin["scopes"] == ["admin"] and admin["expires_at"] > time.time_ns()
    bad = runner.invoke(app, ["--db", db, "keys", "create", "--tenant", "t", "--expires",
                              "soon"], env=CLI_ENV)
    assert bad.exit_code == 2 and "--expires" in bad.output
    with running_server(db) as url:
        remote = ["--json", "--server", url, "--key", admin["key"], "keys"]
        made = runner.invoke(app, [*remote, "create", "--tenant", "acme/*", "--scope", "read",
                                   "--rate", "5"], env=CLI_ENV)
        assert made.exit_code == 0, made.output
        app_key = json.loads(made.stdout)
        assert app_key["scopes"] == ["read"] and app_key["rate_per_second"] == 5
        listed = runner.invoke(app, [*remote, "list"], env=CLI_ENV)
        assert [k["tenant"] for k in json.loads(listed.stdout)] == ["*", "acme/*"]
        revoked = runner.invoke(app, [*remote, "revoke", app_key["id"]], env=CLI_ENV)
        assert revoked.exit_code == 0 and json.loads(revoked.stdout)["revoked_at"]
        refused = runner.invoke(app, ["--server", url, "--key", app_key["key"], "keys",
                                      "list"], env=CLI_ENV)
        assert refused.exit_code != 0


def test_mcp_takes_the_tenant_a_prefix_key_names(tmp_path: Path) -> None:
    db = str(tmp_path / "mcp.db")
    key = make_key(db, "acme/*")
    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}}
    headers = {**auth(key), "Accept": "application/json, text/event-stream"}
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        _error(http.post("/mcp", headers=headers, json=hello), 403, "forbidden")
        named = http.post("/mcp", headers={**headers, "X-Memstrata-Tenant": "acme/u1"},
                          json=hello)
        assert named.status_code == 200, named.text


def test_serve_counts_an_expired_key_as_no_key(tmp_path: Path) -> None:
    db = str(tmp_path / "x.db")
    then = time.time_ns() - 3600 * 10**9

    async def make() -> None:
        store = await open_store(db)
        try:
            await ApiKeys(store.api_keys, clock=lambda: then).create(
                "t", expires_at=then + 10**9)
        finally:
            await store.close()

    asyncio.run(make())
    refused = CliRunner().invoke(app, ["--db", db, "serve", "--host", "0.0.0.0", "--port",
                                       "0"], env=CLI_ENV)
    assert refused.exit_code == 2 and "no valid API key" in refused.output


async def test_postgres_keys_made_before_scopes_keep_reading_and_writing(
        pg_server: PgServer) -> None:
    url = pg_server.create_database("oldkeys")
    store = await open_store(url)
    try:
        key, _ = await ApiKeys(store.api_keys).create("acme")
    finally:
        await store.close()
    # What a release before scoped keys left: the key columns of then, schema version 2.
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("ALTER TABLE api_keys DROP COLUMN scopes, DROP COLUMN expires_at, "
                           "DROP COLUMN rate_per_second, DROP COLUMN messages_per_day, "
                           "DROP COLUMN stored_bytes")
        for statement in _UNDO_TENANT_NUMBERS:
            await conn.execute(statement)
        await conn.execute("DELETE FROM schema_version WHERE version >= 3")
    store = await open_store(url)
    try:
        found = await ApiKeys(store.api_keys).verify(key)
        assert found is not None and found.scopes == ("read", "write")
        assert found.expires_at is None and found.rate_per_second is None
    finally:
        await store.close()
