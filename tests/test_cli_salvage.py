"""``memstrata check`` and ``memstrata salvage`` on real files damaged for real: pages in the
middle overwritten with random bytes, a table's root page wiped, the file truncated.

The promise: ``check`` names what is damaged (no traceback), and ``salvage`` copies every
message whose page is intact, and nothing else, into a new memstrata file that works. Where
each message lives is found independently of memstrata: its text's offset in the original
file (messages here are short enough to sit whole on one page), and SQLite's ``dbstat`` table
for which pages belong to which b-tree.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from test_cli import as_json, cli, ok

from memstrata import Memory, Settings
from memstrata.providers import HashEmbedder
from memstrata.store.sqlite import register_functions

SESSIONS = ("trip", "work", "family")
PER_SESSION = 400
TOPICS = ["the train to Hualien", "花蓮的夜市和太魯閣", "quarterly report numbers",
          "a beef noodle soup place", "book the hotel in Da'an"]


@dataclass(frozen=True)
class Original:
    """A healthy file and what it holds, as read before any damage."""

    path: Path
    messages: dict[int, tuple[Any, ...]]
    pages: dict[int, int]
    """Message id -> the page its record is on."""
    page_size: int
    objects: dict[str, list[tuple[int, str]]]
    """B-tree name -> its (page number, page type) pairs."""


def message_text(session: str, i: int) -> str:
    return f"[{session} #{i:04d}] {TOPICS[i % len(TOPICS)]} ({i * 7919 % 10007})"


async def _build(path: Path) -> None:
    async with Memory.open(str(path), settings=Settings(embedder=None),
                           embedder=HashEmbedder(32), background=False) as mem:
        for session in SESSIONS:
            await mem.add_many(session, [
                {"role": "user" if i % 2 == 0 else "assistant",
                 "content": message_text(session, i), "sender": "Mei" if i % 2 == 0 else None,
                 "at": 1_740_000_000_000_000_000 + i * 60_000_000_000}
                for i in range(PER_SESSION)])
        await mem.flush()
        await mem.summarize("trip")
        await mem.errors.write(tool_name="web_fetch", keywords=["timeout"],
                               symptom="GET timed out", action="retry with 120 s")


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Original:
    path = tmp_path_factory.mktemp("healthy") / "memory.db"
    asyncio.run(_build(path))
    assert not Path(f"{path}-wal").exists()  # closed and checkpointed: one file
    c = sqlite3.connect(path)
    try:
        rows = c.execute("SELECT id, session, role, content, sender, at FROM messages")
        messages = {r[0]: tuple(r) for r in rows}
        objects: dict[str, list[tuple[int, str]]] = {}
        for name, page, kind in c.execute("SELECT name, pageno, pagetype FROM dbstat"):
            objects.setdefault(name, []).append((page, kind))
        page_size = c.execute("PRAGMA page_size").fetchone()[0]
    finally:
        c.close()
    data = path.read_bytes()
    leaves = {page for page, kind in objects["messages"] if kind == "leaf"}
    pages = {}
    for mid, row in messages.items():
        text = row[3].encode()
        found = [page for page in _occurrences(data, text, page_size) if page in leaves]
        assert len(found) == 1, "each message's text is stored once, whole, in the archive"
        pages[mid] = found[0]
    return Original(path, messages, pages, page_size, objects)


def _occurrences(data: bytes, text: bytes, page_size: int) -> Iterator[int]:
    """The page of each place ``text`` occurs (the digest summary quotes messages too)."""
    at = data.find(text)
    while at >= 0:
        yield at // page_size + 1
        at = data.find(text, at + 1)


def damaged_copy(original: Original, tmp_path: Path, *, overwrite: Sequence[int] = (),
                 truncate_at: int | None = None) -> tuple[Path, set[int]]:
    """A copy with ``overwrite`` pages filled with random bytes and/or cut at ``truncate_at``
    bytes; returns it and the set of damaged pages."""
    path = tmp_path / "damaged.db"
    path.write_bytes(original.path.read_bytes())
    rng = random.Random(1234)
    damaged = set(overwrite)
    with path.open("r+b") as f:
        for page in overwrite:
            f.seek((page - 1) * original.page_size)
            f.write(rng.randbytes(original.page_size))
        if truncate_at is not None:
            f.truncate(truncate_at)
            total = len(original.path.read_bytes()) // original.page_size
            damaged |= set(range(truncate_at // original.page_size + 1, total + 1))
    return path, damaged


def fingerprint(path: Path) -> tuple[str, list[str]]:
    """The file's bytes, and the files beside it that share its name (-wal, -shm)."""
    return (hashlib.sha256(path.read_bytes()).hexdigest(),
            sorted(p.name for p in path.parent.glob(path.name + "*")))


