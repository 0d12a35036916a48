"""A real memstrata HTTP service on 127.0.0.1 for tests, and API keys to call it with.

    with running_server(db_path) as base_url:
        key = make_key(db_path, "acme")
        r = httpx.post(f"{base_url}/v1/sessions/s1/messages", headers=auth(key),
                       json={"role": "user", "content": "hello"})

``running_server`` builds the app with ``memstrata.server.create_app`` (keyword arguments go
to it), serves it with uvicorn on a free port in a thread of the test process, waits until it
accepts requests, and shuts it down (lifespan included) on exit. By default the app gets a
``HashEmbedder`` (semantic search works, offline and deterministic), no LLM and no summary
schedule; pass ``settings=``, ``embedder=``, ``llm=`` … to change that. ``make_key`` stores a
key in the database file (as ``memstrata keys create`` does) and returns it; it works before,
during and after a server runs on the same file.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import uvicorn

from memstrata import Settings
from memstrata.providers import HashEmbedder
from memstrata.server import ApiKeys, create_app
from memstrata.store import open_store

__all__ = ["auth", "free_port", "make_key", "revoke_key", "running_server", "wait_until_up"]

_START_TIMEOUT_S = 30.0


def auth(key: str) -> dict[str, str]:
    """The request headers that authenticate with ``key``."""
    return {"Authorization": f"Bearer {key}"}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (for a server in a subprocess)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(base_url: str, timeout: float = _START_TIMEOUT_S) -> None:
    """Wait until ``GET /healthz`` answers 200 (for a server started elsewhere)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if httpx.get(f"{base_url}/healthz", timeout=2.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"no memstrata server answered at {base_url}")
        time.sleep(0.05)


@contextlib.contextmanager
def running_server(db_path: str, **app_kwargs: Any) -> Iterator[str]:
    """Serve ``create_app(db_path, **app_kwargs)`` on a free port of 127.0.0.1; yields the
    base URL (``http://127.0.0.1:PORT``) and stops the server, lifespan and all, on exit."""
    app_kwargs.setdefault("settings", Settings(summary_cron=None))
    app_kwargs.setdefault("embedder", HashEmbedder(64))
    app_kwargs.setdefault("llm", None)
    app_kwargs.setdefault("decision_llm", None)
    app = create_app(db_path, **app_kwargs)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    failure: list[BaseException] = []

    def serve() -> None:
        try:
            server.run(sockets=[sock])
        except BaseException as exc:  # reported in the test's thread
            failure.append(exc)

    thread = threading.Thread(target=serve, name=f"memstrata-test-server-{port}", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not server.started:
            if failure or not thread.is_alive():
                raise RuntimeError(f"the test server did not start: {failure!r}")
            if time.monotonic() > deadline:
                raise TimeoutError("the test server did not start in time")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(_START_TIMEOUT_S)
        sock.close()
    if failure:
        raise RuntimeError("the test server failed") from failure[0]


def _in_fresh_loop(coro: Any) -> Any:
    """Run a coroutine to completion in a new event loop on its own thread (so this works
    from sync tests and from inside a running event loop alike)."""
    result: list[Any] = []
    errors: list[BaseException] = []

    def go() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=go)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


def make_key(db_path: str, tenant: str, name: str | None = None, **options: Any) -> str:
    """Create an API key for ``tenant`` in the database file and return the key
    (``options``: scopes, expiry and limits, as ``ApiKeys.create`` takes them)."""
    async def create() -> str:
        store = await open_store(db_path)
        try:
            key, _ = await ApiKeys(store.api_keys).create(tenant, name, **options)
            return key
        finally:
            await store.close()
    out: str = _in_fresh_loop(create())
    return out


def revoke_key(db_path: str, key: str) -> None:
    """Revoke ``key`` (the whole key, as ``make_key`` returned it) in the database file."""
    async def revoke() -> None:
        store = await open_store(db_path)
        try:
            await ApiKeys(store.api_keys).revoke(key.split("_")[1])
        finally:
            await store.close()
    _in_fresh_loop(revoke())
