"""Damaged database files: a WAL cut short after a crash, pages and bits of the main file
overwritten, and the file deleted or replaced under a running process.

What is promised, and measured against data known to have been written:

* a torn WAL loses nothing committed before its last intact commit (SQLite's frame
  checksums end the log there), and nothing after it is seen;
* damage to the main file gives a clear error (``DatabaseCorrupt``/``StoreError``) or correct
  answers. Each round is classified by comparing every read with what was written: clear
  error, correct, or SILENTLY WRONG. SQLite keeps no checksum of page contents, so a flipped
  bit inside a message's stored text is read back as different text: those rounds are
  counted, not hidden (``memstrata check`` catches most of them through the full-text index);
* ``salvage`` copies out what is readable (counted against what was written);
* a write after the file was deleted or replaced raises instead of being acknowledged into a
  file nobody can open again.

Quick by default (30 rounds of damage, 24 WAL cuts); ``MEMSTRATA_LONG=1`` runs 1,000 and 400.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memstrata import Memory, Settings
from memstrata.errors import MemstrataError, StoreError
from memstrata.store import check_file, salvage

LONG = os.environ.get("MEMSTRATA_LONG") == "1"
ROUNDS = 1_000 if LONG else 30
WAL_CUTS = 400 if LONG else 24
SESSIONS = ("trip", "work", "family")
PER_SESSION = 300
SEARCHED = 6
"""Messages looked up by their unique word in each round."""
WRITER = Path(__file__).parent / "scripts" / "disk_wal_writer.py"
TOPICS = ["the train to Hualien", "花蓮的夜市和太魯閣", "quarterly report numbers",
          "a beef noodle soup place", "book the hotel in Da'an"]

Row = tuple[str, str, str, str | None]
"""(session, role, content, sender) of a message."""


def settings() -> Settings:
    return Settings(embedder=None, summary_cron=None)


def word(session: str, i: int) -> str:
    """A word only this message holds (found by keyword search)."""
    return f"k{session}{i:04d}x"


@dataclass(frozen=True)
class Healthy:
    path: Path
    rows: dict[int, Row]
    page_size: int
    payload: list[tuple[int, int]]
    """(offset in the file, length) of each message's text as stored."""


async def _build(path: Path) -> None:
    async with Memory.open(str(path), settings=settings(), background=False) as mem:
        for session in SESSIONS:
            await mem.add_many(session, [
                {"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"[{session} {word(session, i)}] {TOPICS[i % len(TOPICS)]}",
                 "sender": "Mei" if i % 2 == 0 else None} for i in range(PER_SESSION)])
        await mem.summarize("trip")
        await mem.errors.write(tool_name="web_fetch", keywords=["timeout"],
                               symptom="GET timed out", action="retry with 120 s")


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Healthy:
    path = tmp_path_factory.mktemp("healthy") / "memory.db"
    asyncio.run(_build(path))
    c = sqlite3.connect(path)
    try:
        rows = {int(r[0]): (str(r[1]), str(r[2]), str(r[3]), r[4]) for r in c.execute(
            "SELECT id, session, role, content, sender FROM messages")}
        page_size = int(c.execute("PRAGMA page_size").fetchone()[0])
    finally:
        c.close()
    data = path.read_bytes()
    payload = []
    for _s, _r, content, _sender in rows.values():
        raw = content.encode()
        payload.append((data.index(raw), len(raw)))
    return Healthy(path, rows, page_size, payload)


# -- damage ---------------------------------------------------------------------------------


def damage(healthy: Healthy, dest: Path, rng: random.Random) -> str:
    """A copy of the healthy file with one kind of fault; returns the kind."""
    data = bytearray(healthy.path.read_bytes())
    pages = len(data) // healthy.page_size
    kind = rng.choice(("page", "zero_page", "bit_flips", "payload_flip"))
    if kind in ("page", "zero_page"):
        for page in rng.sample(range(pages), rng.randint(1, 3)):
            start = page * healthy.page_size
            data[start:start + healthy.page_size] = (
                rng.randbytes(healthy.page_size) if kind == "page" else bytes(healthy.page_size))
    elif kind == "bit_flips":
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    else:
        # Inside a message's stored text: what no page structure check can see.
        offset, length = rng.choice(healthy.payload)
        data[offset + rng.randrange(length)] ^= 1 << rng.randrange(8)
    dest.write_bytes(bytes(data))
    return kind


