"""A bound on the time a client may take to send a request's headers.

uvicorn waits for headers as long as the client keeps the connection open, so a few hundred
half-sent requests hold as many connections forever. :func:`header_timeout_protocol` gives
uvicorn an HTTP protocol (its httptools one) that closes a connection whose request headers
are not complete ``seconds`` after the connection opened or the request began.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["header_timeout_protocol"]


def header_timeout_protocol(seconds: float) -> Any:
    """uvicorn's ``http=`` for a header read timeout of ``seconds`` (``"auto"`` when the
    httptools protocol is not installed: no header timeout then)."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # pragma: no cover - uvicorn without its standard extras
        return "auto"

    class HeaderTimeoutProtocol(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(seconds, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

    return HeaderTimeoutProtocol
