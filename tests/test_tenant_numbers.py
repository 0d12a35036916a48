"""Message ids are numbers within a tenant: the conformance checks on every backend, an older
SQLite file upgraded in place (ids kept, summaries and cutoffs still right), and two keys over
HTTP that never see each other's volume in their ids."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import psycopg
import pytest
from pg_server import PgServer
from server_helpers import auth, make_key, running_server

from memstrata import Memory, Settings
from memstrata.store import open_store, salvage
from memstrata.store.postgres import _sql as pg_sql
from memstrata.store.postgres._schema import MIGRATIONS as PG_MIGRATIONS
from memstrata.store.sqlite import register_functions
from memstrata.store.sqlite._schema import MIGRATIONS
from memstrata.testing import Check
from memstrata.testing._common import OFF, pairs
from memstrata.testing._numbers import NUMBER_CHECKS

SETTINGS = Settings(embedder=None, summary_cron=None)


@pytest.fixture(params=["file", "memory", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "file":
        return str(tmp_path / "n.db")
    if request.param == "memory":
        return ":memory:"
    server: PgServer = request.getfixturevalue("pg_server")
    return server.create_database("numbers")


@pytest.mark.parametrize("check", NUMBER_CHECKS, ids=lambda c: c.__name__)
async def test_numbers(check: Check, target: str) -> None:
    store = await open_store(target)
    try:
        await check(store)
    finally:
        await store.close()


def _file_before_numbers(path: Path) -> None:
    """A file as the release before tenant numbers left it: two tenants' messages interleaved
    under one id sequence, the newest of one forgotten, a summary and a cutoff by id."""
    c = sqlite3.connect(path, isolation_level=None)
    register_functions(c)
    c.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER)")
    for step, script in enumerate(MIGRATIONS[:9], start=1):
        c.executescript(script)
        c.execute("INSERT INTO schema_version VALUES (?, 0)", (step,))
    for i in range(8):
        tenant = "acme" if i % 2 == 0 else "globex"
        text = f"{tenant} note {i}"
        c.execute("INSERT INTO sessions (tenant, id, active_at) VALUES (?, 's', 0) "
                  "ON CONFLICT DO NOTHING", (tenant,))
        c.execute("INSERT INTO messages (tenant, session, role, content, at, size) "
                  "VALUES (?, 's', 'user', ?, ?, ?)", (tenant, text, 10**18 + i, len(text)))
        c.execute("UPDATE sessions SET message_count = message_count + 1, "
                  "hot_count = hot_count + 1, hot_bytes = hot_bytes + ? "
                  "WHERE tenant = ? AND id = 's'", (len(text), tenant))
    c.execute("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')")
    c.execute("DELETE FROM messages WHERE id = 8")  # globex's newest, forgotten
    c.execute("UPDATE sessions SET message_count = 3, hot_count = 3 WHERE tenant = 'globex'")
    c.execute("INSERT INTO summaries (tenant, session, kind, body, cursor, created_at) "
              "VALUES ('acme', 's', 'digest', '{\"text\": \"up to 5\"}', 5, 0)")
    c.close()


async def test_an_older_file_keeps_its_ids_and_numbers_new_ones_per_tenant(
        tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _file_before_numbers(path)
    async with Memory.open(str(path), settings=SETTINGS, tenant="acme",
                           background=False) as acme, \
            Memory.open(str(path), settings=SETTINGS, tenant="globex",
                        background=False) as globex, \
            Memory.open(str(path), settings=SETTINGS, tenant="newcomer",
                        background=False) as newcomer:
        # A client that kept an id still names the same message.
        assert [m.id for m in await acme.recent("s")] == [7, 5, 3, 1]
        assert [m.id for m in await globex.recent("s")] == [6, 4, 2]
        got = await globex.message(4)
        assert got is not None and got.content == "globex note 3"
        assert await acme.message(4) is None
        summary = await acme.summary("s")
        assert summary is not None and summary.cursor == 5
        # New numbers continue past every id the file gave out (8, forgotten, included);
        # a tenant the file never knew starts at 1.
        assert (await acme.add("s", "user", "acme again")).id == 9
        assert (await globex.add("s", "user", "globex lantern")).id == 9
        assert (await globex.add("s", "user", "another lantern")).id == 10
        assert [(await newcomer.add("s", "user", f"hello {i}")).id for i in range(3)] == [
            1, 2, 3]
        assert [h.message.id for h in await globex.search("s", "lantern", match="keyword")] \
            == [9, 10]
        assert await acme.check() == []
    # The summary's cursor (5) still covers what it covered: acme's 7 and 9 are after it.
    store = await open_store(str(path))
    try:
        assert await store.runs.due("acme", now=0) == [("acme", "s")]
        assert [m.id for m in await store.after_cursor("acme", "s", 5)] == [7, 9]
    finally:
        await store.close()
    c = sqlite3.connect(path)
    assert c.execute("SELECT max(version) FROM schema_version").fetchone()[0] == len(MIGRATIONS)
    assert dict(c.execute("SELECT tenant, next_seq FROM tenants")) == {
        "acme": 10, "globex": 11, "newcomer": 4}


def test_two_keys_over_http_number_their_own_messages(tmp_path: Path) -> None:
    db = str(tmp_path / "memory.db")
    alice, bob = make_key(db, "alice"), make_key(db, "bob")
    with running_server(db, settings=SETTINGS) as url, \
            httpx.Client(base_url=url, headers=auth(alice)) as a, \
            httpx.Client(base_url=url, headers=auth(bob)) as b:
        ids: dict[str, list[int]] = {"a": [], "b": []}
        for i in range(3):
            for name, client in (("a", a), ("b", b)):
                r = client.post("/v1/sessions/s/messages",
                                json={"role": "user", "content": f"{name} apple {i}"})
                assert r.status_code == 201, r.text
                ids[name].append(r.json()["id"])
            r = a.post("/v1/sessions/s/messages/batch", json={"items": [
                {"role": "user", "content": f"a batch {i} {j}"} for j in range(2)]})
            assert r.status_code == 201, r.text
            ids["a"] += [m["id"] for m in r.json()["messages"]]
        assert ids == {"a": list(range(1, 10)), "b": [1, 2, 3]}
        # Each key reads its own message under the same number.
        assert a.get("/v1/messages/2").json()["message"]["content"] == "a batch 0 0"
        assert b.get("/v1/messages/2").json()["message"]["content"] == "b apple 1"
        assert b.get("/v1/messages/4").status_code == 404
        assert b.delete("/v1/messages/9").status_code == 404
        # Paging by id walks the tenant's own numbers.
        page = b.get("/v1/sessions/s/messages", params={"before_id": 3}).json()
        assert [m["id"] for m in page["messages"]] == [2, 1], page
        assert b.delete("/v1/messages/3").status_code == 204
        r = b.post("/v1/sessions/s/messages", json={"role": "user", "content": "b later"})
        assert r.json()["id"] == 4  # forgotten 3 is not given out again


async def test_an_older_postgres_database_keeps_its_ids(pg_server: PgServer) -> None:
    """A database of the schema before tenant numbers: ids kept as numbers, a summary's
    cursor still right, each known tenant continuing past the sequence, a new one at 1."""
    url = pg_server.create_database("before_numbers")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute("CREATE EXTENSION IF NOT EXISTS btree_gin")
        with conn.transaction():
            conn.execute(pg_sql.CREATE_VERSION_TABLE)
            for step, script in enumerate(PG_MIGRATIONS[:3], start=1):
                conn.execute(script.format(vector_type="vector", gin_lead="tenant, ",
                                           gin_lead_session="tenant, session, "))
                conn.execute(pg_sql.INSERT_VERSION, (step, 0))
            for i in range(6):
                tenant = "acme" if i % 2 == 0 else "globex"
                text = f"{tenant} note {i}"
                conn.execute("INSERT INTO sessions (tenant, id, active_at) VALUES (%s, 's', 0) "
                             "ON CONFLICT DO NOTHING", (tenant,))
                conn.execute("INSERT INTO messages (tenant, session, role, content, at, size, "
                             "fts) VALUES (%s, 's', 'user', %s, %s, %s, "
                             "to_tsvector('memstrata_text', %s))",
                             (tenant, text, i, len(text), text))
                conn.execute("UPDATE sessions SET message_count = message_count + 1, "
                             "hot_count = hot_count + 1, hot_bytes = hot_bytes + %s "
                             "WHERE tenant = %s AND id = 's'", (len(text), tenant))
            conn.execute("INSERT INTO summaries (tenant, session, kind, body, cursor, "
                         "created_at) VALUES ('acme', 's', 'digest', '{\"text\": \"x\"}', 3, 0)")
    store = await open_store(url)
    try:
        assert [m.id for m in await store.recent("acme", "s", 10)] == [1, 3, 5]
        assert [m.id for m in await store.recent("globex", "s", 10)] == [2, 4, 6]
        assert [m.id for m in await store.after_cursor("acme", "s", 3)] == [5]
        assert await store.runs.due("acme", now=0) == [("acme", "s")]
        (a,) = await store.append("acme", "s", pairs(1), now=0, policy=OFF)
        (g,) = await store.append("globex", "s", pairs(1), now=0, policy=OFF)
        (n,) = await store.append("newcomer", "s", pairs(1), now=0, policy=OFF)
        assert (a.id, g.id, n.id) == (7, 7, 1)
        assert await store.integrity_check() == []
    finally:
        await store.close()


async def test_salvage_of_an_older_file_keeps_ids_as_numbers(tmp_path: Path) -> None:
    """Salvage reads a file from before tenant numbers too: each id becomes its message's
    number, and each tenant continues past every id the file gave out."""
    path, dest = tmp_path / "old.db", tmp_path / "salvaged.db"
    _file_before_numbers(path)
    report = await salvage(str(path), str(dest))
    assert report.messages.copied == 7
    async with Memory.open(str(dest), settings=SETTINGS, tenant="acme",
                           background=False) as acme, \
            Memory.open(str(dest), settings=SETTINGS, tenant="globex",
                        background=False) as globex:
        assert [m.id for m in await acme.recent("s")] == [7, 5, 3, 1]
        assert [m.id for m in await globex.recent("s")] == [6, 4, 2]
        assert (await acme.add("s", "user", "after")).id == 9
        assert (await globex.add("s", "user", "after")).id == 9
        assert await acme.check() == []
