"""The kill -9 campaign, part one: a child process adding, creating a database, importing,
compacting, indexing or summarising is killed at a random moment (``crash_campaign``); the
database is checked (``reliability.verify``) and the next run must finish the work.

Summaries go through the OpenAI-compatible HTTP provider to ``tests/llm_server.py``. Each kind
runs on SQLite and on PostgreSQL (whose server stays up: only its client dies). The first test
proves the checks can fail: it plants each fault they look for.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from crash_campaign import (
    PLAIN,
    ROUNDS,
    SEED,
    WORKER,
    Figures,
    Round,
    backend,
    campaign,
    check,
    later,
    make_target,
    resume_adding,
)
from llm_server import LLMServer, Reply, Request
from pg_server import PgServer
from reliability import Ack, Acknowledged, SessionKey, Snapshot, snapshot, verify

from memstrata import Memory, Settings
from memstrata.providers import HashEmbedder
from memstrata.store.sqlite import register_functions

sys.path.insert(0, str(Path(WORKER).parent))
from crash_worker import (
    EMBED_DIM,
    SESSIONS,
    compact_settings,
    index_settings,
    summary_settings,
)

TAG = re.compile(r"\bk\d+n\d+\b")
SUMMARY_TEXT = json.dumps({"key_decisions": ["Do: keep notes"], "past_discussions": [],
                           "current_discussion": {"topic": "notes", "description": "notes"}})
# Seconds between the child starting to open a new database and the kill.
OPEN_WINDOW = {"sqlite": (0.0, 0.08), "postgres": (0.0, 0.5)}


@pytest.fixture(params=["sqlite", "postgres"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return make_target(request, tmp_path)


# -- the checks themselves --------------------------------------------------------------------


async def test_the_checks_find_planted_faults(tmp_path: Path) -> None:
    """Each invariant of ``reliability.verify`` fails on a database that breaks it."""
    path = str(tmp_path / "planted.db")
    settings = Settings(embedder=None, summary_cron=None, max_history_bytes=400)
    async with Memory.open(path, settings=settings, embedder=HashEmbedder(16),
                           background=False) as mem:
        stored = await mem.add_many("s", [{"role": "user", "content": f"note k1n{i} " + "z" * 40}
                                          for i in range(30)])
        await mem.flush()
        await mem.summarize("s")
    acked = Acknowledged([Ack(session="s", content=m.content, id=m.id, writer="w")
                          for m in stored])
    healthy = await verify(path, acked)
    assert healthy.problems == [] and healthy.lost == healthy.duplicated == 0
    cutoff = healthy.snapshot.sessions[("default", "s")].cutoff
    assert cutoff > 0 and healthy.snapshot.vectors

    def plant(*statements: str) -> None:
        with contextlib.closing(sqlite3.connect(path)) as c:
            register_functions(c)
            for statement in statements:
                c.execute(statement)
            c.commit()

    plant(f"INSERT INTO vectors SELECT {cutoff}, tenant, session, model, dim, vec "
          "FROM vectors LIMIT 1",
          "UPDATE sessions SET hot_bytes = hot_bytes + 1",
          "UPDATE summaries SET cursor = 10000")
    # A message stored twice, written behind the store's back (so FTS5 never indexed it).
    plant("INSERT INTO messages (tenant, session, role, content, at, size, seq) SELECT tenant, "
          "session, role, content, at, size, (SELECT max(seq) + 1 FROM messages) "
          f"FROM messages WHERE seq = {stored[0].id}")
    acked.add(Ack(session="s", content="never stored", id=None, writer="w"))
    acked.add(Ack(session="s", content=stored[1].content, id=stored[1].id, writer="w"))
    found = await verify(path, acked, covered={("default", "s"): stored[5].id})
    text = "\n".join(found.problems)
    for expected in ("full-text index messages_fts", f"vector of cold message {cutoff}",
                     "counters", "past the newest message", "the model was shown",
                     "acknowledged write lost", "stored 2 times",
                     f"was given id {stored[1].id} after"):
        assert expected in text, (expected, found.problems)
    assert (found.lost, found.duplicated) == (1, 1)


# -- adding ---------------------------------------------------------------------------------


async def test_kill_while_adding(target: str, tmp_path: Path) -> None:
    figures = await campaign("add", target, tmp_path, resume_adding)
    assert len(figures.acked) > ROUNDS


# -- the first open --------------------------------------------------------------------------


async def test_kill_while_creating_the_schema(target: str, tmp_path: Path,
                                              request: pytest.FixtureRequest) -> None:
    """A writer killed within a moment of starting to open a new database: during the connect,
    the schema's creation or the first writes. The next open must work on whatever is left."""
    figures = Figures("first open", backend(target))
    rng = random.Random(f"{SEED}-open-{figures.backend}")
    server: PgServer | None = (None if figures.backend == "sqlite"
                               else request.getfixturevalue("pg_server"))
    for n in range(ROUNDS):
        fresh = (str(tmp_path / f"fresh-{n}.db") if server is None
                 else server.create_database("fresh"))
        acks = tmp_path / f"acks-open-{n}"
        config = {"kind": "add", "target": fresh, "acks": str(acks), "round": n,
                  "seed": rng.randrange(10**9)}
        proc = await asyncio.create_subprocess_exec(
            sys.executable, WORKER, json.dumps(config), stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL)
        assert proc.stdout is not None
        assert await asyncio.wait_for(proc.stdout.readline(), 120) == b"opening\n"
        await asyncio.sleep(rng.uniform(*OPEN_WINDOW[figures.backend]))
        if proc.returncode is None:
            proc.kill()
        out, _ = await proc.communicate()
        assert proc.returncode == -9
        if b"ready" not in out:
            figures.note("killed_while_opening")
        figures.kills += 1
        figures.rounds += 1
        rnd = Round(n, fresh, tmp_path, rng, Figures("first open", figures.backend))
        rnd.figures.acked = Acknowledged.read(acks)
        figures.acked.acks += rnd.figures.acked.acks
        await resume_adding(rnd)
        figures.resumed += 1
        figures.lost += rnd.figures.lost
        figures.duplicated += rnd.figures.duplicated
    print(figures.line())


