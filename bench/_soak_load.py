"""The soak's clients and their ledger of everything the service acknowledged.

Each client owns a few rolling sessions (so no two clients race on one session and the ledger
is exact) and sends a paced mix of calls: messages (one or a batch), context reads in every
format, searches in every mode (one session and the whole tenant), message reads and pages,
session stats and summaries, forgetting one message, error records (write, search, hint, read,
delete), and messages to ``temp-`` sessions that it then leaves for the sweeper. A session that
reaches its quota of messages is removed and a new one takes its place, so sessions are
created exactly as fast as they are removed and the live data stays bounded.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from array import array
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from _load import Conn

__all__ = ["Client", "Ledger", "SessionBook"]

WORDS = ("train Hualien Taroko ticket noodle museum weather budget hotel flight river "
         "mountain lunch dinner deadline report invoice meeting 花蓮 車票 太魯閣 天氣 牛肉麵 "
         "會議 報告").split()
MODES = ("keyword", "semantic", "hybrid")
FORMATS = ("plain", "openai", "anthropic")
TOOLS = ("web_fetch", "sql_query", "file_read", "shell")
FAILURES_KEPT = 50
TEMP_MESSAGES = 10
"""Messages a client writes to one ``temp-`` session before leaving it to expire."""

# (operation, weight); removal of a full session and deletion of old error records happen
# on top of these, when a quota is reached.
MIX = (("add", 40), ("batch", 4), ("context", 14), ("search", 14), ("search_all", 4),
       ("read", 3), ("page", 2), ("stats", 2), ("summary", 1), ("forget", 2),
       ("error_write", 4), ("error_search", 3), ("error_hint", 2), ("error_read", 2),
       ("temp", 3))


@dataclass
class SessionBook:
    """One live session: what it was acknowledged to hold, and when it is retired."""

    tenant: int
    name: str
    quota: int
    acked: dict[int, str] = field(default_factory=dict)
    """Message id -> content of every acknowledged message not forgotten since."""
    written: int = 0


@dataclass
class Ledger:
    """Everything the clients were told, shared by all of them (one event loop)."""

    live: dict[str, SessionBook] = field(default_factory=dict)
    removed: list[tuple[int, str]] = field(default_factory=list)
    forgotten: list[tuple[int, int]] = field(default_factory=list)
    errors: dict[str, int] = field(default_factory=dict)
    """Error record id -> tenant, for every record written and not deleted."""
    temp_left: list[tuple[float, int, str]] = field(default_factory=list)
    """(when left, tenant, session) of ``temp-`` sessions waiting for the sweeper."""
    temp_expired: int = 0
    checked: int = 0
    """Acknowledged messages found in a session's export just before it was removed."""
    lost: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    server_errors: int = 0
    failures: int = 0
    failure_samples: list[str] = field(default_factory=list)
    latencies: dict[str, array[float]] = field(default_factory=dict)
    """Milliseconds per operation since the sampler last took them."""

    def fail(self, text: str) -> None:
        self.failures += 1
        if len(self.failure_samples) < FAILURES_KEPT:
            self.failure_samples.append(text)

    def take_latencies(self) -> dict[str, array[float]]:
        taken, self.latencies = self.latencies, {}
        return taken


