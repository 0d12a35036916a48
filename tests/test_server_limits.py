"""Per-key rates, per-tenant quotas, the import cap and the body read timeout, on a real
server over a real SQLite file."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path

import httpx
from server_helpers import auth, make_key, running_server

from memstrata import Memory, Settings

MSG = {"role": "user", "content": "the ferry leaves at nine"}


def _limited(r: httpx.Response) -> int:
    assert r.status_code == 429, r.text
    assert r.json()["error"]["type"] == "rate_limited"
    return int(r.headers["Retry-After"])


def test_a_key_past_its_rate_is_answered_429(tmp_path: Path) -> None:
    db = str(tmp_path / "r.db")
    slow = make_key(db, "t", rate_per_second=2)
    free = make_key(db, "t")
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        answers = [http.get("/v1/sessions", headers=auth(slow)) for _ in range(6)]
        statuses = [r.status_code for r in answers]
        assert statuses.count(200) in (2, 3) and 429 in statuses, statuses
        assert _limited(next(r for r in answers if r.status_code == 429)) >= 1
        # Another key of the same tenant has its own bucket (and no limit).
        assert all(http.get("/v1/sessions", headers=auth(free)).status_code == 200
                   for _ in range(6))
        time.sleep(1.1)
        assert http.get("/v1/sessions", headers=auth(slow)).status_code == 200


def test_the_default_rate_comes_from_the_settings(tmp_path: Path) -> None:
    db = str(tmp_path / "d.db")
    key = make_key(db, "t")
    settings = Settings(summary_cron=None, key_rate_per_second=1.0)
    with running_server(db, settings=settings) as url, httpx.Client(base_url=url) as http:
        statuses = [http.get("/v1/sessions", headers=auth(key)).status_code for _ in range(4)]
        assert statuses[0] == 200 and 429 in statuses, statuses


def test_tenant_quotas_of_messages_and_bytes(tmp_path: Path) -> None:
    db = str(tmp_path / "q.db")
    daily = make_key(db, "acme/*", messages_per_day=3)
    small = make_key(db, "tiny", stored_bytes=100)
    with running_server(db) as url, httpx.Client(base_url=url) as http:
        user = {**auth(daily), "X-Memstrata-Tenant": "acme/u1"}
        for _ in range(3):
            assert http.post("/v1/sessions/s/messages", headers=user, json=MSG
                             ).status_code == 201
            time.sleep(1.05)  # past the usage cache
        retry = _limited(http.post("/v1/sessions/s/messages", headers=user, json=MSG))
        assert 0 < retry <= 86_400
        # Reading still works, and each tenant under the prefix has its own quota.
        assert http.get("/v1/sessions", headers=user).status_code == 200
        other = {**auth(daily), "X-Memstrata-Tenant": "acme/u2"}
        assert http.post("/v1/sessions/s/messages", headers=other, json=MSG).status_code == 201
        big = {"role": "user", "content": "x" * 150}
        assert http.post("/v1/sessions/s/messages", headers=auth(small), json=big
                         ).status_code == 201
        time.sleep(1.05)
        _limited(http.post("/v1/sessions/s/messages", headers=auth(small), json=MSG))


def test_a_burst_of_adds_stops_at_the_days_quota(tmp_path: Path) -> None:
    db = str(tmp_path / "burst.db")
    key = make_key(db, "acme", messages_per_day=3)
    with running_server(db) as url, httpx.Client(base_url=url, headers=auth(key)) as http:
        # Faster than the holding is read again (once a second): each add let through
        # counts meanwhile.
        codes = [http.post("/v1/sessions/s/messages", json=MSG).status_code for _ in range(6)]
        assert codes == [201, 201, 201, 429, 429, 429]
        assert len(http.get("/v1/sessions/s/messages").json()["messages"]) == 3


def test_the_days_quota_counts_what_was_added_not_the_holding(tmp_path: Path) -> None:
    db = str(tmp_path / "day.db")

    async def older_messages() -> None:
        async with Memory.open(db, settings=Settings(embedder=None, summary_cron=None),
                               tenant="acme", background=False) as mem:
            await mem.add_many("old", [{"role": "user", "content": f"old {i}"}
                                       for i in range(10)])

    asyncio.run(older_messages())
    key = make_key(db, "acme", messages_per_day=4)
    with running_server(db) as url, httpx.Client(base_url=url, headers=auth(key)) as http:
        assert http.post("/v1/sessions/s/messages", json=MSG).status_code == 201
        # Deleting older messages makes no room in the day.
        assert http.delete("/v1/sessions/old").status_code == 200
        time.sleep(1.05)  # past the usage cache
        codes = [http.post("/v1/sessions/s/messages", json=MSG).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429]
    db2 = str(tmp_path / "batch.db")
    key = make_key(db2, "acme", messages_per_day=4)
    with running_server(db2) as url, httpx.Client(base_url=url, headers=auth(key)) as http:
        # A batch counts in full at once, and a refused add takes no place.
        assert http.post("/v1/sessions/s/messages", json={"role": "robot", "content": "x"}
                         ).status_code == 422
        assert http.post("/v1/sessions/s/messages/batch",
                         json={"items": [MSG] * 4}).status_code == 201
        _limited(http.post("/v1/sessions/s/messages", json=MSG))


def test_a_body_that_stops_arriving_is_cut_off(tmp_path: Path) -> None:
    db = str(tmp_path / "b.db")
    key = make_key(db, "t")
    with running_server(db, body_timeout=0.5) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(b"POST /v1/sessions/s/messages HTTP/1.1\r\nHost: x\r\n"
                         b"Authorization: Bearer " + key.encode() + b"\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            started = time.monotonic()
            answer = conn.recv(4096)
            assert time.monotonic() - started < 5
        assert answer.startswith(b"HTTP/1.1 408"), answer


def test_imports_past_the_cap_are_answered_429(tmp_path: Path) -> None:
    db = str(tmp_path / "i.db")
    key = make_key(db, "t")
    with running_server(db, max_imports=1, body_timeout=5) as url:
        port = int(url.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            # One import under way (its body still arriving) ...
            conn.sendall(b"POST /v1/sessions/s/import HTTP/1.1\r\nHost: x\r\n"
                         b"Authorization: Bearer " + key.encode() + b"\r\n"
                         b"Content-Type: application/x-ndjson\r\nContent-Length: 1000\r\n\r\n")
            time.sleep(0.3)
            # ... so a second one waits its turn.
            second = httpx.post(f"{url}/v1/sessions/s2/import", headers=auth(key),
                                content=b"", timeout=10)
            _limited(second)
