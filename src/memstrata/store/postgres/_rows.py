"""Rows to values: how the PostgreSQL backend turns result rows into messages and summaries.

``meta`` columns are ``json``, which psycopg parses on the way in; summary bodies are read as
text (``body::text``) and parsed here, so a window read with its summary parses it once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ...types import Message, Summary

__all__ = ["ascii_lower", "row_message", "row_summary"]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """Lower-case ASCII only, as the SQL side's ``translate`` (and SQLite's ``lower()``)."""
    return text.translate(_ASCII_LOWER)


def row_message(row: Sequence[Any]) -> Message:
    """A Message from a row in the column order of ``_sql.MESSAGE_COLUMNS``."""
    mid, session, role, content, sender, at, meta = row[:7]
    return Message(id=int(mid), session=session, role=role, content=content, sender=sender,
                   at=int(at), meta=meta)


def row_summary(row: Sequence[Any]) -> Summary:
    """A Summary from ``session, kind, body (text), cursor, created_at, tokens_in,
    tokens_out``."""
    return Summary(session=row[0], kind=row[1], body=json.loads(row[2]), cursor=row[3],
                   created_at=int(row[4]), tokens_in=int(row[5]), tokens_out=int(row[6]))
