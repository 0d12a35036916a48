"""A full disk under a memstrata database: every kind of write is refused with ``DiskFull``
(never a raw driver error), nothing acknowledged is lost, nothing refused is stored, the file
stays consistent, and writing works again as soon as space is freed (without reopening, and
after reopening).

The database lives on a size-limited tmpfs mounted for the test, filled to the last byte (or
to a few kilobytes short of it) with a filler file. Mounting needs root, or a mount namespace:
``unshare -rm .venv/bin/pytest tests/test_reliability_disk.py``. Also here: the disk filling
while the WAL is checkpointed, and the HTTP service (507 ``disk_full``). The quick version
runs each write kind once (half on a completely full disk, half with 96 KiB left);
``MEMSTRATA_LONG=1`` runs every kind with eight amounts of room, six of them seeded random.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import sqlite3
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from server_helpers import auth, make_key, running_server

from memstrata import Memory, Settings
from memstrata.errors import DiskFull
from memstrata.providers import HashEmbedder

LONG = os.environ.get("MEMSTRATA_LONG") == "1"
DISK_BYTES = 48 << 20
KINDS = ("add", "add_many", "import", "vectors", "summary", "error_record")
_RNG = random.Random(7)
LONG_SLACKS = [0, 96 << 10, *sorted(_RNG.randrange(4 << 10, 768 << 10) for _ in range(6))]


def slacks(kind: str) -> list[int]:
    """Room left on the disk when the writes start: none for half the kinds and 96 KiB for
    the others when quick; both and six seeded amounts up to 768 KiB for every kind when
    long."""
    return LONG_SLACKS if LONG else [(96 << 10) * (KINDS.index(kind) % 2)]
MAX_ATTEMPTS = 600
QUEUED = 4_000
"""Messages waiting to be embedded when the disk fills (their vectors need ~1 MB)."""
SUMMARY_SESSIONS = 120
_CHUNKS = (1 << 20, 1 << 16, 1 << 12, 1 << 9, 1)


# -- the disk -------------------------------------------------------------------------------


@dataclass
class Disk:
    """A mounted tmpfs and a filler file on it."""

    root: Path

    @property
    def filler(self) -> Path:
        return self.root / "filler.bin"

    def available(self) -> int:
        st = os.statvfs(self.root)
        return st.f_bavail * st.f_frsize

    def fill(self, leave: int = 0) -> None:
        """Write the filler until about ``leave`` bytes are left (0: until the file system
        refuses a single byte)."""
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            for chunk in _CHUNKS:
                block = b"\0" * chunk
                while self.available() - chunk >= leave or (leave == 0 and chunk == 1):
                    try:
                        if os.write(fd, block) < chunk:
                            break
                    except OSError:
                        break
        finally:
            os.close(fd)

    def free(self) -> None:
        self.filler.unlink(missing_ok=True)

    def clear(self) -> None:
        for p in self.root.iterdir():
            p.unlink()


@contextlib.contextmanager
def mounted_tmpfs(where: Path, size: int, *, mode: str = "0755") -> Iterator[Disk]:
    """A tmpfs of ``size`` bytes at ``where``, unmounted after (lazily, so nothing left open
    can keep it); skips the test, saying why, when mounting is not allowed here."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode={mode}", "tmpfs",
                           str(where)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs needs root or a mount namespace of its own (mount "
                    f"said: {done.stderr.strip()}); run as root or under `unshare -rm`")
    try:
        yield Disk(where)
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    with mounted_tmpfs(tmp_path / "disk", DISK_BYTES) as d:
        yield d


