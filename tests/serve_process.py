"""``memstrata serve`` as a user starts it: a child process on a free port of 127.0.0.1.

    with serve_process(db_path, {"MEMSTRATA_WINDOW_MESSAGES": "4"}) as url:
        key = make_key(db_path, "acme")   # server_helpers: works while the server runs

The environment given is added to this process's (``MEMSTRATA_EMBEDDER=hash:64`` and no summary
schedule unless overridden). On exit the server gets SIGTERM and must stop cleanly; its output
is shown if it does not.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence

from server_helpers import free_port, wait_until_up

__all__ = ["SERVE_ENV", "serve_process"]

SERVE_ENV = {"MEMSTRATA_EMBEDDER": "hash:64", "MEMSTRATA_SUMMARY_CRON": "none",
             "MEMSTRATA_URL": "", "MEMSTRATA_KEY": ""}
_STOP_TIMEOUT_S = 30.0


@contextlib.contextmanager
def serve_process(db: str, env: Mapping[str, str] | None = None,
                  args: Sequence[str] = ()) -> Iterator[str]:
    """Run ``memstrata --db DB serve --port PORT [ARGS]``; yield its base URL; stop it on
    exit."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "memstrata", "--db", db, "serve", "--port", str(port), *args],
        env={**os.environ, **SERVE_ENV, **(env or {})}, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        try:
            wait_until_up(url)
        except TimeoutError as exc:
            server.kill()
            raise RuntimeError(f"memstrata serve did not start: {server.communicate()[0]}"
                               ) from exc
        yield url
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.communicate(timeout=_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                server.kill()
                server.communicate()
