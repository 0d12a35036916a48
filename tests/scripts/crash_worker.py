"""One kind of memstrata work, done until the process is killed (``kill -9``).

Run by the kill campaign (``tests/crash_campaign.py``) as ``python crash_worker.py CONFIG``. The
config names the ``kind`` of work, the database ``target`` (SQLite path or PostgreSQL URL),
the ``acks`` file, the ``round`` (which makes every message's text unique) and a ``seed``.
The worker prints ``ready`` once the memory is open, then works; after each call returns it
appends one JSON line per acknowledged message to the acks file (one ``write`` per call, so a
kill leaves whole lines, or one cut line that counts as not acknowledged). Kinds:

* ``add``: ``add`` (some with an idempotency key) and ``add_many`` into a few sessions (it
  prints ``opening`` before it opens the memory, so a kill can be aimed at the first open,
  which creates the schema);
* ``import``: JSONL files imported one after the other into one session (``parts``);
* ``compact``: writes into sessions with a tiny hot tier and the turns policy on, while the
  background indexer embeds and the turns loop writes digests;
* ``index``: re-indexes the tenant and waits for the indexer, over and over, writing a few
  messages between rounds;
* ``migrate``: copies the SQLite database ``source`` into the PostgreSQL ``target`` in
  batches of ``batch`` rows (``ready`` once the first table starts);
* ``summarise``: writes messages and summarises them through an OpenAI-compatible endpoint
  (``llm_url``), in small chunks.

Message texts carry a tag ``k<round>n<i>`` that the test finds again in what the summary
model was sent.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
from typing import Any

from memstrata import Memory, Settings
from memstrata.providers import HashEmbedder
from memstrata.store import migrate

SESSIONS = ("s0", "s1", "s2")
EMBED_DIM = 64


class Acks:
    """The acknowledgement file: one ``os.write`` of whole JSON lines per call."""

    def __init__(self, path: str, writer: str) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._writer = writer

    def write(self, messages: list[Any], *, key: str | None = None) -> None:
        lines = "".join(json.dumps({"session": m.session, "content": m.content, "id": m.id,
                                    "key": key, "tenant": "default", "writer": self._writer},
                                   ensure_ascii=False) + "\n" for m in messages)
        os.write(self._fd, lines.encode("utf-8"))

    def raw(self, lines: str) -> None:
        os.write(self._fd, lines.encode("utf-8"))


class Texts:
    """Unique message texts: ``note k<round>n<i> …``, some with Chinese."""

    def __init__(self, rnd: int, rng: random.Random) -> None:
        self._round = rnd
        self._rng = rng
        self._n = 0

    def next(self) -> str:
        self._n += 1
        extra = self._rng.choice(["", " 回覆花蓮", " " + "x" * self._rng.randint(50, 400)])
        return f"note k{self._round}n{self._n}{extra}"

    def item(self, i: int) -> dict[str, str]:
        return {"role": "user" if i % 2 == 0 else "assistant", "content": self.next()}


async def add(cfg: dict[str, Any], rng: random.Random, acks: Acks, texts: Texts) -> None:
    settings = Settings(embedder=None, summary_cron=None)
    print("opening", flush=True)
    async with Memory.open(cfg["target"], settings=settings, background=False,
                           embedder=HashEmbedder(16)) as mem:
        print("ready", flush=True)
        while True:
            session = rng.choice(SESSIONS)
            pick = rng.random()
            if pick < 0.4:
                batch = await mem.add_many(session, [texts.item(i)
                                                     for i in range(rng.randint(2, 6))])
                acks.write(batch)
            elif pick < 0.6:
                content = texts.next()
                key = f"key-{content.split()[1]}"
                one = await mem.add(session, "user", content, key=key)
                acks.write([one], key=key)
            else:
                acks.write([await mem.add(session, "user", texts.next())])


async def import_parts(cfg: dict[str, Any], rng: random.Random, acks: Acks,
                       texts: Texts) -> None:
    settings = Settings(embedder=None, summary_cron=None)
    async with Memory.open(cfg["target"], settings=settings, background=False,
                           embedder=HashEmbedder(16)) as mem:
        print("ready", flush=True)
        for part in cfg["parts"]:
            with open(part, encoding="utf-8") as f:
                lines = f.readlines()
            await mem.import_(cfg["session"], lines)
            acks.raw("".join(_import_ack(cfg["session"], line) for line in lines))
        print("done", flush=True)
        await asyncio.Event().wait()  # the test kills us whenever it likes


def _import_ack(session: str, line: str) -> str:
    record = json.loads(line)
    return json.dumps({"session": session, "content": record["content"],
                       "key": record.get("key"), "writer": ""}, ensure_ascii=False) + "\n"


def compact_settings() -> Settings:
    """A hot tier of a few kilobytes and the turns policy at 40 (keeping 20), with digests."""
    return Settings(embedder=None, summary_cron=None, max_history_bytes=6000,
                    compact_turns=True, max_turns=40, keep_turns=20)


async def compact(cfg: dict[str, Any], rng: random.Random, acks: Acks, texts: Texts) -> None:
    async with Memory.open(cfg["target"], settings=compact_settings(), background=True,
                           embedder=HashEmbedder(16)) as mem:
        print("ready", flush=True)
        while True:
            session = rng.choice(SESSIONS[:2])
            if rng.random() < 0.3:
                acks.write(await mem.add_many(session, [texts.item(i) for i in range(4)]))
            else:
                acks.write([await mem.add(session, "user", texts.next())])
            await asyncio.sleep(0)  # let the indexer and the turns loop run between writes


def index_settings() -> Settings:
    """A hot tier of about 30 kB per session, so a re-index has a bounded amount to embed."""
    return Settings(embedder=None, summary_cron=None, max_history_bytes=30_000)


async def index(cfg: dict[str, Any], rng: random.Random, acks: Acks, texts: Texts) -> None:
    async with Memory.open(cfg["target"], settings=index_settings(), background=True,
                           embedder=HashEmbedder(EMBED_DIM)) as mem:
        print("ready", flush=True)
        while True:
            await mem.flush()
            acks.write(await mem.add_many(rng.choice(SESSIONS),
                                          [texts.item(i) for i in range(20)]))
            await mem.reindex()


def summary_settings(llm_url: str) -> Settings:
    """Summaries by an OpenAI-compatible endpoint, a chunk every few messages."""
    return Settings(embedder=None, summary_cron=None, summary_model="openai:crash-test",
                    llm_base_url=llm_url, llm_api_key="k", llm_max_retries=0,
                    summary_chunk_chars=400)


async def summarise(cfg: dict[str, Any], rng: random.Random, acks: Acks,
                    texts: Texts) -> None:
    async with Memory.open(cfg["target"], settings=summary_settings(cfg["llm_url"]),
                           background=False) as mem:
        print("ready", flush=True)
        while True:
            session = rng.choice(SESSIONS[:2])
            acks.write(await mem.add_many(session, [texts.item(i)
                                                    for i in range(rng.randint(2, 12))]))
            if rng.random() < 0.5:
                await mem.summarize(session)


async def migrate_rows(cfg: dict[str, Any], rng: random.Random, acks: Acks,
                       texts: Texts) -> None:
    started = False

    def progress(table: str, done: int, total: int) -> None:
        nonlocal started
        if not started:
            started = True
            print("ready", flush=True)

    await migrate(cfg["source"], cfg["target"], progress, batch=cfg["batch"])
    print("done", flush=True)
    await asyncio.Event().wait()


KINDS = {"add": add, "import": import_parts, "compact": compact, "index": index,
         "summarise": summarise, "migrate": migrate_rows}


def main() -> None:
    cfg = json.loads(sys.argv[1])
    rng = random.Random(cfg["seed"])
    acks = Acks(cfg["acks"], writer=f"round{cfg['round']}")
    asyncio.run(KINDS[cfg["kind"]](cfg, rng, acks, Texts(cfg["round"], rng)))


if __name__ == "__main__":
    main()
