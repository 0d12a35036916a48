"""An import body read as it arrives: lines handed to the parser one at a time.

The parser runs in a worker thread (see ``Transfer.import_records``) and pulls the body from
the event loop a chunk at a time, so the service holds the chunk being split and the drafts
validated so far, never the whole body, its copies or its parsed records; and the event loop
only moves bytes meanwhile. A history array (a body starting with ``[``) is one JSON value
and is read whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

from ..errors import InvalidInput

__all__ = ["BodyLines", "open_body"]

_CHUNK_WAIT_S = 120.0


async def open_body(chunks: AsyncIterator[bytes]) -> tuple[bytes, bool]:
    """The body's first bytes up to one that is not white space (empty at the end of an
    empty body), and whether the body is a history array (starts with ``[``)."""
    head = b""
    async for chunk in chunks:
        head += chunk
        start = head.lstrip()[:1]
        if start:
            return head, start == b"["
    return head, False


class BodyLines:
    """The lines of a body (``head`` then what ``chunks`` still yields) as text, for a worker
    thread to iterate; each chunk is fetched from ``loop``. A line that is not UTF-8 is
    named by its number."""

    def __init__(self, head: bytes, chunks: AsyncIterator[bytes],
                 loop: asyncio.AbstractEventLoop) -> None:
        self._head = head
        self._chunks = chunks
        self._loop = loop

    async def _next(self) -> bytes | None:
        try:
            return await self._chunks.__anext__()
        except StopAsyncIteration:
            return None

    def _fetch(self) -> bytes | None:
        pending = asyncio.run_coroutine_threadsafe(self._next(), self._loop)
        try:
            # Bounded, so a loop that stopped (the server going down) cannot hold this
            # thread, and the executor's shutdown with it, for ever.
            return pending.result(timeout=_CHUNK_WAIT_S)
        except TimeoutError as exc:
            pending.cancel()
            raise InvalidInput("body", f"stopped arriving: no data for {_CHUNK_WAIT_S:.0f} "
                               "seconds") from exc

    def __iter__(self) -> Iterator[str]:
        number = 0
        unfinished: list[bytes] = []  # the pieces of the line being read
        chunk: bytes | None = self._head
        while chunk is not None:
            pieces = chunk.split(b"\n")
            if len(pieces) > 1:
                unfinished.append(pieces[0])
                for raw in (b"".join(unfinished), *pieces[1:-1]):
                    number += 1
                    yield _decoded(raw, number)
                unfinished = []
            unfinished.append(pieces[-1])
            chunk = self._fetch()
        last = b"".join(unfinished)
        if last:
            yield _decoded(last, number + 1)


def _decoded(raw: bytes, number: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"line {number}", f"is not UTF-8 text (byte {exc.start + 1})"
                           ) from exc