# -- importing ---------------------------------------------------------------------------------

PARTS = 4
PART_SIZE = 800


async def prepare_import(rnd: Round) -> None:
    """Four JSONL files of unique messages: with keys, with source ids, or with neither."""
    parts: list[str] = []
    for p in range(PARTS):
        lines = []
        for i in range(PART_SIZE):
            record: dict[str, Any] = {"type": "message", "role": ("user", "assistant")[i % 2],
                                      "content": f"note k{rnd.n}n{p * PART_SIZE + i} part {p}"}
            if p % 3 == 0:
                record["key"] = f"import-{rnd.n}-{p}-{i}"
            elif p % 3 == 1:
                record["id"] = 10**6 * (rnd.n + 1) + p * PART_SIZE + i
            lines.append(json.dumps(record, ensure_ascii=False) + "\n")
        path = rnd.tmp / f"import-{rnd.n}-{p}.jsonl"
        path.write_text("".join(lines), encoding="utf-8")
        parts.append(str(path))
    rnd.config = {"parts": parts, "session": f"imported-{rnd.n}"}


def _parts_present(snap: Snapshot, rnd: Round) -> list[int]:
    """How many messages of each file the session holds."""
    counts = [0] * PARTS
    for r in snap.messages:
        if r.session == rnd.config["session"]:
            counts[int(r.content.rsplit(" ", 1)[1])] += 1
    return counts


async def resume_import(rnd: Round) -> None:
    """Each file went in whole or not at all, in order; running the import again completes
    it, and a third run adds nothing."""
    counts = _parts_present(await check(rnd), rnd)
    done = [c == PART_SIZE for c in counts]
    if not all(done):
        rnd.figures.note("import_cut")
    assert all(c in (0, PART_SIZE) for c in counts), counts
    assert done == sorted(done, reverse=True), counts  # a prefix of the files
    session = rnd.config["session"]
    async with Memory.open(rnd.target, settings=PLAIN, background=False) as mem:
        added = [await mem.import_(session, Path(p).read_text("utf-8").splitlines())
                 for p in rnd.config["parts"]]
        assert added == [0 if d else PART_SIZE for d in done]
        assert await mem.import_(session, Path(rnd.config["parts"][0]).read_text(
            "utf-8").splitlines()) == 0
    for p in rnd.config["parts"]:
        for line in Path(p).read_text("utf-8").splitlines():
            record = json.loads(line)
            rnd.figures.acked.add(Ack(session=session, content=record["content"],
                                      key=record.get("key")))
    # The child acknowledged the files it finished; the resumption all of them, once each.
    rnd.figures.acked = _unique(rnd.figures.acked)
    assert _parts_present(await check(rnd), rnd) == [PART_SIZE] * PARTS


async def test_kill_while_importing(target: str, tmp_path: Path) -> None:
    await campaign("import", target, tmp_path, resume_import, prepare_import)


def _unique(acked: Acknowledged) -> Acknowledged:
    """One acknowledgement per message (the child's and the resumption's name the same)."""
    seen: dict[tuple[str, str], Ack] = {}
    for a in acked.acks:
        seen.setdefault((a.session, a.content), a)
    return Acknowledged(list(seen.values()))


# -- compacting --------------------------------------------------------------------------------