# -- reading it back ------------------------------------------------------------------------


@dataclass
class Outcome:
    errors: list[str]
    """Reads refused with a memstrata error (clear)."""
    wrong: list[str]
    """Reads that returned something other than what was written."""
    raw: list[str]
    """Reads that failed with something other than a memstrata error (not clear)."""

    @property
    def verdict(self) -> str:
        return ("wrong" if self.wrong else "raw" if self.raw else "error" if self.errors
                else "correct")


async def read_back(path: Path, healthy: Healthy, rng: random.Random) -> Outcome:
    """Every read a user would make, compared with what was written. A memstrata error is a
    clear error; any other exception is counted as not clear."""
    out = Outcome([], [], [])
    try:
        mem = await Memory.open(str(path), settings=settings(), background=False)
    except MemstrataError as exc:
        out.errors.append(f"open: {type(exc).__name__}")
        return out
    try:
        await _compare(mem, healthy, rng, out)
    finally:
        await mem.close()
    return out


async def _compare(mem: Memory, healthy: Healthy, rng: random.Random, out: Outcome) -> None:
    async def guarded(what: str, coro: Any) -> Any:
        try:
            return await coro
        except MemstrataError as exc:
            out.errors.append(f"{what}: {type(exc).__name__}")
        except Exception as exc:  # counted, and failed at the end of the campaign
            out.raw.append(f"{what}: {type(exc).__name__}: {exc}"[:300])
        return None

    listed = await guarded("sessions", mem.sessions())
    if listed is not None and sorted(s.id for s in listed) != sorted(SESSIONS):
        out.wrong.append(f"sessions listed: {sorted(s.id for s in listed)}")
    for session in SESSIONS:
        rows = await guarded(f"export {session}", _export(mem, session))
        if rows is not None:
            expected = {i: r for i, r in healthy.rows.items() if r[0] == session}
            if rows != expected:
                bad = {i for i in expected.keys() | rows.keys()
                       if rows.get(i) != expected.get(i)}
                out.wrong.append(f"export {session}: {len(bad)} message(s) differ")
        ctx = await guarded(f"context {session}", mem.context(session))
        if ctx is not None:
            for m in ctx.messages:
                if healthy.rows.get(m.id) != (session, m.role, m.content, m.sender):
                    out.wrong.append(f"context {session}: message {m.id} differs")
    for mid in rng.sample(sorted(healthy.rows), SEARCHED):
        session, _role, _content, _sender = healthy.rows[mid]
        i = (mid - 1) % PER_SESSION
        hits = await guarded("search", mem.search(session, word(session, i), match="keyword",
                                                  exclude_window=False))
        if hits is not None:
            found = {h.message.id: h.message.content for h in hits if h.matched}
            if found != {mid: healthy.rows[mid][2]}:
                out.wrong.append(f"search {word(session, i)}: {sorted(found)} for {mid}")


async def _export(mem: Memory, session: str) -> dict[int, Row]:
    return {r["id"]: (session, r["role"], r["content"], r["sender"])
            async for r in mem.export(session) if r["type"] == "message"}


def salvaged(dest: Path) -> dict[int, Row]:
    async def read() -> dict[int, Row]:
        async with Memory.open(str(dest), settings=settings(), background=False) as mem:
            out: dict[int, Row] = {}
            for info in await mem.sessions():
                out.update(await _export(mem, info.id))
            return out
    return asyncio.run(read())


# -- the campaign ---------------------------------------------------------------------------


