"""What the soak runs against: ``memstrata serve`` in its own process with every background
part on, and a tiny scripted summary model on 127.0.0.1 for it to call.

The service is configured through ``MEMSTRATA_*`` variables, as an operator would: the
deterministic ``hash:64`` embedder (the local model would take most of a small machine's CPU
away from the service being measured), the summary model ``openai:soak-summary`` pointed at
:class:`ScriptedLLM` through the real OpenAI-compatible HTTP provider, a summary tick every
five seconds, compaction by turns and by bytes set low enough that every session is compacted
several times, and ``temp-`` sessions purged after one idle minute.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
from _local_http import LocalServer

from memstrata.server import ApiKeys
from memstrata.store import open_store

__all__ = ["ScriptedLLM", "Served", "make_keys", "server_env"]

SUMMARY = {"key_decisions": ["Do: keep the soak running", "Don't: lose a message"],
           "past_discussions": [{"topic": "soak", "description": "steady mixed load"}],
           "current_discussion": {"topic": "soak", "description": "rolling sessions"}}


class ScriptedLLM(LocalServer):
    """An OpenAI-compatible ``POST /v1/chat/completions`` that always answers with the same
    valid summary after ``delay`` seconds (a model's latency), and counts the calls."""

    def __init__(self, delay: float = 0.02) -> None:
        super().__init__()
        self.handler = _Handler
        self.delay = delay
        self.calls = 0
        self._lock = threading.Lock()

    def _count(self) -> None:
        with self._lock:
            self.calls += 1


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedLLM
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": {"message": "not here", "type": "test"}})
            return
        self.owner._count()
        time.sleep(self.owner.delay)
        self._send(200, {
            "id": "soak", "object": "chat.completion", "model": "soak-summary",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(SUMMARY)}}],
            "usage": {"prompt_tokens": length // 4, "completion_tokens": 60,
                      "total_tokens": length // 4 + 60}})

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: thousands of calls would flood the output."""


def server_env(llm_url: str) -> dict[str, str]:
    """The service's settings for the soak, as ``MEMSTRATA_*`` variables."""
    return {
        "MEMSTRATA_EMBEDDER": "hash:64",
        "MEMSTRATA_SUMMARY_MODEL": "openai:soak-summary",
        "MEMSTRATA_LLM_BASE_URL": llm_url,
        "MEMSTRATA_LLM_API_KEY": "soak",
        "MEMSTRATA_DECISION_MODEL": "none",
        # Seconds are the sixth field: a tick every five seconds.
        "MEMSTRATA_SUMMARY_CRON": "* * * * * */5",
        "MEMSTRATA_COMPACT_TURNS": "true",
        "MEMSTRATA_MAX_TURNS": "41",
        "MEMSTRATA_KEEP_TURNS": "20",
        "MEMSTRATA_MAX_HISTORY_BYTES": "16384",
        "MEMSTRATA_TEMP_IDLE_MINUTES": "1",
    }


def make_keys(db: Path, tenants: list[str]) -> list[str]:
    """One API key per tenant, stored in the file before the service starts."""
    async def create() -> list[str]:
        store = await open_store(str(db))
        try:
            keys = ApiKeys(store.api_keys)
            return [(await keys.create(t, "soak"))[0] for t in tenants]
        finally:
            await store.close()
    return asyncio.run(create())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """``memstrata serve`` on ``db`` in a subprocess (its own interpreter, so the load
    generator does not share its GIL); ``stop()`` sends SIGTERM and returns the exit code."""

    def __init__(self, db: Path, env: dict[str, str]) -> None:
        self.db = db
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = db.with_suffix(".log")
        with self.log.open("wb") as sink:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "memstrata", "--db", str(db), "serve", "--host",
                 "127.0.0.1", "--port", str(self.port)],
                env={**os.environ, **env}, stdout=sink, stderr=sink)
        self.pid = self.proc.pid

    def wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{self.url}/readyz", timeout=2).status_code == 200:
                    return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the service did not start: " + self.tail())
            time.sleep(0.1)

    def tail(self, chars: int = 3000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def stop(self, timeout: float = 60.0) -> int:
        """Graceful stop (SIGTERM); kills after ``timeout`` seconds. The exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return -9
