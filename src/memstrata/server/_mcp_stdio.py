"""The MCP server on this process's stdin and stdout (``memstrata mcp``).

stdout carries nothing but the protocol: while serving, file descriptor 1 points at stderr,
so a stray ``print`` or a library's output cannot corrupt the stream, and the protocol goes
to a private duplicate of the original stdout. Malformed messages are answered on the way in
(see :mod:`._mcp_wire`), since the SDK would drop them unanswered; a line is read a bounded
piece at a time, so one without an end cannot fill the memory.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any, BinaryIO

import anyio

from ..config import Settings
from ..memory import Memory
from ._mcp import build_mcp
from ._mcp_wire import MAX_MESSAGE_BYTES, refusal, too_long

__all__ = ["serve_stdio"]


class _Output(io.TextIOWrapper):
    """The protocol stream: each write is one whole message, flushed, whichever thread
    writes it (the SDK's writer, or the input filter answering a refused request)."""

    def __init__(self, buffer: BinaryIO) -> None:
        super().__init__(buffer, encoding="utf-8")
        self._lock = threading.Lock()

    def write(self, s: str) -> int:
        with self._lock:
            n = super().write(s)
            super().flush()
            return n


class _Input(io.TextIOWrapper):
    """The client's messages, less those answered here."""

    def __init__(self, buffer: BinaryIO, output: _Output) -> None:
        # Undecodable bytes become U+FFFD, as the SDK's own reader does.
        super().__init__(buffer, encoding="utf-8", errors="replace")
        self._output = output

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]  # as typeshed
        while True:
            line = super().readline(MAX_MESSAGE_BYTES + 1)
            if not line:
                return line  # end of input
            if len(line) > MAX_MESSAGE_BYTES and not line.endswith("\n"):
                self._skip_rest_of_line()
                answer: dict[str, Any] | None = too_long()
            elif not line.strip():
                continue  # a blank line is no message
            else:
                answer = refusal(line.encode("utf-8", "surrogatepass"))
            if answer is None:
                return line
            if answer:
                self._output.write(_json_line(answer))

    def _skip_rest_of_line(self) -> None:
        """Read and drop the rest of an over-long line, a bounded piece at a time."""
        while True:
            piece = super().readline(1 << 16)
            if not piece or piece.endswith("\n"):
                return


def _json_line(message: dict[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"


@contextlib.contextmanager
def _protocol_streams() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """Private duplicates of stdin and stdout for the protocol, with fd 1 sent to stderr
    meanwhile (and given back after)."""
    sys.stdout.flush()
    saved = os.dup(1)
    wire_in, wire_out = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    try:
        # The input stays open: a worker thread may still be blocked reading it after the
        # server stops, and its descriptor must not be reused under it.
        with os.fdopen(wire_in, "rb", closefd=False) as stdin, \
                os.fdopen(wire_out, "wb") as stdout:
            yield stdin, stdout
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


async def serve_stdio(target: str, *, settings: Settings, tenant: str) -> None:
    """Serve the tools on stdin/stdout, on ``tenant`` of the database ``target``, until the
    client closes stdin. Background work (indexing, sweeps, the summary schedule) runs
    meanwhile."""
    async with Memory.open(target, settings=settings, tenant=tenant, background=True) as mem:
        server = build_mcp(lambda _request: mem)
        with _protocol_streams() as (raw_in, raw_out):
            output = _Output(raw_out)
            stdin = anyio.wrap_file(_Input(raw_in, output))
            await server.run_stdio_streams(stdin, anyio.wrap_file(output))