def salvaged_messages(path: Path) -> dict[int, tuple[Any, ...]]:
    async def read() -> dict[int, tuple[Any, ...]]:
        out = {}
        async with Memory.open(str(path), settings=Settings(embedder=None),
                               background=False) as mem:
            for info in await mem.sessions():
                async for r in mem.export(info.id):
                    if r["type"] == "message":
                        out[r["id"]] = (r["id"], info.id, r["role"], r["content"], r["sender"],
                                        r["at"])
        return out

    return asyncio.run(read())


def run_salvage(source: Path, dest: Path) -> dict[str, Any]:
    report: dict[str, Any] = as_json(cli(None, "--json", "salvage", str(source), str(dest)))
    return report


def assert_salvaged(original: Original, damaged: set[int], dest: Path,
                    report: dict[str, Any]) -> dict[int, tuple[Any, ...]]:
    """Every message on an intact page came out as it was, and nothing else came out."""
    got = salvaged_messages(dest)
    for mid, row in got.items():
        assert original.messages[mid] == row, f"message {mid} came out changed"
    intact = {mid for mid, page in original.pages.items() if page not in damaged}
    lost = intact - set(got)
    assert not lost, f"{len(lost)} messages on intact pages were not salvaged: {sorted(lost)[:10]}"
    assert report["messages"]["copied"] == len(got)
    assert ok(cli(dest, "check")).stdout.strip() == "ok"
    return got


def pages_of(original: Original, name: str, kind: str) -> list[int]:
    return sorted(page for page, k in original.objects[name] if k == kind)


# -- the damage -----------------------------------------------------------------------------


