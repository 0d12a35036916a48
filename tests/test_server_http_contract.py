"""HTTP as clients expect it: HEAD and OPTIONS on every route, 415 for a body that is not
declared as JSON, 409 for a reused idempotency key with other content, and session ids no URL
can carry (``.``, ``..``) refused by the service, the MCP tools and the library alike."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from mcp.client import Client
from mcp_checks import error_text
from server_helpers import auth, make_key, running_server

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput, KeyConflict
from memstrata.server._mcp import build_mcp


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = str(tmp_path_factory.mktemp("contract") / "m.db")
    key = make_key(db, "acme")
    with running_server(db) as url, httpx.Client(base_url=url, headers=auth(key),
                                                 timeout=30) as client:
        yield client


def test_head_answers_as_get_without_a_body(api: httpx.Client) -> None:
    assert api.post("/v1/sessions/h/messages", json={"role": "user", "content": "x"}
                    ).status_code == 201
    for path in ("/healthz", "/readyz", "/v1/sessions", "/v1/sessions/h",
                 "/v1/sessions/h/messages", "/v1/sessions/h/export", "/openapi.json", "/"):
        get, head = api.get(path), api.head(path)
        assert head.status_code == get.status_code == 200, (path, head.status_code)
        assert head.content == b"", path
        assert head.headers["content-type"] == get.headers["content-type"], path
    assert api.head("/v1/sessions/missing").status_code == 404
    # MCP's GET opens an event stream that never ends: HEAD there is refused, not hung.
    assert api.head("/mcp", timeout=10).status_code == 405


def test_options_lists_the_methods_a_path_takes(api: httpx.Client) -> None:
    def allow(path: str) -> set[str]:
        answer = httpx.options(f"{api.base_url}{path}")  # no key needed
        assert answer.status_code == 204, (path, answer.text)
        return set(answer.headers["allow"].split(", "))

    assert allow("/v1/sessions/s") == {"GET", "HEAD", "DELETE", "OPTIONS"}
    assert allow("/v1/sessions/s/messages/batch") == {"POST", "OPTIONS"}
    assert allow("/v1/sessions/s/messages") == {"GET", "HEAD", "POST", "OPTIONS"}
    assert allow("/healthz") == {"GET", "HEAD", "OPTIONS"}
    assert allow("/index.html") == {"GET", "HEAD", "OPTIONS"}


@pytest.mark.parametrize("content_type",
                         [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_not_declared_as_json_is_415(api: httpx.Client,
                                            content_type: str | None) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    session = f"m-{len(content_type or '')}"
    for path in (f"/v1/sessions/{session}/messages", f"/v1/sessions/{session}/messages/batch",
                 "/v1/errors"):
        answer = api.post(path, content=b'{"role": "user", "content": "x"}', headers=headers)
        assert answer.status_code == 415, (path, answer.text)
        error = answer.json()["error"]
        assert error["type"] == "unsupported_media_type"
        assert "application/json" in error["message"]
    assert api.get(f"/v1/sessions/{session}").status_code == 404  # nothing was stored
    assert api.post(f"/v1/sessions/{session}/messages", content=b'{"role": "user", "content": "x"}',
                    headers={"Content-Type": "application/json; charset=utf-8"}
                    ).status_code == 201


def test_a_reused_key_with_other_content_is_409(api: httpx.Client) -> None:
    first = api.post("/v1/sessions/k/messages", json={"role": "user", "content": "a",
                                                      "key": "k-1"})
    again = api.post("/v1/sessions/k/messages", json={"role": "user", "content": "a",
                                                      "key": "k-1"})
    assert first.status_code == again.status_code == 201
    assert first.json()["id"] == again.json()["id"]
    other = api.post("/v1/sessions/k/messages", json={"role": "user", "content": "b",
                                                      "key": "k-1"})
    assert other.status_code == 409, other.text
    assert other.json()["error"]["type"] == "conflict"
    assert other.json()["error"]["field"] == "key"
    batch = api.post("/v1/sessions/k/messages/batch", json={"items": [
        {"role": "user", "content": "new", "key": "k-2"},
        {"role": "assistant", "content": "a", "key": "k-1"}]})
    assert batch.status_code == 409, batch.text
    inside = api.post("/v1/sessions/k/messages/batch", json={"items": [
        {"role": "user", "content": "c", "key": "k-3"},
        {"role": "user", "content": "d", "key": "k-3"}]})
    assert inside.status_code == 409, inside.text
    stored = api.get("/v1/sessions/k/messages").json()["messages"]
    assert [m["content"] for m in stored] == ["a"]  # nothing of a refused batch


@pytest.mark.parametrize("session", [".", ".."])
async def test_dot_session_ids_are_refused_by_library_and_mcp(session: str) -> None:
    async with Memory.open(":memory:", settings=Settings(embedder=None, summary_cron=None),
                           background=False) as mem:
        with pytest.raises(InvalidInput, match=r"not '\.' or '\.\.'"):
            await mem.add(session, "user", "x")
        async with Client(build_mcp(lambda _request: mem)) as client:
            message = await error_text(client.session, "remember", session=session,
                                       role="user", content="x")
            nul = await error_text(client.session, "error_history", mode="search",
                                   keyword="timeout", tool="fetch\x00")
        assert "not '.' or '..'" in message
        assert "tool:" in nul and "control characters" in nul
        assert await mem.add("...", "user", "three dots are a name") is not None
        with pytest.raises(KeyConflict):
            await mem.add("k", "user", "a", key="1")
            await mem.add("k", "user", "b", key="1")


def test_a_dot_session_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    key = make_key(db, "acme")
    # Sent as the raw path, with no client folding the dots.
    with running_server(db) as url, httpx.Client(base_url=url, headers=auth(key)) as client:
        request = client.build_request("GET", f"{url}/v1/sessions/x/messages")
        request.url = request.url.copy_with(raw_path=b"/v1/sessions/%2E%2E/messages")
        answer = client.send(request)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["field"] == "session"


def test_an_import_without_a_body_is_refused(api: httpx.Client) -> None:
    for body in (b"", b"\n  \n"):
        answer = api.post("/v1/sessions/empty/import", content=body,
                          headers={"Content-Type": "application/x-ndjson"})
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["field"] == "body"
    assert api.get("/v1/sessions/empty").status_code == 404