def test_damaged_pages_give_a_clear_error_or_correct_answers(healthy: Healthy,
                                                            tmp_path: Path) -> None:
    verdicts: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    wrong_kinds: Counter[str] = Counter()
    wrong_reads: Counter[str] = Counter()
    caught_by_check = recovered = recovered_wrong = written = 0
    examples: list[str] = []
    unclear: list[str] = []
    for n in range(ROUNDS):
        rng = random.Random(20_260_000 + n)
        path = tmp_path / f"round-{n}.db"
        kind = damage(healthy, path, rng)
        outcome = asyncio.run(read_back(path, healthy, rng))
        verdicts[outcome.verdict] += 1
        by_kind[kind] += 1
        if outcome.raw:
            unclear.append(f"round {n} ({kind}): {outcome.raw[0]}")
        if outcome.verdict == "wrong":
            wrong_kinds[kind] += 1
            wrong_reads.update({line.split()[0] for line in outcome.wrong})
            examples.append(f"round {n} ({kind}): {outcome.wrong[0]}")
            caught_by_check += bool(asyncio.run(check_file(str(path))))
        dest = tmp_path / f"round-{n}-salvaged.db"
        try:
            asyncio.run(salvage(str(path), str(dest)))
        except StoreError:
            pass  # nothing at all readable (page 1 gone): nothing recovered
        else:
            for mid, row in salvaged(dest).items():
                recovered += healthy.rows.get(mid) == row
                recovered_wrong += healthy.rows.get(mid) != row
        written += len(healthy.rows)
        for p in (path, dest):
            p.unlink(missing_ok=True)
    print(f"\ndamaged pages sqlite: rounds={ROUNDS} faults={dict(sorted(by_kind.items()))} "
          f"clear_errors={verdicts['error']} unclear_errors={verdicts['raw']} "
          f"correct={verdicts['correct']} "
          f"silently_wrong={verdicts['wrong']} (by fault: {dict(sorted(wrong_kinds.items()))}; "
          f"rounds with a wrong read by reader: {dict(sorted(wrong_reads.items()))}; "
          f"caught by memstrata check: {caught_by_check}) "
          f"salvage recovered/written={recovered}/{written} recovered_wrong={recovered_wrong}")
    for line in examples[:3]:
        print(f"  silently wrong: {line}")
    # Only a flipped bit inside stored text may read back wrong (no page checksums in
    # SQLite); structural damage must always be an error or harmless.
    assert set(wrong_kinds) <= {"payload_flip", "bit_flips"}, examples[:5]
    assert not unclear, unclear[:5]


# -- a torn WAL -----------------------------------------------------------------------------