class Client:
    """One paced client of one tenant, on one keep-alive connection."""

    def __init__(self, n: int, tenant: int, url: str, key: str, ledger: Ledger, *,
                 rate: float, sessions: int, quota: tuple[int, int], error_pool: int) -> None:
        self.n, self.tenant, self.url, self.key = n, tenant, url, key
        self.ledger = ledger
        self.rng = random.Random(1000 + n)
        self.interval = 1.0 / rate
        self.quota = quota
        self.error_pool = error_pool
        self.conn = Conn(url, key)
        self.generation = 0
        self.mine: list[SessionBook] = [self._new_session(k) for k in range(sessions)]
        self.my_errors: list[str] = []
        self.temp_count = 0
        self.temp_written = 0
        self._ops = [op for op, _ in MIX]
        self._weights = [w for _, w in MIX]

    def _new_session(self, slot: int) -> SessionBook:
        self.generation += 1
        book = SessionBook(self.tenant, f"soak-c{self.n}-s{slot}-g{self.generation}",
                           self.rng.randint(*self.quota))
        self.ledger.live[book.name] = book
        return book

    async def run(self, stop_at: float) -> None:
        next_at = time.monotonic()
        try:
            while (now := time.monotonic()) < stop_at:
                if next_at > now:
                    await asyncio.sleep(next_at - now)
                elif now - next_at > 1.0:
                    next_at = now  # fell behind: carry on at the pace, no burst to catch up
                next_at += self.interval
                op = self.rng.choices(self._ops, self._weights)[0]
                await getattr(self, f"_{op}")()
        finally:
            await self.conn.close()

    async def call(self, op: str, method: str, target: str, body: object = None,
                   expect: int = 200) -> bytes | None:
        """One request, timed; the body when the status is the expected one."""
        start = time.perf_counter_ns()
        try:
            status, data = await self.conn.request(method, target, body)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                ValueError) as exc:
            self.ledger.fail(f"{op}: {type(exc).__name__}: {exc}")
            await self.conn.close()
            self.conn = Conn(self.url, self.key)
            return None
        ms = (time.perf_counter_ns() - start) / 1e6
        self.ledger.latencies.setdefault(op, array("f")).append(ms)
        self.ledger.calls[f"{op} {status}"] += 1
        if status >= 500:
            self.ledger.server_errors += 1
        if status != expect:
            self.ledger.fail(f"{op} {method} {target}: {status} {data[:200]!r}")
            return None
        return data

    # -- messages ------------------------------------------------------------------------

    def _text(self, book: SessionBook) -> str:
        words = " ".join(self.rng.choices(WORDS, k=self.rng.randint(6, 30)))
        return f"{book.name} #{book.written}: {words}"

    def _role(self, book: SessionBook) -> str:
        return "user" if book.written % 2 == 0 else "assistant"

    async def _add(self) -> None:
        slot = self.rng.randrange(len(self.mine))
        book = self.mine[slot]
        content, role = self._text(book), self._role(book)
        book.written += 1
        data = await self.call("add", "POST", f"/v1/sessions/{book.name}/messages",
                               {"role": role, "content": content, "sender": f"c{self.n}"},
                               expect=201)
        if data is not None:
            book.acked[int(_json(data)["id"])] = content
        await self._maybe_retire(slot)

    async def _batch(self) -> None:
        slot = self.rng.randrange(len(self.mine))
        book = self.mine[slot]
        items = []
        for _ in range(3):
            items.append({"role": self._role(book), "content": self._text(book)})
            book.written += 1
        data = await self.call("batch", "POST", f"/v1/sessions/{book.name}/messages/batch",
                               {"items": items}, expect=201)
        if data is not None:
            for m in _json(data)["messages"]:
                book.acked[int(m["id"])] = str(m["content"])
        await self._maybe_retire(slot)

    async def _maybe_retire(self, slot: int) -> None:
        book = self.mine[slot]
        if book.written < book.quota:
            return
        await self._check_export(book)
        if await self.call("remove", "DELETE", f"/v1/sessions/{book.name}") is not None:
            del self.ledger.live[book.name]
            self.ledger.removed.append((self.tenant, book.name))
            self.mine[slot] = self._new_session(slot)

    async def _check_export(self, book: SessionBook) -> None:
        """Before a session is removed, its export must hold every acknowledged message not
        forgotten exactly once, and nothing else: so every write of the run is checked, not
        only those of the sessions alive at the end."""
        data = await self.call("export", "GET", f"/v1/sessions/{book.name}/export")
        if data is None:
            return
        records = [json.loads(line) for line in data.splitlines()]
        seen = Counter((int(r["id"]), str(r["content"])) for r in records
                       if r["type"] == "message")
        led = self.ledger
        led.checked += len(book.acked)
        led.lost += [f"{book.name}/{i}" for i, c in book.acked.items() if (i, c) not in seen]
        led.duplicated += [f"{book.name}/{k[0]}" for k, n in seen.items() if n > 1]
        led.unexpected += [f"{book.name}/{k[0]}" for k in seen if book.acked.get(k[0]) != k[1]]

    def _some_message(self) -> tuple[SessionBook, int] | None:
        book = self.rng.choice(self.mine)
        if not book.acked:
            return None
        return book, self.rng.choice(list(book.acked))

    async def _forget(self) -> None:
        found = self._some_message()
        if found is None or len(found[0].acked) < 2:
            return
        book, message_id = found
        if await self.call("forget", "DELETE", f"/v1/messages/{message_id}",
                           expect=204) is not None:
            del book.acked[message_id]
            self.ledger.forgotten.append((self.tenant, message_id))

    async def _temp(self) -> None:
        name = f"temp-soak-c{self.n}-t{self.temp_count}"
        await self.call("temp", "POST", f"/v1/sessions/{name}/messages",
                        {"role": "user", "content": f"scratch {self.temp_written}"},
                        expect=201)
        self.temp_written += 1
        if self.temp_written % TEMP_MESSAGES == 0:
            self.ledger.temp_left.append((time.monotonic(), self.tenant, name))
            self.temp_count += 1

    # -- reads ---------------------------------------------------------------------------

    def _started(self) -> SessionBook | None:
        book = self.rng.choice(self.mine)
        return book if book.acked else None

    async def _context(self) -> None:
        book = self._started()
        if book is None:
            return
        fmt = self.rng.choice(FORMATS)
        query = f"&query={quote(self.rng.choice(WORDS))}" if self.rng.random() < 0.2 else ""
        await self.call("context", "GET", f"/v1/sessions/{book.name}/context?format={fmt}"
                        + query)

    async def _search(self) -> None:
        book = self._started()
        if book is None:
            return
        q = quote(" ".join(self.rng.choices(WORDS, k=self.rng.randint(1, 2))))
        mode = self.rng.choice(MODES)
        window = "&exclude_window=false" if self.rng.random() < 0.3 else ""
        await self.call("search", "GET",
                        f"/v1/sessions/{book.name}/search?q={q}&match={mode}{window}")

    async def _search_all(self) -> None:
        q = quote(self.rng.choice(WORDS))
        mode = self.rng.choice(MODES)
        await self.call("search", "GET", f"/v1/search?q={q}&match={mode}&time_range=7d")

    async def _read(self) -> None:
        found = self._some_message()
        if found is not None:
            await self.call("read", "GET", f"/v1/messages/{found[1]}?before=2&after=2")

    async def _page(self) -> None:
        book = self._started()
        if book is not None:
            await self.call("read", "GET", f"/v1/sessions/{book.name}/messages?limit=5")

    async def _stats(self) -> None:
        book = self._started()
        if book is not None:
            await self.call("read", "GET", f"/v1/sessions/{book.name}")

    async def _summary(self) -> None:
        book = self._started()
        if book is not None:
            await self.call("read", "GET", f"/v1/sessions/{book.name}/summary")

    # -- error memory --------------------------------------------------------------------

    async def _error_write(self) -> None:
        tool = self.rng.choice(TOOLS)
        words = self.rng.sample(WORDS, 3)
        data = await self.call("errors", "POST", "/v1/errors", {
            "tool_name": tool, "keywords": words,
            "symptom": f"{tool} failed on {' '.join(words)} (client {self.n})",
            "action": f"retry {tool} with a longer timeout", "outcome": "resolved"},
            expect=201)
        if data is None:
            return
        record_id = str(_json(data)["id"])
        self.my_errors.append(record_id)
        self.ledger.errors[record_id] = self.tenant
        while len(self.my_errors) > self.error_pool:
            old = self.my_errors.pop(0)
            if await self.call("errors", "DELETE", f"/v1/errors/{old}", expect=204) is None:
                self.my_errors.insert(0, old)
                return
            del self.ledger.errors[old]

    async def _error_search(self) -> None:
        q = quote(f"{self.rng.choice(TOOLS)} {self.rng.choice(WORDS)} timeout")
        await self.call("errors", "GET", f"/v1/errors/search?q={q}")

    async def _error_hint(self) -> None:
        tool = self.rng.choice(TOOLS)
        error = quote(f"ReadTimeout: {self.rng.choice(WORDS)} timed out")
        await self.call("errors", "GET", f"/v1/errors/hint?tool={tool}&error={error}")

    async def _error_read(self) -> None:
        if self.my_errors:
            await self.call("errors", "GET", f"/v1/errors/{self.rng.choice(self.my_errors)}")


def _json(data: bytes) -> dict[str, Any]:
    out = json.loads(data)
    assert isinstance(out, dict)
    return out
