"""How the SQLite file stores what it indexes: the pair text of CJK runs is derived, never
stored; the store indexes its own inserts; deletes keep the index exact; a file written by the
earlier layout (a stored pair-text copy, indexed by a trigger) is upgraded in place."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memstrata import Memory, Settings
from memstrata.store.sqlite import register_functions
from memstrata.store.sqlite._functions import fts_body, scope_tokens
from memstrata.store.sqlite._schema import MIGRATIONS, SCOPE_SQL
from memstrata.text import search_text

SETTINGS = Settings(embedder=None, summary_cron=None)
TEXTS = ["我們明天討論記憶體的設計", "the deployment failed twice", "東京で会議があります",
         "mixed 中文 and English 記憶", "plain words only"]


def test_the_python_columns_match_the_sql_ones(tmp_path: Path) -> None:
    c = sqlite3.connect(tmp_path / "x.db")
    register_functions(c)
    for tenant, session in [("default", "s1"), ("客戶", "會話-1"), ("t", "a b\u00e9")]:
        sql = SCOPE_SQL.format(p="")
        got = c.execute(f"SELECT {sql} FROM (SELECT ? AS tenant, ? AS session)",
                        (tenant, session)).fetchone()[0]
        assert got == scope_tokens(tenant, session)
    for text in TEXTS:
        assert c.execute("SELECT memstrata_fts_body(?)", (text,)).fetchone()[0] == fts_body(text)
        assert fts_body(text) == (search_text(text) or text)


async def test_pairs_are_indexed_not_stored_and_deletes_keep_the_index_exact(
        tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        added = await mem.add_many("s1", [{"role": "user", "content": t} for t in TEXTS])
        await mem.add_many("s2", [{"role": "user", "content": t} for t in TEXTS])
        await mem.add("s3", "user", "記憶體 in a third session")
        hits = await mem.search("s1", "記憶", match="keyword")
        assert {h.message.id for h in hits} == {added[0].id, added[3].id}
        assert await mem.forget(added[0].id)
        await mem.remove("s2")
        await mem.reset("s3", mode="all")
        assert [h.message.id for h in await mem.search("s1", "記憶", match="keyword")] == [
            added[3].id]
        assert [h.message.id for h in await mem.search(None, "会議", match="keyword")] == [
            added[2].id]
        assert await mem.check() == []  # FTS5's own check of the index against the rows
    c = sqlite3.connect(path)
    assert c.execute("SELECT count(*) FROM messages WHERE search_text IS NOT NULL"
                     ).fetchone()[0] == 0
    triggers = {r[0] for r in c.execute("SELECT name FROM sqlite_schema WHERE type='trigger'")}
    assert "messages_fts_insert" not in triggers and "messages_fts_delete" in triggers
    assert c.execute("SELECT v FROM messages_fts_config WHERE k = 'automerge'").fetchone() == (8,)


async def test_a_file_of_the_earlier_layout_is_upgraded_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    c = sqlite3.connect(path, isolation_level=None)
    c.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER)")
    for step, script in enumerate(MIGRATIONS[:6], start=1):
        c.executescript(script)
        c.execute("INSERT INTO schema_version VALUES (?, 0)", (step,))
    # Rows as the earlier write path left them: the pair text stored, indexed by the trigger.
    for i, text in enumerate(TEXTS):
        c.execute("INSERT INTO sessions (tenant, id, active_at) VALUES ('default', 'old', 0) "
                  "ON CONFLICT DO NOTHING")
        c.execute("INSERT INTO messages (tenant, session, role, content, at, size, search_text)"
                  " VALUES ('default', 'old', 'user', ?, ?, ?, ?)",
                  (text, 1_700_000_000_000_000_000 + i, len(text.encode()), search_text(text)))
    assert c.execute("SELECT count(*) FROM messages WHERE search_text IS NOT NULL"
                     ).fetchone()[0] == 3
    c.close()
    async with Memory.open(str(path), settings=SETTINGS, background=False) as mem:
        assert await mem.check() == []
        assert [h.message.content for h in await mem.search("old", "記憶", match="keyword")] \
            == [TEXTS[0], TEXTS[3]]
        await mem.forget(1)  # un-indexed with the derived text: the index stays exact
        new = await mem.add("old", "user", "記憶 again")
        assert [h.message.id for h in await mem.search("old", "記憶", match="keyword")] == [
            4, new.id]
        assert await mem.check() == []
    c = sqlite3.connect(path)
    assert c.execute("SELECT count(*) FROM messages WHERE search_text IS NOT NULL"
                     ).fetchone()[0] == 0
    assert c.execute("SELECT max(version) FROM schema_version").fetchone()[0] == len(MIGRATIONS)
    # The index merges its segments eight at a time, on upgraded files as on new ones.
    assert c.execute("SELECT v FROM messages_fts_config WHERE k = 'automerge'").fetchone() == (8,)


async def test_check_finds_a_message_missing_from_the_index(tmp_path: Path) -> None:
    path = str(tmp_path / "gap.db")
    async with Memory.open(path, settings=SETTINGS, background=False) as mem:
        added = await mem.add_many("s", [{"role": "user", "content": t} for t in TEXTS])
        assert await mem.check() == []
    c = sqlite3.connect(path, isolation_level=None)
    register_functions(c)
    # Take one message's entries out of the full-text index, leaving its row in place.
    c.execute("INSERT INTO messages_fts (messages_fts, rowid, body, scope) VALUES "
              "('delete', ?, memstrata_fts_body(?), ?)",
              (added[1].id, TEXTS[1], scope_tokens("default", "s")))
    c.close()
    async with Memory.open(path, settings=SETTINGS, background=False) as mem:
        problems = await mem.check()
    assert problems and any("messages_fts" in p or "full-text" in p for p in problems), problems