def raw_integrity(path: Path) -> str:
    """SQLite's own verdict on the file, read outside memstrata."""
    c = sqlite3.connect(path)
    try:
        return str(c.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        c.close()


# -- what was acknowledged ------------------------------------------------------------------


@dataclass
class Ledger:
    """What memstrata acknowledged: message texts (unique), error record ids, and the summary
    cursor of every session whose summary save returned."""

    messages: dict[str, tuple[str, str]] = field(default_factory=dict)
    """content -> (session, role)"""
    errors: set[str] = field(default_factory=set)
    cursors: dict[str, int | None] = field(default_factory=dict)
    counter: int = 0

    def text(self, tag: str, size: int = 120) -> str:
        self.counter += 1
        head = f"{tag} #{self.counter:06d} "
        return head + ("lorem ipsum dolor " * (size // 18 + 1))[:max(size - len(head), 0)]

    def items(self, session: str, n: int, size: int = 300) -> list[dict[str, str]]:
        """``n`` new messages (not yet acknowledged: ``ack`` them once the write returns)."""
        return [{"role": "user" if i % 2 == 0 else "assistant", "content": self.text(session, size)}
                for i in range(n)]

    def ack(self, session: str, items: list[dict[str, str]]) -> None:
        for item in items:
            self.messages[item["content"]] = (session, item["role"])

    async def verify(self, mem: Memory) -> None:
        """Everything acknowledged is stored, nothing refused is, and the file checks."""
        stored: dict[str, tuple[str, str]] = {}
        for info in await mem.sessions():
            async for record in mem.export(info.id):
                if record["type"] == "message":
                    assert record["content"] not in stored, "a message is stored twice"
                    stored[record["content"]] = (info.id, record["role"])
        lost = set(self.messages) - set(stored)
        extra = set(stored) - set(self.messages)
        assert not lost, f"{len(lost)} acknowledged message(s) lost, e.g. {sorted(lost)[:2]}"
        assert not extra, f"{len(extra)} refused message(s) stored, e.g. {sorted(extra)[:2]}"
        assert stored == self.messages
        assert {r.id for r in await mem.errors.list()} == self.errors
        for session, cursor in self.cursors.items():
            summary = await mem.summary(session)
            assert summary is not None and summary.cursor == cursor
        assert await mem.check() == []


def opened(path: Path) -> contextlib.AbstractAsyncContextManager[Memory]:
    return Memory.open(str(path), settings=Settings(embedder=None, summary_cron=None),
                       embedder=HashEmbedder(32), llm=None, decision_llm=None,
                       background=False)


# -- each kind of write ---------------------------------------------------------------------


async def prepare(mem: Memory, ledger: Ledger, kind: str) -> None:
    """Acknowledged writes of every kind, and the work a kind needs waiting (messages to
    embed, sessions to summarise)."""
    for s in ("base-0", "base-1"):
        items = ledger.items(s, 30)
        await mem.add_many(s, items)
        ledger.ack(s, items)
    for _ in range(2):
        ledger.errors.add((await mem.errors.write(
            tool_name="web_fetch", keywords=["timeout"], symptom=ledger.text("symptom"),
            action="retry")).id)
    await mem.flush()
    await summarize(mem, ledger, "base-0")
    if kind == "vectors":
        for _ in range(QUEUED // 500):
            items = ledger.items("queued", 500, 80)
            await mem.add_many("queued", items)
            ledger.ack("queued", items)
    if kind == "summary":
        for i in range(SUMMARY_SESSIONS):
            items = ledger.items(f"sum-{i}", 40)
            await mem.add_many(f"sum-{i}", items)
            ledger.ack(f"sum-{i}", items)


async def summarize(mem: Memory, ledger: Ledger, session: str) -> None:
    await mem.summarize(session)
    summary = await mem.summary(session)
    assert summary is not None
    ledger.cursors[session] = summary.cursor


async def attempt(mem: Memory, ledger: Ledger, kind: str, n: int) -> None:
    """One write of ``kind``; what it wrote is acknowledged once it returns."""
    if kind == "add":
        text = ledger.text("w-add", 1_500)
        await mem.add("w-add", "user", text)
        ledger.messages[text] = ("w-add", "user")
    elif kind == "add_many":
        items = ledger.items("w-many", 40)
        await mem.add_many("w-many", items)
        ledger.ack("w-many", items)
    elif kind == "import":
        items = ledger.items("w-import", 40)
        added = await mem.import_("w-import", [{"type": "message", **i} for i in items])
        assert added == len(items)
        ledger.ack("w-import", items)
    elif kind == "vectors":
        await mem.flush(timeout=60)
    elif kind == "summary":
        await summarize(mem, ledger, f"sum-{n % SUMMARY_SESSIONS}")
    else:
        ledger.errors.add((await mem.errors.write(
            tool_name="web_fetch", keywords=["timeout", f"n{n}"],
            symptom=ledger.text("symptom", 1_500), action="retry with a longer timeout")).id)


async def until_refused(mem: Memory, ledger: Ledger, kind: str) -> tuple[int, DiskFull]:
    """Write until the disk refuses; every write before that is acknowledged, and the
    refusal must be ``DiskFull`` (anything else fails the test)."""
    for n in range(MAX_ATTEMPTS):
        try:
            await attempt(mem, ledger, kind, n)
        except DiskFull as exc:
            return n, exc
    raise AssertionError(f"{MAX_ATTEMPTS} writes of {kind} on a full disk all succeeded")


async def one_round(disk: Disk, kind: str, slack: int) -> tuple[int, int]:
    """Returns (writes acknowledged on the filling disk, messages acknowledged in all)."""
    ledger = Ledger()
    db = disk.root / "memory.db"
    async with opened(db) as mem:
        await prepare(mem, ledger, kind)
    # Reopened with the WAL checkpointed away: the first writes need new space at once.
    async with opened(db) as mem:
        await mem.context("base-0")
        disk.fill(leave=slack)
        written, refused = await until_refused(mem, ledger, kind)
        assert "full" in str(refused) and str(db) in str(refused)
        with pytest.raises(DiskFull):
            await attempt(mem, ledger, kind, written + 1)
        # Reads go on while the disk is full, and see every acknowledged write.
        assert len((await mem.context("base-0")).messages) == 16
        await ledger.verify(mem)
        disk.free()
        # The same Memory writes again, the refused kind first.
        await attempt(mem, ledger, kind, written + 2)
        items = ledger.items("after", 3)
        await mem.add_many("after", items)
        ledger.ack("after", items)
        await mem.flush(timeout=60)
        assert await mem.index_backlog() == 0
        await ledger.verify(mem)
    async with opened(db) as mem:
        await ledger.verify(mem)
    assert raw_integrity(db) == "ok"
    return written, len(ledger.messages)


@pytest.mark.parametrize("kind", KINDS)
async def test_full_disk_refuses_each_write_kind_and_recovers(disk: Disk, kind: str) -> None:
    writes = messages = 0
    rounds = slacks(kind)
    for slack in rounds:
        w, m = await one_round(disk, kind, slack)
        writes += w
        messages += m
        disk.clear()
    print(f"\nfull disk sqlite {kind}: rounds={len(rounds)} slack_kib={[s >> 10 for s in rounds]} "
          f"refusals={len(rounds)} writes_acknowledged_while_filling={writes} "
          f"messages_acknowledged={messages} lost=0 stored_after_refusal=0 "
          f"recovered_without_reopen={len(rounds)}")


WAL_AUTOCHECKPOINT_BYTES = 1_000 * 4_096
"""SQLite's default: a commit that leaves the WAL this long checkpoints it."""


async def test_full_disk_at_checkpoint_time(disk: Disk) -> None:
    """The disk fills while the WAL is being checkpointed into the main file (which must grow
    to take the pages): the commits stay acknowledged in the WAL, the next write that needs
    space is refused, closing with the disk full leaves the WAL to be replayed, and reopening
    (full, then freed) finds everything."""
    ledger = Ledger()
    db = disk.root / "memory.db"
    wal = Path(f"{db}-wal")
    async with opened(db) as mem:
        items = ledger.items("base", 20)
        await mem.add_many("base", items)
        ledger.ack("base", items)
        # Room for the WAL to reach its checkpoint size, not for the main file to take it.
        disk.fill(leave=WAL_AUTOCHECKPOINT_BYTES + (1 << 20))
        batches = 0
        with pytest.raises(DiskFull):
            while batches < MAX_ATTEMPTS:
                items = ledger.items("ckpt", 10, 1_000)
                await mem.add_many("ckpt", items)
                ledger.ack("ckpt", items)
                batches += 1
        wal_bytes, db_bytes = wal.stat().st_size, db.stat().st_size
        assert wal_bytes >= WAL_AUTOCHECKPOINT_BYTES, "the checkpoint was never reached"
        await ledger.verify(mem)
    # Closed with the disk full: the last checkpoint could not run; the WAL stays.
    assert wal.exists()
    async with opened(db) as mem:
        await ledger.verify(mem)
        with pytest.raises(DiskFull):
            await mem.add_many("ckpt", ledger.items("ckpt", 10, 1_000))
        disk.free()
        items = ledger.items("ckpt", 10, 1_000)
        await mem.add_many("ckpt", items)
        ledger.ack("ckpt", items)
        await ledger.verify(mem)
    assert not wal.exists() and raw_integrity(db) == "ok"
    async with opened(db) as mem:
        await ledger.verify(mem)
    print(f"\nfull disk sqlite checkpoint: batches_acknowledged={batches} "
          f"messages_acknowledged={len(ledger.messages)} wal_bytes_at_refusal={wal_bytes} "
          f"db_bytes_at_refusal={db_bytes} lost=0 integrity=ok")


def test_full_disk_http_service_answers_507_and_recovers(disk: Disk) -> None:
    """The service on a full disk: a refused write is answered 507 ``disk_full`` with a
    message saying so (not 500), reads go on, and the same server stores again once space is
    freed; everything answered 201 is in the file."""
    db = disk.root / "service.db"
    key = make_key(str(db), "acme")
    acked: set[str] = set()
    ledger = Ledger()
    refused = 0
    with running_server(str(db)) as base, httpx.Client(base_url=base, headers=auth(key),
                                                       timeout=30) as client:
        def post(n: int) -> httpx.Response:
            items = ledger.items("svc", n, 300)
            r = client.post("/v1/sessions/svc/messages/batch", json={"items": items})
            if r.status_code == 201:
                acked.update(i["content"] for i in items)
            return r

        assert post(20).status_code == 201
        disk.fill()
        for _ in range(MAX_ATTEMPTS):
            r = post(40)
            if r.status_code != 201:
                break
        assert r.status_code == 507, r.text
        error = r.json()["error"]
        assert error["type"] == "disk_full" and "full" in error["message"]
        refused += 1
        assert client.get("/v1/sessions/svc/messages").status_code == 200
        disk.free()
        assert post(40).status_code == 201
    stored = asyncio.run(_contents(db, "acme"))
    assert stored == acked
    assert raw_integrity(db) == "ok"
    print(f"\nfull disk http: refusals={refused} status=507 messages_acknowledged={len(acked)} "
          "lost=0 stored_after_refusal=0 recovered_without_restart=1")


async def _contents(db: Path, tenant: str) -> set[str]:
    async with Memory.open(str(db), settings=Settings(embedder=None), tenant=tenant,
                           background=False) as mem:
        return {r["content"] async for r in mem.export("svc") if r["type"] == "message"}

