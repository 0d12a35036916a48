"""Rows to values: how the SQLite backend turns result rows into messages and summaries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...types import Message, Summary

__all__ = ["ascii_lower", "row_message", "row_summary"]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """Lower-case like SQLite's built-in ``lower()`` (ASCII only), so both sides agree."""
    return text.translate(_ASCII_LOWER)


# Message is a frozen dataclass with slots; filling its slots directly skips the generated
# __init__'s per-field checks, which matters when every context() builds a window of them.
# Unrolled (no loop, no zip): this runs twenty times per context() call.
_ID, _SESSION, _ROLE, _CONTENT, _SENDER, _AT, _META = (
    Message.__dict__[name].__set__
    for name in ("id", "session", "role", "content", "sender", "at", "meta"))
_new = object.__new__


def row_message(row: Sequence[Any]) -> Message:
    """A Message from a row in the column order of ``_sql.MESSAGE_COLUMNS``."""
    mid, session, role, content, sender, at, meta = row[:7]
    m: Message = _new(Message)
    _ID(m, mid)
    _SESSION(m, session)
    _ROLE(m, role)
    _CONTENT(m, content)
    _SENDER(m, sender)
    _AT(m, at)
    _META(m, None if meta is None else json.loads(meta))
    return m


def row_summary(row: Sequence[Any]) -> Summary:
    return Summary(session=row[0], kind=row[1], body=json.loads(row[2]), cursor=row[3],
                   created_at=row[4], tokens_in=row[5], tokens_out=row[6])
