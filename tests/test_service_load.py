"""The HTTP service under load: 32 clients at once against a real ``memstrata serve``.

Each client mixes writes, context reads and searches on a few shared sessions for
``MEMSTRATA_LOAD_SECONDS`` seconds (10 by default; set 60 for the long run). Afterwards every
message the server acknowledged (201) must be stored exactly once, and no request may have
failed with a 5xx or gone unanswered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from server_helpers import auth, free_port, make_key, wait_until_up

CLIENTS = 32
SESSIONS = [f"load-{i}" for i in range(6)]
SECONDS = float(os.environ.get("MEMSTRATA_LOAD_SECONDS", "10"))
WORDS = ["train", "hualien", "taroko", "ticket", "noodle", "museum", "花蓮", "車票", "weather"]


@contextlib.contextmanager
def served(db: Path) -> Iterator[str]:
    """``memstrata serve`` in its own process (its own interpreter: the load generator in this
    one does not take the server's CPU time), stopped with SIGTERM."""
    port = free_port()
    env = {**os.environ, "MEMSTRATA_EMBEDDER": "hash:64", "MEMSTRATA_SUMMARY_CRON": "none"}
    log = db.with_suffix(".log")
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memstrata", "--db", str(db), "serve", "--host",
             "127.0.0.1", "--port", str(port)], env=env, stdout=sink, stderr=sink)
    try:
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(base, timeout=60)
        except TimeoutError:
            raise AssertionError(log.read_text(errors="replace")[-2000:]) from None
        yield base
    finally:
        proc.terminate()
        try:
            assert proc.wait(60) == 0, log.read_text(errors="replace")[-2000:]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@dataclass
class Tally:
    acked: dict[str, tuple[str, int]] = field(default_factory=dict)
    """content -> (session, id) of every 201."""
    calls: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


async def one_client(n: int, base: str, key: str, deadline: float, tally: Tally) -> None:
    rng = random.Random(n)
    async with httpx.AsyncClient(base_url=base, headers=auth(key), timeout=120) as client:
        count = 0
        while time.monotonic() < deadline:
            session = rng.choice(SESSIONS)
            roll = rng.random()
            try:
                if roll < 0.5:
                    count += 1
                    content = f"client {n} message {count} about {rng.choice(WORDS)}"
                    r = await client.post(f"/v1/sessions/{session}/messages", json={
                        "role": rng.choice(["user", "assistant"]), "content": content})
                    op = "add"
                    if r.status_code == 201:
                        tally.acked[content] = (session, r.json()["id"])
                elif roll < 0.75:
                    op = "context"
                    r = await client.get(f"/v1/sessions/{session}/context")
                else:
                    op = "search"
                    r = await client.get(f"/v1/sessions/{session}/search", params={
                        "q": rng.choice(WORDS), "match": rng.choice(["keyword", "hybrid"])})
            except httpx.HTTPError as exc:
                tally.failures.append(f"client {n}: {type(exc).__name__}: {exc}")
                continue
            tally.calls[f"{op} {r.status_code}"] += 1
            if r.status_code >= 500 or r.status_code != (201 if op == "add" else 200):
                tally.failures.append(f"{op} {r.status_code}: {r.text[:300]}")


async def stored(base: str, key: str) -> list[dict[str, object]]:
    """Every message of the load sessions, read back through the export route."""
    records: list[dict[str, object]] = []
    async with httpx.AsyncClient(base_url=base, headers=auth(key), timeout=120) as client:
        for session in SESSIONS:
            r = await client.get(f"/v1/sessions/{session}/export")
            if r.status_code == 404:
                continue
            assert r.status_code == 200, r.text
            for line in r.text.splitlines():
                record = json.loads(line)
                if record["type"] == "message":
                    records.append({**record, "session": session})
    return records


async def run_load(base: str, key: str) -> Tally:
    tally = Tally()
    deadline = time.monotonic() + SECONDS
    await asyncio.gather(*(one_client(n, base, key, deadline, tally) for n in range(CLIENTS)))
    return tally


def test_32_clients_lose_nothing_and_never_fail(tmp_path: Path) -> None:
    db = tmp_path / "load.db"
    key = make_key(str(db), "load")
    with served(db) as base:
        tally = asyncio.run(run_load(base, key))
        records = asyncio.run(stored(base, key))

    assert not tally.failures, (len(tally.failures), tally.failures[:5], tally.calls)
    # Every kind of call ran, many times, while the others did.
    for op in ("add 201", "context 200", "search 200"):
        assert tally.calls[op] >= CLIENTS, tally.calls
    seen = Counter(str(r["content"]) for r in records)
    doubled = [c for c, k in seen.items() if k > 1]
    assert not doubled, doubled[:5]
    where = {str(r["content"]): (str(r["session"]), r["id"]) for r in records}
    lost = [c for c in tally.acked if c not in where]
    assert not lost, (len(lost), lost[:5])
    moved = [c for c, at in tally.acked.items() if where[c] != at]
    assert not moved, moved[:5]
    # Nothing was stored that the clients did not write.
    assert len(records) == len(tally.acked)
