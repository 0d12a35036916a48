"""Every route of the HTTP service over real HTTP: a uvicorn server on 127.0.0.1, a SQLite
file, httpx. What each route answers is checked against what the library stores."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import httpx
import pytest
from server_helpers import auth, make_key, running_server

from memstrata import Settings
from memstrata.errors import ProviderError
from memstrata.providers import FakeLLM, HashEmbedder, Vectors

SUMMARY = {"key_decisions": ["Do: take the train"], "past_discussions": [],
           "current_discussion": {"topic": "trip", "description": "tickets"}}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = str(tmp_path_factory.mktemp("api") / "memory.db")
    key = make_key(db, "acme")
    settings = Settings(window_messages=4, summary_cron=None, search_min_score=-1)
    with running_server(db, settings=settings) as url, \
            httpx.Client(base_url=url, headers=auth(key), timeout=30) as client:
        yield client


def root(api: httpx.Client) -> str:
    return str(api.base_url).rstrip("/")


def add(api: httpx.Client, session: str, content: str, role: str = "user",
        **extra: object) -> dict[str, object]:
    r = api.post(f"/v1/sessions/{session}/messages",
                 json={"role": role, "content": content, **extra})
    assert r.status_code == 201, r.text
    body: dict[str, object] = r.json()
    return body


def test_health_and_readiness_need_no_key(api: httpx.Client) -> None:
    assert httpx.get(root(api) + "/healthz").json() == {"status": "ok"}
    assert httpx.get(root(api) + "/readyz").json() == {"status": "ready"}


def test_add_returns_the_stored_message(api: httpx.Client) -> None:
    m = add(api, "add-1", "Let's take the train to Hualien.", sender="Mei",
            at=1_700_000_000_123_456_789, meta={"lang": "en"}, key="k-1")
    assert m["session"] == "add-1" and m["role"] == "user" and m["sender"] == "Mei"
    assert m["at"] == 1_700_000_000_123_456_789
    assert m["at_iso"] == "2023-11-14T22:13:20.123456Z"
    assert m["meta"] == {"lang": "en"}
    again = add(api, "add-1", "Let's take the train to Hualien.", key="k-1")
    assert again["id"] == m["id"]  # the idempotency key returns the stored message
    read = api.get(f"/v1/messages/{m['id']}").json()
    assert read == {"message": m, "before": [], "after": []}


def test_batch_is_all_or_nothing(api: httpx.Client) -> None:
    r = api.post("/v1/sessions/batch-1/messages/batch", json={"items": [
        {"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}]})
    assert r.status_code == 201
    assert [m["content"] for m in r.json()["messages"]] == ["one", "two"]
    bad = api.post("/v1/sessions/batch-1/messages/batch", json={"items": [
        {"role": "user", "content": "three"}, {"role": "robot", "content": "four"}]})
    assert bad.status_code == 422
    assert bad.json()["error"]["field"] == "items[1].role"
    listed = api.get("/v1/sessions/batch-1/messages").json()["messages"]
    assert [m["content"] for m in listed] == ["two", "one"]


def test_listing_pages_newest_first(api: httpx.Client) -> None:
    for i in range(5):
        add(api, "page-1", f"message {i}")
    seen: list[str] = []
    before = None
    for _ in range(5):
        params = {"limit": 2} | ({"before_id": before} if before else {})
        page = api.get("/v1/sessions/page-1/messages", params=params).json()
        seen += [m["content"] for m in page["messages"]]
        before = page["next_before_id"]
        if before is None:
            break
    assert seen == [f"message {i}" for i in reversed(range(5))]


def test_context_in_each_format(api: httpx.Client) -> None:
    for i in range(6):
        add(api, "ctx-1", f"turn {i}", role="user" if i % 2 == 0 else "assistant")
    plain = api.get("/v1/sessions/ctx-1/context").json()
    assert plain["format"] == "plain" and plain["summary"] is None
    assert [m["content"] for m in plain["messages"]] == [f"turn {i}" for i in range(2, 6)]
    assert plain["unsummarized"] == 2  # turns 0 and 1: older than the window, no summary
    openai = api.get("/v1/sessions/ctx-1/context", params={"format": "openai"}).json()
    assert openai["messages"][0]["role"] == "user"
    assert openai["messages"][0]["content"].endswith("]\nturn 2")
    api.post("/v1/sessions/ctx-1/summarize").raise_for_status()
    anthropic = api.get("/v1/sessions/ctx-1/context", params={"format": "anthropic"}).json()
    assert anthropic["summary_kind"] == "digest" and anthropic["unsummarized"] == 0
    assert anthropic["system_prompt"]
    assert anthropic["messages"][-1]["content"] == anthropic["turn_context"]
    empty = api.get("/v1/sessions/never-written/context").json()
    assert empty["messages"] == [] and empty["summary"] is None


def test_search_a_session_and_the_tenant(api: httpx.Client) -> None:
    add(api, "search-1", "The night market opens at six.")
    add(api, "search-1", "我妹妹想去花蓮看太魯閣。")
    add(api, "search-2", "The night bus leaves at ten.")
    params: dict[str, str | int] = {"q": "花蓮", "match": "keyword", "exclude_window": "false"}
    hits = api.get("/v1/sessions/search-1/search", params=params).json()
    assert hits["status"] == "ok"
    matched = [h["message"]["content"] for h in hits["hits"] if h["matched"]]
    assert matched == ["我妹妹想去花蓮看太魯閣。"]
    everywhere = api.get("/v1/search", params={"q": "night", "match": "keyword"}).json()
    sessions = {h["message"]["session"] for h in everywhere["hits"] if h["matched"]}
    assert {"search-1", "search-2"} <= sessions
    none = api.get("/v1/sessions/search-1/search",
                   params={"q": "zeppelin", "match": "keyword"}).json()
    assert none == {"hits": [], "status": "no_match"}


def test_read_with_neighbours_and_forget(api: httpx.Client) -> None:
    ids = [add(api, "read-1", f"line {i}")["id"] for i in range(5)]
    read = api.get(f"/v1/messages/{ids[2]}", params={"before": 1, "after": 2}).json()
    assert [m["id"] for m in read["before"]] == [ids[1]]
    assert [m["id"] for m in read["after"]] == ids[3:5]
    assert api.delete(f"/v1/messages/{ids[2]}").status_code == 204
    gone = api.get(f"/v1/messages/{ids[2]}")
    assert gone.status_code == 404 and gone.json()["error"]["type"] == "not_found"
    assert api.delete(f"/v1/messages/{ids[2]}").status_code == 404


def test_sessions_stats_summary_reset_and_remove(api: httpx.Client) -> None:
    for i in range(8):
        add(api, "life-1", f"plan step {i}")
    listed = {s["id"]: s for s in api.get("/v1/sessions").json()["sessions"]}
    assert listed["life-1"]["messages"] == 8 and not listed["life-1"]["has_summary"]
    stats = api.get("/v1/sessions/life-1").json()
    assert stats["session"] == "life-1" and stats["messages"] == 8
    empty = api.get("/v1/sessions/life-1/summary").json()
    assert empty == {"summary": None, "kind": None, "cursor": None, "tokens_in": 0,
                     "tokens_out": 0, "created_at": None, "created_at_ns": None}
    made = api.post("/v1/sessions/life-1/summarize").json()["summary"]
    assert made is not None and "plan step 0" in json.dumps(made)
    summary = api.get("/v1/sessions/life-1/summary").json()
    assert summary["summary"] == made and summary["kind"] == "digest"
    assert isinstance(summary["cursor"], int) and isinstance(summary["created_at"], int)
    tenant = api.get("/v1/stats").json()
    assert tenant["tenant"] == "acme" and tenant["messages"] >= 8
    assert api.post("/v1/sessions/life-1/reset", json={"mode": "summary"}).json() == {
        "reset": True}
    assert api.get("/v1/sessions/life-1").json()["messages"] == 0
    assert api.get("/v1/sessions/life-1/summary").json()["summary"] is not None
    assert api.delete("/v1/sessions/life-1").json() == {"removed": True}
    assert api.get("/v1/sessions/life-1").status_code == 404
    assert api.delete("/v1/sessions/life-1").status_code == 404


def test_export_then_import_round_trips(api: httpx.Client) -> None:
    add(api, "move-1", "first", sender="Mei")
    add(api, "move-1", "second", role="assistant")
    exported = api.get("/v1/sessions/move-1/export")
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    records = [json.loads(line) for line in exported.text.splitlines()]
    assert [r["content"] for r in records] == ["first", "second"]
    r = api.post("/v1/sessions/move-2/import", content=exported.content,
                 headers={"content-type": "application/x-ndjson"})
    assert r.json() == {"imported": 2}
    again = api.post("/v1/sessions/move-2/import", content=exported.content)
    assert again.json() == {"imported": 0}  # keys make a second import store nothing
    copied = api.get("/v1/sessions/move-2/messages").json()["messages"]
    assert [(m["content"], m["sender"]) for m in copied] == [("second", None),
                                                             ("first", "Mei")]
    bad = api.post("/v1/sessions/move-3/import", content=b'{"type": "message"}\nnot json\n')
    assert bad.status_code == 422 and bad.json()["error"]["field"].startswith("line 1")
    assert api.get("/v1/sessions/move-3").status_code == 404  # nothing was stored


def test_error_memory_routes(api: httpx.Client) -> None:
    r = api.post("/v1/errors", json={"tool_name": "web_fetch", "keywords": ["timeout"],
                                     "symptom": "GET timed out after 10 s",
                                     "action": "retry with a 30 s timeout"})
    assert r.status_code == 201
    record = r.json()
    assert record["tool_name"] == "web_fetch" and record["keywords"] == ["timeout"]
    assert record["created_at_iso"].endswith("Z") and record["hits"] == 0
    assert [e["id"] for e in api.get("/v1/errors").json()["errors"]] == [record["id"]]
    found = api.get("/v1/errors/search", params={"q": "timed out", "tool": "web_fetch"})
    assert [e["id"] for e in found.json()["errors"]] == [record["id"]]
    hint = api.get("/v1/errors/hint", params={"tool": "web_fetch",
                                              "error": "ReadTimeout: timed out"}).json()
    assert "retry with a 30 s timeout" in hint["hint"]
    assert api.get("/v1/errors/hint", params={"tool": "sql", "error": "zzz"}).json() == {
        "hint": None}
    by_prefix = api.get(f"/v1/errors/{record['id'][:8]}").json()
    assert by_prefix["id"] == record["id"] and by_prefix["hits"] == 2  # two searches hit it
    assert api.delete(f"/v1/errors/{record['id']}").status_code == 204
    assert api.get(f"/v1/errors/{record['id']}").status_code == 404
    assert api.delete(f"/v1/errors/{record['id']}").status_code == 404


def test_bad_input_is_422_naming_the_field(api: httpx.Client) -> None:
    cases = [
        (api.post("/v1/sessions/has space/messages", json={"role": "user", "content": "x"}),
         "session"),
        (api.post("/v1/sessions/s/messages", json={"role": "user"}), "content"),
        (api.post("/v1/sessions/s/messages", json={"role": "user", "content": 5}), "content"),
        (api.get("/v1/sessions/s/search"), "q"),
        (api.get("/v1/sessions/s/search", params={"q": " "}), "q"),
        (api.get("/v1/search", params={"q": ""}), "q"),
        (api.post("/v1/sessions/s/messages", json={"role": "user", "content": "x",
                                                   "colour": 1}), "colour"),
        (api.get("/v1/sessions/s/search", params={"q": "x", "time_range": "soon"}),
         "time_range"),
        (api.get("/v1/sessions/s/messages", params={"limit": 0}), "limit"),
        (api.get("/v1/sessions/s/context", params={"format": "xml"}), "format"),
        (api.post("/v1/sessions/s/messages", content=b"{not json",
                  headers={"content-type": "application/json"}), "body"),
        (api.get("/v1/errors/xyz"), "id"),
    ]
    for response, field in cases:
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["type"] == "invalid_input" and error["field"] == field, error
        assert error["message"]


def test_too_large_is_413(api: httpx.Client) -> None:
    long = api.post("/v1/sessions/big/messages", json={"role": "user", "content": "x" * 10_001})
    assert long.status_code == 413
    assert long.json()["error"] == {"type": "too_large", "field": "content",
                                    "message": long.json()["error"]["message"]}
    batch = api.post("/v1/sessions/big/messages/batch", json={"items": [
        {"role": "user", "content": "ok"}, {"role": "user", "content": "y" * 10_001}]})
    assert batch.status_code == 413 and batch.json()["error"]["field"] == "items[1].content"
    body = api.post("/v1/sessions/big/messages", content=b"x" * (1 << 20 + 1),
                    headers={"content-type": "application/json"})
    assert body.status_code == 413 and body.json()["error"]["type"] == "too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: cut off while reading
        for _ in range(20):
            yield b" " * 65_536

    streamed = api.post("/v1/sessions/big/messages", content=chunks(),
                        headers={"content-type": "application/json"})
    assert streamed.status_code == 413
    assert api.get("/v1/sessions/big").status_code == 404  # nothing was stored


def test_the_inspector_is_served_at_the_root(api: httpx.Client) -> None:
    page = httpx.get(root(api) + "/")
    assert page.status_code == 200 and "<html" in page.text.lower()


def test_a_failing_model_is_502_and_loses_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    key = make_key(db, "acme")
    llm = FakeLLM([ProviderError("model down"), json.dumps(SUMMARY)])
    with running_server(db, llm=llm, settings=Settings(summary_cron=None)) as url, \
            httpx.Client(base_url=url, headers=auth(key)) as api:
        add(api, "t", "Let's take the train, not a flight.")
        failed = api.post("/v1/sessions/t/summarize")
        assert failed.status_code == 502
        assert failed.json()["error"]["type"] == "provider_error"
        assert api.get("/v1/sessions/t/messages").json()["messages"][0]["content"].startswith(
            "Let's take the train")
        ok = api.post("/v1/sessions/t/summarize")
        assert ok.json()["summary"]["key_decisions"] == ["Do: take the train"]


def test_an_import_may_be_larger_than_other_bodies(api: httpx.Client) -> None:
    line = {"type": "message", "role": "user", "content": "z" * 9_000}
    body = "\n".join(json.dumps({**line, "key": f"k{i}"}) for i in range(200)).encode()
    assert len(body) > 1 << 20  # over the limit of every other route
    r = api.post("/v1/sessions/bulk-1/import", content=body,
                 headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 200, r.text
    assert r.json() == {"imported": 200}
    assert api.get("/v1/sessions/bulk-1").json()["messages"] == 200


class HeldEmbedder(HashEmbedder):
    """Embeds queries at once but never finishes a batch holding a message marked HOLD, so
    that message stays queued for the whole test."""

    async def embed(self, texts: Sequence[str]) -> Vectors:
        if any("HOLD" in t for t in texts):
            await asyncio.Event().wait()  # cancelled when the server stops
        return await super().embed(texts)


def test_search_says_when_indexing_is_pending(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    key = make_key(db, "acme")
    with running_server(db, embedder=HeldEmbedder(32)) as url, \
            httpx.Client(base_url=url, headers=auth(key)) as api:
        add(api, "p", "HOLD the lighthouse lamp")
        params = {"q": "lighthouse", "match": "semantic", "exclude_window": "false"}
        pending = api.get("/v1/sessions/p/search", params=params).json()
        assert pending == {"hits": [], "status": "indexing_pending"}
        assert api.get("/v1/sessions/p").json()["index_backlog"] == 1
        keyword = api.get("/v1/sessions/p/search", params={**params, "match": "keyword"})
        assert keyword.json()["status"] == "ok"  # the archive has it already
