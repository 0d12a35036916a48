"""Concurrent writers (tasks and real processes) and a kill -9 in the middle of writing."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from memstrata import Memory, Settings

SETTINGS = Settings(embedder=None, summary_cron=None)

WRITER = textwrap.dedent("""
    import asyncio, sys
    from memstrata import Memory, Settings

    async def main(path, name, count):
        settings = Settings(embedder=None, summary_cron=None)
        async with Memory.open(path, settings=settings, background=False) as mem:
            for i in range(count):
                shared = await mem.add("shared", "user", f"{name} says {i}")
                await mem.add(f"own-{name}", "assistant", f"{name} alone {i}")
                print(shared.id, flush=True)

    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3])))
""")


def _spawn(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


async def test_processes_appending_to_one_file_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "shared.db")
    async with Memory.open(path, settings=SETTINGS, background=False):
        pass  # create the schema once, so the writers race only on writes
    writers = {f"p{k}": _spawn(WRITER, path, f"p{k}", "150") for k in range(4)}
    acknowledged: dict[str, list[int]] = {}
    for name, proc in writers.items():
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        assert "locked" not in err
        acknowledged[name] = [int(x) for x in out.split()]
    async with Memory.open(path, settings=SETTINGS, background=False) as mem:
        stats = await mem.stats("shared")
        assert stats.messages == 600
        records = [r async for r in mem.export("shared")]
        ids = [r["id"] for r in records]
        assert ids == sorted(ids) and len(set(ids)) == 600
        for name, acked in acknowledged.items():
            mine = [r for r in records if r["content"].startswith(f"{name} says ")]
            # Each writer's messages are stored in the order it wrote them, with the ids it was
            # told.
            assert [r["content"] for r in mine] == [f"{name} says {i}" for i in range(150)]
            assert [r["id"] for r in mine] == acked
            assert (await mem.stats(f"own-{name}")).messages == 150
        assert await mem.check() == []


async def test_concurrent_tasks_keep_a_total_order(tmp_path: Path) -> None:
    async with Memory.open(str(tmp_path / "t.db"), settings=SETTINGS,
                           background=False) as mem:
        async def writer(k: int) -> list[int]:
            return [(await mem.add("s", "user", f"task {k} item {i}")).id for i in range(25)]
        results = await asyncio.gather(*(writer(k) for k in range(20)))
        all_ids = [i for ids in results for i in ids]
        assert len(set(all_ids)) == 500
        assert all(ids == sorted(ids) for ids in results)
        assert (await mem.stats("s")).messages == 500


CRASHER = textwrap.dedent("""
    import asyncio, sys
    from memstrata import Memory, Settings

    async def main(path):
        settings = Settings(embedder=None, summary_cron=None)
        mem = await Memory.open(path, settings=settings, background=False)
        i = 0
        while True:
            batch = await mem.add_many("s", [{"role": "user", "content": f"m{i} " + "x" * 500},
                                             {"role": "assistant", "content": f"r{i} 回覆"}])
            print(batch[-1].id, flush=True)
            i += 1

    asyncio.run(main(sys.argv[1]))
""")


async def test_kill_9_loses_no_acknowledged_write(tmp_path: Path) -> None:
    path = str(tmp_path / "crash.db")
    proc = _spawn(CRASHER, path)
    assert proc.stdout is not None
    acked: list[int] = []
    while len(acked) < 300:
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr else "writer died"
        acked.append(int(line))
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()  # reap it and close the pipes
    async with Memory.open(path, settings=SETTINGS, background=False) as mem:
        assert await mem.check() == []
        stored = {r["id"] async for r in mem.export("s")}
        assert set(acked) <= stored
        assert len(stored) % 2 == 0  # add_many is all or nothing
        assert len(await mem.search("s", "回覆", limit=32)) == 32
