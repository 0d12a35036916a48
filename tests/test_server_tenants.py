"""Tenant isolation over every route: with its own key, a tenant never reads, changes or
even learns of another tenant's sessions, messages or error records. Everything of the other
tenant answers exactly as something that does not exist."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_helpers import auth, make_key, running_server

from memstrata import Memory, Settings
from memstrata.errors import Closed
from memstrata.providers import HashEmbedder
from memstrata.server import Tenants, create_app


@dataclass
class World:
    url: str
    db: str
    alice: httpx.Client
    bob: httpx.Client
    message_ids: list[int]
    record_id: str


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    db = str(tmp_path_factory.mktemp("tenants") / "memory.db")
    keys = make_key(db, "alice"), make_key(db, "bob")
    settings = Settings(window_messages=2, summary_cron=None)
    with running_server(db, settings=settings) as url, \
            httpx.Client(base_url=url, headers=auth(keys[0])) as alice, \
            httpx.Client(base_url=url, headers=auth(keys[1])) as bob:
        ids = []
        for i, text in enumerate(["alice's secret plan: the lighthouse",
                                  "the lighthouse keeper agreed", "pack the lanterns"]):
            r = alice.post("/v1/sessions/shared-name/messages",
                           json={"role": "user" if i % 2 == 0 else "assistant", "content": text})
            ids.append(r.json()["id"])
        alice.post("/v1/sessions/shared-name/summarize").raise_for_status()
        record = alice.post("/v1/errors", json={
            "tool_name": "lighthouse_api", "keywords": ["lamp"], "symptom": "lamp timeout",
            "action": "restart the lamp"}).json()
        yield World(url=url, db=db, alice=alice, bob=bob, message_ids=ids,
                    record_id=record["id"])


def _same_as_missing(theirs: httpx.Response, missing: httpx.Response, *names: str) -> None:
    """The two answers are the same, once the id asked for is written the same way."""
    assert theirs.status_code == missing.status_code, (theirs.text, missing.text)

    def normal(text: str) -> str:
        for name in sorted(names, key=len, reverse=True):
            text = text.replace(name, "ID")
        return re.sub(r"\d+", "N", text)  # ids, times and sizes
    assert normal(theirs.text) == normal(missing.text)


MISSING_ID = 987_654_321
MISSING_SESSION = "never-was"
MISSING_RECORD = "abcdef0123456789abcdef0123456789"


def test_another_tenants_message_ids_are_missing(world: World) -> None:
    bob = world.bob
    for mid in world.message_ids:
        for method in ("GET", "DELETE"):
            theirs = bob.request(method, f"/v1/messages/{mid}")
            missing = bob.request(method, f"/v1/messages/{MISSING_ID}")
            assert theirs.status_code == 404
            _same_as_missing(theirs, missing, str(mid), str(MISSING_ID))
    # Bob's delete removed nothing: Alice still reads every message.
    for mid in world.message_ids:
        assert world.alice.get(f"/v1/messages/{mid}").status_code == 200


SESSION_ROUTES = [
    ("GET", "/v1/sessions/{s}", None),
    ("GET", "/v1/sessions/{s}/summary", None),
    ("POST", "/v1/sessions/{s}/summarize", None),
    ("GET", "/v1/sessions/{s}/export", None),
    ("GET", "/v1/sessions/{s}/messages", None),
    ("GET", "/v1/sessions/{s}/context", None),
    ("GET", "/v1/sessions/{s}/search?q=lighthouse&match=keyword&exclude_window=false", None),
    ("POST", "/v1/sessions/{s}/reset", {"mode": "all"}),
    ("DELETE", "/v1/sessions/{s}", None),
]


@pytest.mark.parametrize(("method", "path", "body"), SESSION_ROUTES,
                         ids=[f"{m} {p}" for m, p, _ in SESSION_ROUTES])
def test_another_tenants_session_is_missing(world: World, method: str, path: str,
                                            body: object) -> None:
    theirs = world.bob.request(method, path.format(s="shared-name"), json=body)
    missing = world.bob.request(method, path.format(s=MISSING_SESSION), json=body)
    _same_as_missing(theirs, missing, "shared-name", MISSING_SESSION)
    assert "lighthouse" not in theirs.text
    # And Alice's session is untouched.
    stats = world.alice.get("/v1/sessions/shared-name").json()
    assert stats["messages"] == 3 and stats["summary_kind"] == "digest"


def test_another_tenants_error_records_are_missing(world: World) -> None:
    bob, rid = world.bob, world.record_id
    for method in ("GET", "DELETE"):
        for ident in (rid, rid[:8]):
            theirs = bob.request(method, f"/v1/errors/{ident}")
            missing = bob.request(method, f"/v1/errors/{MISSING_RECORD[:len(ident)]}")
            assert theirs.status_code == 404
            _same_as_missing(theirs, missing, ident, MISSING_RECORD[:len(ident)])
    assert world.alice.get(f"/v1/errors/{rid}").status_code == 200


def test_lists_and_searches_show_only_the_callers_data(world: World) -> None:
    bob = world.bob
    assert bob.get("/v1/sessions").json() == {"sessions": []}
    assert bob.get("/v1/stats").json() == {"tenant": "bob", "sessions": 0, "messages": 0,
                                           "index_backlog": 0}
    for match in ("keyword", "semantic", "hybrid"):
        found = bob.get("/v1/search", params={"q": "lighthouse lantern", "match": match,
                                               "min_score": -1}).json()
        assert found["hits"] == [], match
    assert bob.get("/v1/errors").json() == {"errors": []}
    assert bob.get("/v1/errors/search", params={"q": "lamp timeout"}).json() == {"errors": []}
    assert bob.get("/v1/errors/hint", params={"tool": "lighthouse_api",
                                              "error": "lamp timeout"}).json() == {"hint": None}
    # Alice, asking the same, finds her own.
    assert [s["id"] for s in world.alice.get("/v1/sessions").json()["sessions"]] == [
        "shared-name"]
    assert world.alice.get("/v1/errors").json()["errors"][0]["id"] == world.record_id


def test_the_same_session_name_is_two_sessions(world: World) -> None:
    r = world.bob.post("/v1/sessions/shared-name/messages",
                       json={"role": "user", "content": "bob was here"})
    assert r.status_code == 201
    try:
        bobs = world.bob.get("/v1/sessions/shared-name/messages").json()["messages"]
        assert [m["content"] for m in bobs] == ["bob was here"]
        alices = world.alice.get("/v1/sessions/shared-name/messages").json()["messages"]
        assert "bob was here" not in [m["content"] for m in alices] and len(alices) == 3
    finally:
        world.bob.delete("/v1/sessions/shared-name")


async def test_what_the_service_stored_is_in_each_tenants_memory(world: World) -> None:
    async with Memory.open(world.db, tenant="bob", background=False,
                           settings=Settings(embedder=None)) as bob:
        assert await bob.sessions() == []
        assert await bob.message(world.message_ids[0]) is None
    async with Memory.open(world.db, tenant="alice", background=False,
                           settings=Settings(embedder=None)) as alice:
        assert [s.id for s in await alice.sessions()] == ["shared-name"]


async def test_tenants_share_one_store_and_one_set_of_models(tmp_path: Path) -> None:
    embedder = HashEmbedder(32)
    tenants = await Tenants.open(str(tmp_path / "t.db"), settings=Settings(summary_cron=None),
                                 embedder=embedder, llm=None, decision_llm=None,
                                 background=False)
    try:
        a, b = tenants.get("a"), tenants.get("b")
        assert tenants.get("a") is a and a is not b
        assert a.embedder is embedder and b.embedder is embedder
        await a.add("s", "user", "for a only")
        await b.close()  # a tenant's Memory never closes the shared store
        assert [m.content for m in await a.recent("s")] == ["for a only"]
        assert await tenants.get("c").sessions() == []
        assert tenants.tenants == ["a", "b", "c"]
    finally:
        await tenants.close()
    assert not tenants.ready
    with pytest.raises(Closed):
        tenants.get("a")
    with pytest.raises(Closed):
        await a.recent("s")


def test_background_indexing_serves_every_tenant(tmp_path: Path) -> None:
    db = str(tmp_path / "bg.db")
    keys = {t: make_key(db, t) for t in ("a", "b")}
    with running_server(db) as url:
        for tenant, key in keys.items():
            r = httpx.post(f"{url}/v1/sessions/s/messages", headers=auth(key),
                           json={"role": "user", "content": f"the {tenant} lighthouse"})
            assert r.status_code == 201
        for tenant, key in keys.items():
            deadline = time.monotonic() + 30
            while httpx.get(f"{url}/v1/sessions/s", headers=auth(key)).json()[
                    "index_backlog"] > 0:
                assert time.monotonic() < deadline, f"tenant {tenant} was never indexed"
                time.sleep(0.05)
            found = httpx.get(f"{url}/v1/sessions/s/search", headers=auth(key), params={
                "q": "lighthouse", "match": "semantic", "exclude_window": "false"}).json()
            assert found["status"] == "ok"
            assert [h["message"]["content"] for h in found["hits"]] == [
                f"the {tenant} lighthouse"]


async def test_open_tenants_are_bounded_least_recently_used_first(tmp_path: Path) -> None:
    tenants = await Tenants.open(str(tmp_path / "lru.db"),
                                 settings=Settings(summary_cron=None, max_open_tenants=2),
                                 embedder=None, llm=None, decision_llm=None, background=True)
    try:
        a = tenants.get("a")
        await a.add("s", "user", "kept by a")
        b = tenants.get("b")
        assert tenants.get("a") is a  # a is now the most recently used
        c = tenants.get("c")
        assert tenants.tenants == ["a", "c"]
        await asyncio.sleep(0)  # the closing runs as its own task
        with pytest.raises(Closed):
            await b.sessions()
        # A closed tenant opens again on its next use, with everything it stored.
        await c.add("s", "user", "kept by c")
        again = tenants.get("c")
        assert again is c
        with tenants.lease("a") as held_a, tenants.lease("c") as held_c:
            # Both held: a third tenant goes past the limit rather than close one in use.
            d = tenants.get("d")
            assert tenants.tenants == ["a", "c", "d"]
            await asyncio.sleep(0)
            assert [m.content for m in await held_a.recent("s")] == ["kept by a"]
            assert await held_c.sessions() != []
        # Released: back to the limit, the least recently used idle one gone.
        assert len(tenants.tenants) == 2 and "d" in tenants.tenants
        b2 = tenants.get("b")
        assert b2 is not b and await b2.sessions() == []
        assert tenants.peek("zzz") is None and tenants.peek("d") is d
    finally:
        await tenants.close()


def test_a_prefix_key_reaches_more_tenants_than_stay_open(tmp_path: Path) -> None:
    db = str(tmp_path / "prefix.db")
    app_key = make_key(db, "shop/*")
    admin = make_key(db, "*", scopes=["admin"])
    users = [f"shop/user-{i}" for i in range(6)]
    settings = Settings(summary_cron=None, max_open_tenants=2)
    with running_server(db, settings=settings) as url, httpx.Client(base_url=url) as http:

        def as_user(user: str) -> dict[str, str]:
            return {**auth(app_key), "X-Memstrata-Tenant": user}

        def write_and_read(user: str) -> list[int]:
            codes = []
            for turn in range(3):
                r = http.post("/v1/sessions/s/messages", headers=as_user(user),
                              json={"role": "user", "content": f"{user} says {turn}"})
                codes.append(r.status_code)
                codes.append(http.get("/v1/sessions/s/context", headers=as_user(user)
                                      ).status_code)
            return codes

        # Many tenants at once, most past the limit: no request meets a closed tenant.
        with ThreadPoolExecutor(len(users)) as pool:
            for codes in pool.map(write_and_read, users):
                assert set(codes) <= {200, 201}, codes
        for user in users:
            page = http.get("/v1/sessions/s/messages", headers=as_user(user)).json()
            assert [m["content"] for m in page["messages"]] == [
                f"{user} says {turn}" for turn in (2, 1, 0)]
        # The metrics list each open tenant's backlog: no more than the limit are open.
        text = http.get("/metrics", headers=auth(admin)).text
        assert 1 <= len(re.findall(r'^memstrata_index_backlog\{tenant="shop/', text,
                                   flags=re.M)) <= 2


async def test_a_streamed_answer_holds_its_tenant_until_it_is_sent(tmp_path: Path) -> None:
    """With one tenant allowed open, a second tenant's request during a streamed export
    does not close the exporting tenant under its stream: the second one, idle once
    answered, is the one closed."""
    db = str(tmp_path / "held.db")
    key = make_key(db, "shop/*")
    app = create_app(db, settings=Settings(summary_cron=None, max_open_tenants=1),
                     embedder=None, llm=None, decision_llm=None)

    def scope(path: str, user: str) -> dict[str, Any]:
        headers = [(b"authorization", f"Bearer {key}".encode()),
                   (b"x-memstrata-tenant", user.encode())]
        return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
                "query_string": b"", "root_path": "", "headers": headers,
                "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}

    done = asyncio.Event()

    def receiver() -> Callable[[], Awaitable[dict[str, Any]]]:
        asked = False

        async def receive() -> dict[str, Any]:
            # The (empty) body once; then, as a server does, a disconnect only at the end.
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await done.wait()
            return {"type": "http.disconnect"}
        return receive

    async with app.router.lifespan_context(app):
        tenants = app.state.tenants
        exporter = tenants.get("shop/exporter")
        await exporter.add("s", "user", "the first line")
        await exporter.add("s", "assistant", "the second line")
        first_sent, go_on = asyncio.Event(), asyncio.Event()
        sent: list[MutableMapping[str, Any]] = []

        async def slow_send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)
            if message["type"] == "http.response.body" and not first_sent.is_set():
                first_sent.set()
                await go_on.wait()

        export = asyncio.create_task(app(scope("/v1/sessions/s/export", "shop/exporter"),
                                         receiver(), slow_send))
        await asyncio.wait_for(first_sent.wait(), 10)
        answers: list[MutableMapping[str, Any]] = []

        async def collect(message: MutableMapping[str, Any]) -> None:
            answers.append(message)

        await app(scope("/v1/sessions/s/context", "shop/other"), receiver(), collect)
        assert answers[0]["status"] == 200
        assert tenants.tenants == ["shop/exporter"]
        assert tenants.peek("shop/exporter") is exporter
        go_on.set()
        await asyncio.wait_for(export, 10)
        assert sent[0]["status"] == 200
        body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        assert [json.loads(line)["content"] for line in body.splitlines()[:2]] == [
            "the first line", "the second line"]
        done.set()
