"""Nanosecond times on the wire as decimal strings: every ``at`` (and ``first_at``,
``created_at`` …) the service gives has an exact ``…_ns`` string beside it, and a message may be
sent with ``at_ns`` instead of ``at``. JavaScript's JSON.parse rounds the numbers (they pass
2^53); the strings survive every language."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from server_helpers import auth, make_key, running_server

from memstrata.client._wire import message, session_info

# Odd in its last digits, so a float (53-bit) copy cannot equal it.
AT = 1_700_000_000_123_456_789


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = str(tmp_path_factory.mktemp("at_ns") / "memory.db")
    key = make_key(db, "acme")
    with running_server(db) as url, \
            httpx.Client(base_url=url, headers=auth(key), timeout=30) as client:
        yield client


def post(api: httpx.Client, session: str, **body: object) -> httpx.Response:
    return api.post(f"/v1/sessions/{session}/messages",
                    json={"role": "user", "content": "hello", **body})


def test_every_message_carries_at_ns(api: httpx.Client) -> None:
    m = post(api, "ns-out", at=AT).json()
    assert m["at"] == AT and m["at_ns"] == str(AT)
    assert float(m["at"]) != AT  # why the string is needed
    assert api.get(f"/v1/messages/{m['id']}").json()["message"]["at_ns"] == str(AT)
    page = api.get("/v1/sessions/ns-out/messages").json()["messages"]
    assert [x["at_ns"] for x in page] == [str(AT)]
    ctx = api.get("/v1/sessions/ns-out/context").json()["messages"]
    assert [x["at_ns"] for x in ctx] == [str(AT)]
    hits = api.get("/v1/sessions/ns-out/search",
                   params={"q": "hello", "exclude_window": False}).json()["hits"]
    assert hits and all(h["message"]["at_ns"] == str(h["message"]["at"]) for h in hits)


def test_session_summary_and_error_times_carry_ns_strings(api: httpx.Client) -> None:
    post(api, "ns-session", at=AT)
    post(api, "ns-session", at=AT + 1)
    [s] = [s for s in api.get("/v1/sessions").json()["sessions"] if s["id"] == "ns-session"]
    assert (s["first_at_ns"], s["last_at_ns"]) == (str(AT), str(AT + 1))
    summary = api.get("/v1/sessions/ns-session/summary").json()
    assert summary["created_at"] is None and summary["created_at_ns"] is None
    lines = (json.dumps({"type": "message", "role": "user", "content": "hi", "at": AT}) + "\n"
             + json.dumps({"type": "summary", "kind": "digest", "body": {"text": "hi"},
                           "created_at": AT + 2}))
    assert api.post("/v1/sessions/ns-summary/import", content=lines,
                    headers={"Content-Type": "application/x-ndjson"}).status_code == 200
    summary = api.get("/v1/sessions/ns-summary/summary").json()
    assert (summary["created_at"], summary["created_at_ns"]) == (AT + 2, str(AT + 2))
    record = api.post("/v1/errors", json={"tool_name": "grep", "symptom": "exit 2",
                                          "action": "quote the pattern"}).json()
    assert record["created_at_ns"] == str(record["created_at"])
    assert record["expires_at_ns"] == str(record["expires_at"])


def test_at_ns_is_accepted_as_input(api: httpx.Client) -> None:
    r = post(api, "ns-in", at_ns=str(AT))
    assert r.status_code == 201, r.text
    assert r.json()["at"] == AT and r.json()["at_ns"] == str(AT)
    both = post(api, "ns-in", at=AT + 5, at_ns=str(AT + 5), content="both")
    assert both.status_code == 201 and both.json()["at"] == AT + 5
    batch = api.post("/v1/sessions/ns-in/messages/batch", json={"items": [
        {"role": "user", "content": "one", "at_ns": str(AT + 10)},
        {"role": "assistant", "content": "two", "at": AT + 11}]})
    assert batch.status_code == 201, batch.text
    assert [m["at_ns"] for m in batch.json()["messages"]] == [str(AT + 10), str(AT + 11)]


def count(api: httpx.Client, session: str) -> int:
    return len(api.get(f"/v1/sessions/{session}/messages").json()["messages"])


@pytest.mark.parametrize("bad", ["", "-1", "1.5e18", " 17", "١٢٣", "9" * 19, "x"])
def test_bad_at_ns_is_422_naming_it(api: httpx.Client, bad: str) -> None:
    r = post(api, "ns-bad", at_ns=bad)
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == "at_ns" and "decimal digits" in error["message"]
    assert count(api, "ns-bad") == 0


def test_at_ns_as_a_number_is_422_naming_it(api: httpx.Client) -> None:
    r = post(api, "ns-bad", at_ns=AT)
    assert r.status_code == 422 and r.json()["error"]["field"] == "at_ns"


def test_at_and_at_ns_that_disagree_are_422_and_store_nothing(api: httpx.Client) -> None:
    r = post(api, "ns-disagree", at=AT, at_ns=str(AT + 1))
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    assert error["field"] == "at_ns" and "disagrees with at" in error["message"]
    batch = api.post("/v1/sessions/ns-disagree/messages/batch", json={"items": [
        {"role": "user", "content": "fine"},
        {"role": "user", "content": "not fine", "at": AT, "at_ns": str(AT - 1)}]})
    assert batch.status_code == 422
    error = batch.json()["error"]
    assert error["field"] == "items[1].at_ns" and "items[1].at" in error["message"]
    assert count(api, "ns-disagree") == 0


def test_openapi_declares_the_strings(api: httpx.Client) -> None:
    schemas = api.get("/openapi.json").json()["components"]["schemas"]
    out = schemas["MessageOut"]
    assert out["properties"]["at_ns"]["type"] == "string" and "at_ns" in out["required"]
    assert "2^53" in out["properties"]["at"]["description"]
    assert "at_ns" in schemas["MessageIn"]["properties"]
    assert {"first_at_ns", "last_at_ns"} <= set(schemas["SessionOut"]["properties"])
    assert "created_at_ns" in schemas["SummaryOut"]["properties"]
    assert {"created_at_ns", "expires_at_ns"} <= set(schemas["ErrorRecordOut"]["properties"])


def test_the_python_client_reads_the_exact_string() -> None:
    # A relay that went through a float (as a JavaScript one would) rounds the number; the
    # string keeps every digit, and the client takes it.
    rounded = float(AT)
    m = message({"id": 1, "session": "s", "role": "user", "content": "x", "at": rounded,
                 "at_ns": str(AT), "sender": None, "meta": None})
    assert m.at == AT
    s = session_info({"id": "s", "messages": 1, "first_at": rounded, "last_at": rounded,
                      "first_at_ns": str(AT), "last_at_ns": str(AT + 1), "has_summary": False})
    assert (s.first_at, s.last_at) == (AT, AT + 1)
    old = message({"id": 1, "session": "s", "role": "user", "content": "x", "at": AT})
    assert old.at == AT  # a server without the strings still works