async def resume_compacting(rnd: Round) -> None:
    """Indexing finishes with only hot messages embedded; a write keeps the hot tier within
    its bounds; the summary catches up to the window."""
    rnd.figures.note("cold_at_kill", sum(c.messages - c.hot
                                         for c in (await check(rnd)).sessions.values()))
    settings = compact_settings()
    async with Memory.open(rnd.target, settings=settings, embedder=HashEmbedder(16),
                           background=False, clock=later) as mem:
        await mem.flush(timeout=120)
        for session in SESSIONS[:2]:
            m = await mem.add(session, "user", f"resumed after round {rnd.n} in {session}")
            rnd.figures.acked.add(Ack(session=session, content=m.content, id=m.id))
            stats = await mem.stats(session)
            assert stats.hot_bytes <= settings.max_history_bytes
            assert stats.hot_messages <= settings.max_turns
            await mem.summarize(session)
        await mem.flush(timeout=120)
    snap = await check(rnd)
    assert not snap.queue and {v[0] for v in snap.vectors} == snap.hot_ids()
    for session in SESSIONS[:2]:
        ids = [r.id for r in snap.messages if r.session == session]
        if len(ids) > settings.window_messages:
            assert snap.cursors[("default", session)] == ids[-settings.window_messages - 1]


async def test_kill_while_compacting(target: str, tmp_path: Path) -> None:
    await campaign("compact", target, tmp_path, resume_compacting)


# -- indexing ----------------------------------------------------------------------------------


async def prepare_index(rnd: Round) -> None:
    """Before the first round: messages written with no embedder (so not even queued)."""
    if rnd.n > 0:
        return
    async with Memory.open(rnd.target, settings=index_settings(), background=False) as mem:
        for s, session in enumerate(SESSIONS):
            items = [{"role": "user", "content": f"note k999n{s * 1000 + i} 回覆 " + "y" * i}
                     for i in range(200)]
            for m in await mem.add_many(session, items):
                rnd.figures.acked.add(Ack(session=session, content=m.content, id=m.id))


async def resume_indexing(rnd: Round) -> None:
    """The next flush embeds every hot message exactly once and empties the queue."""
    rnd.figures.note("queued_at_kill", len((await check(rnd)).queue))
    async with Memory.open(rnd.target, settings=index_settings(),
                           embedder=HashEmbedder(EMBED_DIM), background=False,
                           clock=later) as mem:
        await mem.flush(timeout=120)
        assert await mem.index_backlog() == 0
        hits = await mem.search("s0", "回覆", match="semantic", exclude_window=False)
        assert hits
    snap = await check(rnd)
    assert not snap.queue
    assert sorted(v[0] for v in snap.vectors) == sorted(snap.hot_ids())


async def test_kill_while_indexing(target: str, tmp_path: Path) -> None:
    await campaign("index", target, tmp_path, resume_indexing, prepare_index)


# -- summarising -------------------------------------------------------------------------------


class Shown:
    """Stands behind the LLM endpoint: the tags of every message a summary call was sent."""

    def __init__(self) -> None:
        self.tags: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        sent = " ".join(str(m.get("content")) for m in request.json["messages"])
        with self._lock:
            self.tags.update(TAG.findall(sent))
        return Reply(text=SUMMARY_TEXT, delay=0.01)

    def covered(self, snap: Snapshot) -> dict[SessionKey, int]:
        """Per session, the largest id of a message the model was shown."""
        out: dict[SessionKey, int] = {}
        for r in snap.messages:
            if _tag(r.content) in self.tags:
                key = (r.tenant, r.session)
                out[key] = max(out.get(key, 0), r.id)
        return out


async def resume_summarising(rnd: Round, shown: Shown) -> None:
    """No cursor passed what the model was shown; the next run brings every session's
    summary to its newest message, every message merged at least once."""
    assert rnd.llm is not None
    await check(rnd, covered=shown.covered(snapshot(rnd.target)))
    async with Memory.open(rnd.target, settings=summary_settings(rnd.llm.openai_url),
                           background=False, clock=later) as mem:
        written = {s.id for s in await mem.sessions()}
        for session in written:
            await mem.summarize(session)
    snap = await check(rnd, covered=shown.covered(snapshot(rnd.target)))
    for session in written:
        rows = [r for r in snap.messages if r.session == session]
        assert snap.cursors[("default", session)] == rows[-1].id
        missed = [r.id for r in rows if _tag(r.content) not in shown.tags]
        assert missed == [], missed


def _tag(content: str) -> str:
    found = TAG.search(content)
    assert found is not None, content
    return found.group()


async def test_kill_while_summarising(target: str, tmp_path: Path) -> None:
    shown = Shown()
    with LLMServer(default_text=SUMMARY_TEXT) as llm:
        llm.script(*([shown] * 100_000))

        async def prepare(rnd: Round) -> None:
            rnd.config = {"llm_url": llm.openai_url}

        async def resume(rnd: Round) -> None:
            await resume_summarising(rnd, shown)

        figures = await campaign("summarise", target, tmp_path, resume, prepare, llm=llm)
        # Whatever was written was summarised through the endpoint, by the child or after it.
        assert llm.requests or not figures.acked.acks
