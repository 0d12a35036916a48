"""Writes messages one at a time and reports each acknowledgement with the WAL's length.

Run by the damage tests, which kill it with SIGKILL once it prints ``done`` (so the WAL is
left as a crash leaves it: never checkpointed). Usage: ``disk_wal_writer.py DB COUNT``. Each
acknowledged message prints one JSON line ``{"content": …, "wal": bytes}``: the WAL's length
right after ``add`` returned, so the commit that stored the message ends at or before that
offset (the WAL only grows while it is never checkpointed).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from memstrata import Memory, Settings


async def main(db: str, count: int) -> None:
    mem = await Memory.open(db, settings=Settings(embedder=None, summary_cron=None),
                            background=False)
    for i in range(count):
        content = f"acknowledged message {i:04d} kwal{i:04d}x " + "filler text " * (i % 7)
        await mem.add("wal", "user" if i % 2 == 0 else "assistant", content)
        print(json.dumps({"content": content, "wal": os.path.getsize(f"{db}-wal")}),
              flush=True)
    print("done", flush=True)
    await asyncio.sleep(3600)  # killed here, with the WAL as it is


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