def test_pages_overwritten_in_the_middle(healthy: Original, tmp_path: Path) -> None:
    # Six pages in a row from the middle of the archive, whatever else they hold.
    middle = sorted(healthy.pages.values())[len(healthy.pages) // 2]
    source, damaged = damaged_copy(healthy, tmp_path, overwrite=range(middle - 2, middle + 4))
    before = fingerprint(source)

    check = cli(source, "check")
    assert check.exit_code == 1 and check.stdout == ""
    assert "Traceback" not in check.stderr and "memstrata salvage" in check.stderr
    assert "table messages (the message archive)" in check.stderr
    hit = {name for name, pages in healthy.objects.items()
           if any(p in damaged for p, _ in pages)}
    for name in hit - {"messages"}:
        assert name.split("_fts")[0] in check.stderr  # every damaged b-tree is named
    assert as_json_failure(cli(source, "--json", "check"))["ok"] is False

    dest = tmp_path / "salvaged.db"
    report = run_salvage(source, dest)
    got = assert_salvaged(healthy, damaged, dest, report)
    assert len(got) < len(healthy.messages)
    assert report["messages"]["copied"] + report["messages"]["unreadable"] \
        == len(healthy.messages)
    assert report["damage"] and report["error_records"]["copied"] == 1
    assert fingerprint(source) == before  # check and salvage only read the source


def as_json_failure(result: Any) -> dict[str, Any]:
    assert result.exit_code == 1, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_a_truncated_file(healthy: Original, tmp_path: Path) -> None:
    # Cut through the middle of the archive's pages, off a page boundary.
    middle = sorted(healthy.pages.values())[len(healthy.pages) // 2]
    cut = (middle - 1) * healthy.page_size + 123
    source, damaged = damaged_copy(healthy, tmp_path, truncate_at=cut)
    check = cli(source, "check")
    assert check.exit_code == 1 and "cut short" in check.stderr
    dest = tmp_path / "salvaged.db"
    report = run_salvage(source, dest)
    got = assert_salvaged(healthy, damaged, dest, report)
    assert 0 < len(got) < len(healthy.messages)
    # Ids are never reused: the new file's counter starts past every id the old one gave.
    added = as_json(cli(dest, "--json", "add", "trip", "user", "after the salvage"))
    assert added["id"] > max(healthy.messages)


def test_the_archive_root_page_wiped(healthy: Original, tmp_path: Path) -> None:
    # The root of the messages b-tree: every leaf below it is intact but unreachable.
    c = sqlite3.connect(healthy.path)
    root = c.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'messages'").fetchone()[0]
    c.close()
    assert root in pages_of(healthy, "messages", "internal")
    source, damaged = damaged_copy(healthy, tmp_path, overwrite=[root])
    assert "table messages" in cli(source, "check").stderr
    dest = tmp_path / "salvaged.db"
    report = run_salvage(source, dest)
    got = assert_salvaged(healthy, damaged, dest, report)
    assert len(got) == len(healthy.messages)
    assert report["messages"]["from_pages"] == len(healthy.messages)
    assert report["messages"]["unreadable"] == 0 and report["messages"]["exact"]


def test_an_index_and_the_full_text_index_damaged(healthy: Original, tmp_path: Path) -> None:
    index_page = pages_of(healthy, "messages_by_session", "leaf")[1]
    fts_page = pages_of(healthy, "messages_fts_data", "leaf")[1]
    source, _ = damaged_copy(healthy, tmp_path, overwrite=[index_page, fts_page])
    problems = as_json_failure(cli(source, "--json", "check"))["problems"]
    text = "\n".join(problems)
    assert "index messages_by_session on messages" in text
    assert "full-text index messages_fts" in text
    assert "table messages (" not in text  # the messages themselves are fine
    dest = tmp_path / "salvaged.db"
    report = run_salvage(source, dest)
    assert_salvaged(healthy, set(), dest, report)  # every message, indexes rebuilt
    assert report["messages"]["unreadable"] == 0
    hits = as_json(cli(dest, "--json", "search", "family", "花蓮", "--match", "keyword"))
    assert hits and all("花蓮" in h["message"]["content"] for h in hits)


def test_the_salvaged_file_is_a_working_memory(healthy: Original, tmp_path: Path) -> None:
    total = healthy.path.stat().st_size // healthy.page_size
    source, damaged = damaged_copy(healthy, tmp_path, overwrite=[total // 3, total // 3 + 1])
    dest = tmp_path / "salvaged.db"
    report = run_salvage(source, dest)
    got = assert_salvaged(healthy, damaged, dest, report)
    per_session = {s: sum(1 for r in got.values() if r[1] == s) for s in SESSIONS}
    for session, count in per_session.items():
        stats = as_json(cli(dest, "--json", "stats", session))
        assert stats["messages"] == count == stats["hot_messages"]
    summary = as_json(cli(dest, "--json", "context", "trip"))["summary"]
    if report["summaries"]["copied"]:
        assert summary is not None
    # The hot messages without a copied vector wait for the indexer; the rest kept theirs.
    assert report["vectors"] + report["queued"] == len(got)
    records = as_json(cli(dest, "--json", "errors", "list"))
    assert [r["tool_name"] for r in records] == ["web_fetch"]


def test_deleted_messages_stay_deleted(healthy: Original, tmp_path: Path) -> None:
    source = tmp_path / "deleted.db"
    source.write_bytes(healthy.path.read_bytes())
    gone = sorted(healthy.messages)[10:400:7]
    c = sqlite3.connect(source)
    register_functions(c)  # the index triggers derive the indexed text with it
    c.execute("PRAGMA secure_delete = OFF")  # leave the deleted bytes on their pages
    c.executemany("DELETE FROM messages WHERE id = ?", [(i,) for i in gone])
    c.commit()
    root = c.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'messages'").fetchone()[0]
    c.close()
    with source.open("r+b") as f:  # force the page scan for the whole table
        f.seek((root - 1) * healthy.page_size)
        f.write(bytes(healthy.page_size))
    dest = tmp_path / "salvaged.db"
    report = run_salvage(source, dest)
    got = salvaged_messages(dest)
    assert not set(gone) & set(got)
    assert len(got) == len(healthy.messages) - len(gone) == report["messages"]["copied"]


def test_a_crash_image_with_a_write_ahead_log(healthy: Original, tmp_path: Path) -> None:
    """The files as a killed process leaves them: the newest messages only in ``-wal``; then
    the archive's root page in the main file wiped, so the page scan must read the log too."""
    live = tmp_path / "live.db"
    live.write_bytes(healthy.path.read_bytes())
    image = tmp_path / "image"
    image.mkdir()
    # As many late rows as the archive's last leaf holds: a split would rewrite the root page
    # into the log, and the wiped copy in the main file would then not be the one read.
    c = sqlite3.connect(live)
    room = c.execute("SELECT unused FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' "
                     "ORDER BY path DESC LIMIT 1").fetchone()[0]
    c.close()
    count = min(50, (room - 64) // 64)
    assert count >= 3, "the fixture's last leaf has room for a few rows"

    async def write_then_copy() -> list[int]:
        async with Memory.open(str(live), settings=Settings(embedder=None),
                               background=False) as mem:
            added = await mem.add_many("late", [{"role": "user", "content": f"late {i}"}
                                                for i in range(count)])
            for suffix in ("", "-wal"):  # copied while the database is open
                (image / f"crash.db{suffix}").write_bytes(Path(f"{live}{suffix}").read_bytes())
            return [m.id for m in added]

    late = asyncio.run(write_then_copy())
    source = image / "crash.db"
    assert Path(f"{source}-wal").stat().st_size > 0
    c = sqlite3.connect(healthy.path)
    root = c.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'messages'").fetchone()[0]
    c.close()
    with source.open("r+b") as f:
        f.seek((root - 1) * healthy.page_size)
        f.write(bytes(healthy.page_size))
    report = run_salvage(source, tmp_path / "salvaged.db")
    got = salvaged_messages(tmp_path / "salvaged.db")
    assert set(late) <= set(got) and set(healthy.messages) <= set(got)
    assert report["messages"]["copied"] == len(healthy.messages) + len(late)
    # The root (as the main file holds it) is gone: the late rows came from the log's pages.
    assert report["messages"]["from_pages"] == len(got)


# -- the command and the library function ---------------------------------------------------


def test_salvage_refuses_what_it_cannot_do(healthy: Original, tmp_path: Path) -> None:
    existing = tmp_path / "exists.db"
    existing.write_bytes(b"keep me")
    result = cli(None, "salvage", str(healthy.path), str(existing))
    assert result.exit_code == 2 and result.stderr.startswith("error: dest:")
    assert existing.read_bytes() == b"keep me"
    missing = cli(None, "salvage", str(tmp_path / "nope.db"), str(tmp_path / "new.db"))
    assert missing.exit_code == 2 and "no database file" in missing.stderr
    assert not (tmp_path / "new.db").exists()
    foreign = tmp_path / "foreign.db"
    sqlite3.connect(foreign).execute("CREATE TABLE t (x)").connection.close()
    result = cli(None, "--json", "salvage", str(foreign), str(tmp_path / "new.db"))
    assert result.exit_code == 2
    assert json.loads(result.stderr)["error"]["field"] == "source"
    assert not (tmp_path / "new.db").exists()


def test_salvage_prints_what_it_did(healthy: Original, tmp_path: Path) -> None:
    total = healthy.path.stat().st_size // healthy.page_size
    source, _ = damaged_copy(healthy, tmp_path, overwrite=[total // 2])
    result = ok(cli(None, "salvage", str(source), str(tmp_path / "out.db")))
    lines = result.stdout.splitlines()
    assert lines[0] == f"salvaged {source} into {tmp_path / 'out.db'}"
    assert any(line.strip().startswith("messages:") and "copied" in line for line in lines)
    assert any(line.strip().startswith("error records:") for line in lines)


def test_healthy_files_check_ok_and_salvage_everything(healthy: Original,
                                                       tmp_path: Path) -> None:
    assert ok(cli(healthy.path, "check")).stdout.strip() == "ok"
    dest = tmp_path / "copy.db"
    report = run_salvage(healthy.path, dest)
    assert report["damage"] == [] and report["messages"]["unreadable"] == 0
    assert salvaged_messages(dest) == healthy.messages
    assert report["summaries"]["copied"] == 1 and report["error_records"]["copied"] == 1


def test_the_library_functions(healthy: Original, tmp_path: Path) -> None:
    from memstrata.store import check_file, salvage
    from memstrata.types import SalvageReport

    source, _ = damaged_copy(healthy, tmp_path, overwrite=[5])

    async def go() -> tuple[list[str], SalvageReport]:
        problems = await check_file(str(source))
        report = await salvage(f"sqlite:///{source}", str(tmp_path / "out.db"))
        return problems, report

    problems, report = asyncio.run(go())
    assert problems and report.damage == tuple(problems)
    assert report.dest == str(tmp_path / "out.db")
    assert report.messages.copied > 0


def test_check_leaves_no_trace_and_needs_the_file(tmp_path: Path) -> None:
    from memstrata.store import check_file

    result = cli(tmp_path / "none.db", "check")
    assert result.exit_code == 2 and "no database file" in result.stderr
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(Exception, match="no database file"):
        asyncio.run(check_file(str(tmp_path / "none.db")))
    assert os.listdir(tmp_path) == []


def test_api_keys_come_along(healthy: Original, tmp_path: Path) -> None:
    """A salvaged service keeps its keys: the same keys work, a revoked one stays revoked."""
    source = tmp_path / "service.db"
    source.write_bytes(healthy.path.read_bytes())
    kept = ok(cli(source, "keys", "create", "--tenant", "acme")).stdout.strip()
    gone = json.loads(ok(cli(source, "--json", "keys", "create", "--tenant", "acme")).stdout)
    ok(cli(source, "keys", "revoke", gone["id"]))
    dest = tmp_path / "rescued.db"
    report = run_salvage(source, dest)
    assert report["api_keys"] == 2
    listed = {k["id"]: k for k in as_json(cli(dest, "--json", "keys", "list"))}
    assert set(listed) == {kept.split("_")[1], gone["id"]}
    assert listed[gone["id"]]["revoked_at"] is not None
    assert listed[kept.split("_")[1]]["revoked_at"] is None
