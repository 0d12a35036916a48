"""Rows to values: how the SQLite backend turns result rows into messages and summaries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NoReturn

from ...errors import DatabaseCorrupt
from ...types import Message, Summary
from .._stored import MESSAGE_SLOTS

__all__ = ["ascii_lower", "row_message", "row_summary", "stored_json"]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """Lower-case like SQLite's built-in ``lower()`` (ASCII only), so both sides agree."""
    return text.translate(_ASCII_LOWER)


# Message is a frozen dataclass with slots; filling its slots directly skips the generated
# __init__'s per-field checks, which matters when every context() builds a window of them.
# Unrolled (no loop, no zip): this runs twenty times per context() call.
_ID, _SESSION, _ROLE, _CONTENT, _SENDER, _AT, _META = MESSAGE_SLOTS
_new = object.__new__


def row_message(row: Sequence[Any]) -> Message:
    """A Message from a row in the column order of ``_sql.MESSAGE_COLUMNS``."""
    mid, session, role, content, sender, at, meta = row[:7]
    if not (type(content) is str is type(role) is type(session)
            and type(mid) is int is type(at) and (sender is None or type(sender) is str)):
        _damaged(row)
    m: Message = _new(Message)
    _ID(m, mid)
    _SESSION(m, session)
    _ROLE(m, role)
    _CONTENT(m, content)
    _SENDER(m, sender)
    _AT(m, at)
    _META(m, None if meta is None else stored_json(meta, "a message's meta"))
    return m


def _damaged(row: Sequence[Any]) -> NoReturn:
    """A message row whose values have the wrong types: a flipped type byte in the file. One
    type test per column is cheap beside building the message; the alternative is bytes where
    text belongs, failing later and far from the cause, or shown as text."""
    raise DatabaseCorrupt(f"message {row[0]!r} is damaged in the database file (its stored "
                          f"values have the wrong types: "
                          f"{', '.join(type(v).__name__ for v in row[:6])}); "
                          "`memstrata check` names what is damaged")


def row_summary(row: Sequence[Any]) -> Summary:
    return Summary(session=row[0], kind=row[1], body=stored_json(row[2], "a summary"),
                   cursor=row[3], created_at=row[4], tokens_in=row[5], tokens_out=row[6])


def stored_json(text: str, what: str) -> Any:
    """JSON that memstrata wrote; text that no longer parses was damaged in the file."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise DatabaseCorrupt(f"{what} stored in the database is not valid JSON any more "
                              f"({exc}): the file is damaged; `memstrata check` names what "
                              "is damaged") from exc
