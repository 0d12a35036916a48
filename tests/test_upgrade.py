"""A database indexed by an earlier memstrata keeps working after an upgrade."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from memstrata import Memory, Settings
from memstrata._ingest import draft
from memstrata.providers import HashEmbedder
from memstrata.store import open_store

SETTINGS = Settings(summary_cron=None)


async def test_vectors_of_an_earlier_key_scheme_are_made_again_once(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    embedder = HashEmbedder(64)
    now = time.time_ns()
    store = await open_store(path)
    texts = ["the train to Hualien leaves at nine", "我們去太魯閣", "beef noodles for dinner"]
    stored = await store.append("default", "s", [draft("user", t, now=now, max_chars=100)
                                                 for t in texts],
                                now=now, policy=SETTINGS.compaction(), index=True)
    claimed = await store.vectors.claim("older-release", tenant="default", limit=10, now=now,
                                        stale_before=now - 1)
    assert len(claimed) == 3
    # What an earlier release stored: one vector per message, under the "prev1" scheme.
    junk = np.full(64, 1 / 8, dtype=np.float32).tobytes()
    assert await store.vectors.put("older-release", f"{embedder.model_id}+prev1", 64,
                                   [(m.id, junk) for m in stored]) == 3
    await store.close()

    async with Memory.open(path, settings=SETTINGS, embedder=embedder,
                           background=False) as mem:
        await mem.flush()
        stats = await mem.stats("s")
        assert stats.extra["vectors_other_model"] == 0 and stats.index_backlog == 0
        for message in stored:
            hits = await mem.search("s", message.content, match="semantic", min_score=-1,
                                    exclude_window=False)
            assert hits and next(h for h in hits if h.rank == 1).message.id == message.id

    # Once upgraded, opening again re-makes nothing.
    async with Memory.open(path, settings=SETTINGS, embedder=embedder,
                           background=False) as mem:
        await mem.flush()
        assert await mem.index_backlog() == 0
        assert (await mem.stats("s")).extra["vectors_other_model"] == 0


async def test_a_change_of_model_still_waits_for_reindex(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    async with Memory.open(path, settings=SETTINGS, embedder=HashEmbedder(32),
                           background=False) as mem:
        await mem.add("s", "user", "hello there")
        await mem.flush()
    async with Memory.open(path, settings=SETTINGS, embedder=HashEmbedder(64),
                           background=False) as mem:
        await mem.flush()
        assert (await mem.stats("s")).extra["vectors_other_model"] == 1
