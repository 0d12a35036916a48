"""Frames on a byte stream: a 4-byte big-endian length, then that many bytes (the pipes
between the parent and its embedding children, :mod:`._process` and :mod:`._child`)."""

from __future__ import annotations

import struct
from typing import IO

__all__ = ["HEADER", "read_frame", "write_frame"]

HEADER = struct.Struct(">I")
"""The length before every frame."""


def read_frame(stream: IO[bytes]) -> bytes | None:
    """The next frame's bytes, or ``None`` when the stream ended (before or inside it)."""
    head = _read_exactly(stream, HEADER.size)
    if head is None:
        return None
    (size,) = HEADER.unpack(head)
    return _read_exactly(stream, size)


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    parts: list[bytes] = []
    left = size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    """Write one frame (not flushed)."""
    stream.write(HEADER.pack(len(payload)))
    stream.write(payload)
