"""A worker that takes work and then stops in the middle of it, until it is killed.

Run by ``tests/test_takeover.py`` as ``python takeover_worker.py MODE TARGET SESSION``:

* ``claim``: ``flush()`` with an embedder that never answers, so the indexer holds two claimed
  batches of the queue (the test queued more than two batches' worth);
* ``lease``: ``summarize(SESSION)`` with a summary model that never answers, so the worker
  holds the session's summary lease;
* ``index``: ``reindex()`` then ``flush()`` over and over with a working (slightly slow)
  embedder, so a kill at a random moment finds claims in any state.

It prints ``ready`` once it holds the work (``index``: once it starts) and never ends by
itself; the test either leaves it running (its work must not be taken) or kills it with
SIGKILL (its work must be taken over at once by the next process).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence

from memstrata import Memory, Settings
from memstrata.providers import Completion, HashEmbedder, ReplySchema, Vectors

DIM = 64


class StuckEmbedder:
    """The hash embedder's name and size, but ``embed`` never returns: the second call (the
    indexer's second batch in flight) says ``ready``."""

    def __init__(self) -> None:
        self.model_id = HashEmbedder(DIM).model_id
        self.dim = DIM
        self._calls = 0

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self._calls += 1
        if self._calls == 2:
            print("ready", flush=True)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


class SlowEmbedder:
    """The hash embedder, 50 ms late per batch, so a batch is claimed most of the time."""

    def __init__(self) -> None:
        self._inner = HashEmbedder(DIM)
        self.model_id = self._inner.model_id
        self.dim = DIM

    async def embed(self, texts: Sequence[str]) -> Vectors:
        await asyncio.sleep(0.05)
        return await self._inner.embed(texts)


class StuckLLM:
    """A summary model that says ``ready`` when asked (the lease is held by then) and never
    answers."""

    model_id = "stuck"

    async def complete(self, messages: Sequence[Mapping[str, str]], *,
                       system: str | None = None, max_tokens: int | None = None,
                       json_mode: bool = False, schema: ReplySchema | None = None
                       ) -> Completion:
        print("ready", flush=True)
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


async def main(mode: str, target: str, session: str) -> None:
    settings = Settings(embedder=None, summary_cron=None)
    if mode == "claim":
        async with Memory.open(target, settings=settings, background=False,
                               embedder=StuckEmbedder()) as mem:
            await mem.flush()
    elif mode == "lease":
        async with Memory.open(target, settings=settings, background=False,
                               llm=StuckLLM()) as mem:
            await mem.summarize(session)
    elif mode == "index":
        async with Memory.open(target, settings=settings, background=False,
                               embedder=SlowEmbedder()) as mem:
            print("ready", flush=True)
            while True:
                await mem.reindex()
                await mem.flush()
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