_WAL_WRITES = 100


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, int]]]:
    """A database whose writer was killed (SIGKILL) with everything still in the WAL, and
    the acknowledgements it printed: (content, WAL length after the commit)."""
    db = tmp_path_factory.mktemp("crashed") / "memory.db"
    # 100 commits of about nine WAL pages each stay below SQLite's automatic checkpoint at
    # 1,000 pages, which would start the WAL over.
    proc = subprocess.Popen([sys.executable, str(WRITER), str(db), str(_WAL_WRITES)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acks: list[tuple[str, int]] = []
    for line in proc.stdout:
        if line.strip() == "done":
            break
        record = json.loads(line)
        acks.append((record["content"], record["wal"]))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    assert len(acks) == _WAL_WRITES
    ends = [wal for _c, wal in acks]
    assert ends == sorted(ends) and len(set(ends)) == len(ends), "the WAL was checkpointed"
    assert os.path.getsize(db) == 0 or os.path.getsize(f"{db}-wal") == ends[-1]
    return db, acks


def _cut_wal(db: Path, dest: Path, offset: int, *, garble: bool, rng: random.Random) -> None:
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(f"{db}{suffix}", f"{dest}{suffix}")
    with open(f"{dest}-wal", "r+b") as f:
        if garble:
            size = os.path.getsize(f"{dest}-wal")
            f.seek(offset)
            f.write(rng.randbytes(size - offset))
        else:
            f.truncate(offset)


def test_torn_wal_keeps_every_commit_before_the_tear(
        crashed: tuple[Path, list[tuple[str, int]]], tmp_path: Path) -> None:
    db, acks = crashed
    size = acks[-1][1]
    rng = random.Random(4242)
    # Every commit's end, one byte either side, inside the header, and random offsets.
    offsets = sorted({0, 31, 32, size} | {end + d for _c, end in acks[::10] for d in (-1, 0, 1)}
                     | {rng.randrange(size) for _ in range(WAL_CUTS)})
    kept_total = lost = 0
    for n, offset in enumerate(offsets):
        garble = n % 2 == 1
        dest = tmp_path / f"cut-{n}.db"
        _cut_wal(db, dest, offset, garble=garble, rng=rng)
        expected = [c for c, end in acks if end <= offset]
        stored = asyncio.run(_contents(dest))
        assert stored == expected, (offset, garble, len(stored), len(expected))
        kept_total += len(stored)
        lost += len(expected) - len(stored)
        c = sqlite3.connect(dest)
        try:
            assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            c.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{dest}{suffix}").unlink(missing_ok=True)
    print(f"\ntorn wal sqlite: cuts={len(offsets)} (truncated and garbled tails) "
          f"acknowledged={len(acks)} kept_before_tear={kept_total} lost_before_tear={lost} "
          "seen_after_tear=0")


async def _contents(path: Path) -> list[str]:
    async with Memory.open(str(path), settings=settings(), background=False) as mem:
        if "wal" not in {s.id for s in await mem.sessions()}:
            return []
        return [r["content"] async for r in mem.export("wal") if r["type"] == "message"]


# -- the file deleted or replaced under a running process -----------------------------------


async def test_write_after_the_file_is_deleted_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    async with Memory.open(str(db), settings=settings(), background=False) as mem:
        await mem.add("s", "user", "stored before")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        with pytest.raises(StoreError, match="was deleted while it was open"):
            await mem.add("s", "user", "would be lost")
        with pytest.raises(StoreError, match="deleted"):
            await mem.errors.write(tool_name="t", keywords=["k"], symptom="s", action="a")
        # Reads of the still-open file go on.
        assert [m.content for m in (await mem.context("s")).messages] == ["stored before"]


async def test_write_after_the_file_is_replaced_is_refused(tmp_path: Path) -> None:
    db, other = tmp_path / "memory.db", tmp_path / "restored.db"
    async with Memory.open(str(other), settings=settings(), background=False) as mem:
        await mem.add("s", "user", "in the restored file")
    async with Memory.open(str(db), settings=settings(), background=False) as mem:
        await mem.add("s", "user", "in the first file")
        os.replace(other, db)
        with pytest.raises(StoreError, match="was replaced by another file"):
            await mem.add("s", "user", "would go to the old file")
    async with Memory.open(str(db), settings=settings(), background=False) as mem:
        contents = [r["content"] async for r in mem.export("s") if r["type"] == "message"]
        assert contents == ["in the restored file"]


async def test_file_moved_away_keeps_its_commits_and_leaves_no_wal_behind(
        tmp_path: Path) -> None:
    """``mv memory.db elsewhere.db`` under a running process: writes are refused, and on
    close the WAL is emptied into the moved file (SQLite alone would leave it at the old
    path, where the next file of that name would replay it)."""
    db, moved = tmp_path / "memory.db", tmp_path / "elsewhere.db"
    async with Memory.open(str(db), settings=settings(), background=False) as mem:
        await mem.add("s", "user", "committed before the move")
        os.rename(db, moved)
        with pytest.raises(StoreError, match="deleted"):
            await mem.add("s", "user", "refused")
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    async with Memory.open(str(moved), settings=settings(), background=False) as mem:
        contents = [r["content"] async for r in mem.export("s") if r["type"] == "message"]
        assert contents == ["committed before the move"]
    async with Memory.open(str(db), settings=settings(), background=False) as mem:
        assert await mem.sessions() == [] and await mem.check() == []
