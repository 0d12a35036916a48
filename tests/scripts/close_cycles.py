"""Opens, writes to and closes a Memory many times, each close() under a deadline.

Run as a script by the shutdown tests, so that a close() that never returns fails the test by
a subprocess time-out instead of hanging the test session. Prints ``closed N`` when every
cycle closed in time; exits 1 naming the cycle otherwise.
"""

from __future__ import annotations

import asyncio
import sys

from memstrata import Memory, Settings

DEADLINE_S = 5.0


async def cycle(db: str, i: int, *, park: bool) -> None:
    settings = Settings(embedder="hash:64", summary_cron=None)
    mem = await Memory.open(db, settings=settings)
    if park:
        # Let the indexer go idle, so the add below wakes it in the same loop iteration as
        # close() stops it (the case that used to swallow the stop on Python 3.11).
        await mem.flush()
        await asyncio.sleep(0.02)
    await mem.add("s", "user", f"message {i}")
    try:
        await asyncio.wait_for(mem.close(), DEADLINE_S)
    except TimeoutError:
        print(f"close() of cycle {i} did not return within {DEADLINE_S} s", flush=True)
        sys.exit(1)


async def main(db: str, rounds: int, park: bool) -> None:
    for i in range(rounds):
        await cycle(db, i, park=park)
    print(f"closed {rounds}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]), sys.argv[3] == "park"))
