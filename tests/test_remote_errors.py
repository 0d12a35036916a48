"""What only a server can fail with reaches ``RemoteMemory`` as a typed exception carrying the
service's error shape: each failure is provoked on a real ``memstrata serve`` process (a key
without a scope, a tiny rate limit, a connection cap, a full disk, a database file deleted
under the server), and the exception's class, status, kind, ``retry_after`` and
``request_id`` are checked, with nothing changed by the refused call."""

from __future__ import annotations

import asyncio
import os
import re
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from serve_process import serve_process
from server_helpers import make_key

from memstrata import StoreError
from memstrata.client import Forbidden, RateLimited, RemoteMemory, ServerError, Unavailable
from memstrata.client._wire import retry_after
from memstrata.errors import DiskFull, MemstrataError

REQUEST_ID = re.compile(r"[0-9a-f]{32}")
DISK_BYTES = 24 << 20


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = str(tmp_path_factory.mktemp("errors") / "served.db")
    with serve_process(db) as url:
        yield url, db


def served_by(error: ServerError, status: int, kind: str | None) -> None:
    """The error carries the reply's status, kind and request id (named in its text)."""
    assert (error.status, error.kind) == (status, kind), error
    assert error.request_id is not None and REQUEST_ID.fullmatch(error.request_id)
    assert error.request_id in str(error)


async def test_a_key_without_the_write_scope_is_forbidden(served: tuple[str, str]) -> None:
    url, db = served
    async with RemoteMemory.open(url, make_key(db, "reader", scopes=("read",))) as mem:
        with pytest.raises(Forbidden) as info:
            await mem.add("trip", "user", "refused")
        served_by(info.value, 403, "forbidden")
        assert "'write' scope" in str(info.value) and info.value.retry_after is None
        assert await mem.recent("trip") == []  # reading is allowed; nothing was written


async def test_a_tiny_rate_limit_is_rate_limited_with_retry_after(
        served: tuple[str, str]) -> None:
    url, db = served
    # One request per 100 s: connecting takes the bucket's one token.
    async with RemoteMemory.open(url, make_key(db, "slow", rate_per_second=0.01)) as mem:
        with pytest.raises(RateLimited) as info:
            await mem.context("trip")
        served_by(info.value, 429, "rate_limited")
        assert info.value.retry_after is not None and 1 <= info.value.retry_after <= 100
    async with RemoteMemory.open(url, make_key(db, "slow")) as mem:
        assert await mem.recent("trip") == []


async def test_a_server_at_its_connection_cap_is_unavailable(tmp_path: Path) -> None:
    db = str(tmp_path / "capped.db")
    key = make_key(db, "acme")
    with serve_process(db, args=["--limit-concurrency", "2"]) as url:
        host, port = url.removeprefix("http://").split(":")
        async with RemoteMemory.open(url, key) as mem:
            held = [socket.create_connection((host, int(port)), timeout=10) for _ in range(2)]
            try:
                await _settle()
                with pytest.raises(Unavailable) as info:
                    await mem.add("trip", "user", "refused at the cap")
            finally:
                for conn in held:
                    conn.close()
            # The cap's answer comes from the HTTP server, not the service: no kind, no id.
            assert (info.value.status, info.value.kind) == (503, None)
            await _settle()
            stored = await mem.add("trip", "user", "taken once the cap is free")
            assert [m.id for m in await mem.recent("trip")] == [stored.id]


async def test_a_full_disk_is_disk_full_and_a_deleted_file_a_store_error(
        tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs",
                              str(disk)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root or a mount namespace of its own (mount "
                    f"said: {mounted.stderr.strip()}); run as root or under `unshare -rm`")
    try:
        db = str(disk / "served.db")
        key = make_key(db, "acme")
        with serve_process(db) as url:
            async with RemoteMemory.open(url, key) as mem:
                kept = await mem.add("trip", "user", "stored before the disk filled")
                _fill(disk / "filler.bin")
                full = await _until_refused(mem)
                assert isinstance(full, DiskFull) and not isinstance(full, ServerError)
                assert "disk holding the database is full" in str(full)
                assert REQUEST_ID.search(str(full))  # the server's log tells more under it
                (disk / "filler.bin").unlink()
                assert (await mem.add("trip", "user", "after freeing space")).id > kept.id
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{db}{suffix}").unlink(missing_ok=True)
                with pytest.raises(StoreError) as info:
                    await mem.add("trip", "user", "to a file that is gone")
                assert type(info.value) is StoreError
                assert "database failed" in str(info.value)
                assert REQUEST_ID.search(str(info.value))
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False, capture_output=True)


def test_retry_after_reads_seconds_and_dates() -> None:
    assert retry_after("60") == 60.0 and retry_after(" 1.5 ") == 1.5
    assert retry_after(None) is None and retry_after("soon") is None
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date passed: no wait
    later = retry_after("Fri, 01 Jan 2100 00:00:00 GMT")
    assert later is not None and later > 10**9
    assert retry_after("nan") is None and retry_after("-5") == 0.0


async def _settle() -> None:
    """Time for the server to accept (or see closed) the held connections."""
    await asyncio.sleep(0.3)


def _fill(path: Path) -> None:
    """Write ``path`` until the file system refuses a single byte more."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for chunk in (1 << 20, 64 << 10, 4 << 10, 1):
            block = b"\0" * chunk
            while True:
                try:
                    if os.write(fd, block) < chunk:
                        break
                except OSError:
                    break
    finally:
        os.close(fd)


async def _until_refused(mem: RemoteMemory) -> MemstrataError:
    """Write batches until one is refused (SQLite first fills pages it already holds)."""
    for n in range(200):
        items = [{"role": "user", "content": f"batch {n} message {i} " + "x" * 300}
                 for i in range(40)]
        try:
            await mem.add_many("full", items)
        except MemstrataError as exc:
            return exc
    raise AssertionError("the full disk never refused a write")
