"""A threaded HTTP server on 127.0.0.1 that the benchmarks point an OpenAI-style client at:
start on a free port, stop, and the base URL. Subclasses give the request handler."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = ["LocalServer"]


class LocalServer:
    """Serves ``handler`` (a ``BaseHTTPRequestHandler`` class that reaches this object as
    ``self.owner``) on a free port of 127.0.0.1 in a daemon thread."""

    handler: type[BaseHTTPRequestHandler]

    def __init__(self) -> None:
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> Self:
        handler: Any = type("Handler", (self.handler,), {"owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        """The OpenAI-style base URL (ending in ``/v1``)."""
        assert self._httpd is not None, "start() the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
