"""On a full disk, reads and deletes go on: a read never writes (the stats of a session with
messages still waiting to be indexed included), and deleting a message or a whole session
succeeds, over the library and the HTTP service. Needs a tmpfs mount (root, or ``unshare
-rm``), like ``test_reliability_disk.py``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_helpers import auth, make_key, running_server
from test_reliability_disk import Disk, mounted_tmpfs

from memstrata import Memory, Settings
from memstrata.errors import DiskFull
from memstrata.providers import HashEmbedder

DISK_BYTES = 24 << 20


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    with mounted_tmpfs(tmp_path / "disk", DISK_BYTES) as d:
        yield d


def test_reads_and_deletes_work_on_a_full_disk_over_http(disk: Disk) -> None:
    db = str(disk.root / "service.db")
    key = make_key(db, "acme")
    # Messages stay queued for indexing (no background work): the stats of their session
    # must not try to catch the queue up, which writes.
    with running_server(db, embedder=HashEmbedder(64), background=False) as url, \
            httpx.Client(base_url=url, headers=auth(key), timeout=60) as client:
        for session in ("keep", "drop"):
            r = client.post(f"/v1/sessions/{session}/messages/batch", json={"items": [
                {"role": "user", "content": f"{session} message {i} " + "x" * 400}
                for i in range(200)]})
            assert r.status_code == 201, r.text
        one = r.json()["messages"][0]["id"]
        assert client.post("/v1/errors", json={
            "tool_name": "fetch", "keywords": ["timeout"], "symptom": "the fetch timed out",
            "action": "retry with a longer timeout"}).status_code == 201
        disk.fill()
        refused = client.post("/v1/sessions/keep/messages",
                              json={"role": "user", "content": "y" * 5000})
        assert refused.status_code == 507, refused.text
        for path in ("/v1/sessions/keep", "/v1/sessions/drop", "/v1/sessions",
                     "/v1/sessions/keep/messages", "/v1/sessions/keep/context", "/v1/stats",
                     f"/v1/messages/{one}", "/v1/errors", "/v1/errors/search?q=timeout",
                     "/v1/errors/hint?tool=fetch&error=timed+out"):
            answer = client.get(path)
            assert answer.status_code == 200, (path, answer.text)
        found = client.get("/v1/errors/search", params={"q": "timeout"}).json()["errors"]
        assert [e["tool_name"] for e in found] == ["fetch"]
        assert client.delete(f"/v1/messages/{one}").status_code == 204
        gone = client.delete("/v1/sessions/drop")
        assert gone.status_code == 200, gone.text
        assert client.get("/v1/sessions/drop").status_code == 404
        disk.free()
        assert client.post("/v1/sessions/keep/messages",
                           json={"role": "user", "content": "after"}).status_code == 201


async def test_a_session_is_removed_on_a_full_disk_by_the_library(disk: Disk) -> None:
    db = str(disk.root / "lib.db")
    settings = Settings(embedder=None, summary_cron=None)
    async with Memory.open(db, settings=settings, background=False) as mem:
        for session in ("a", "b"):
            await mem.add_many(session, [{"role": "user", "content": f"{i} " + "z" * 800}
                                         for i in range(300)])
        disk.fill()
        with pytest.raises(DiskFull):
            await mem.add("a", "user", "w" * 9000)
        assert await mem.remove("b")
        assert [s.id for s in await mem.sessions()] == ["a"]
        assert len(await mem.recent("a", limit=32)) == 32
        await asyncio.sleep(0)
