"""The checks of what the error memory is given: each raises ``InvalidInput`` naming the
field, before anything is stored or searched. ``ErrorMemory`` runs them, and so does the
remote client before it sends a request, so both refuse bad input in the same words.

Bounds that are settings (``max_content_chars``, ``error_limit_max``) are arguments: a client
checks with its own settings only what does not depend on the server's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ..errors import InvalidInput
from ..text import check_stored_text, check_unicode
from ..types import OUTCOMES, ErrorOutcome

__all__ = ["ID_LEN", "ID_PREFIX_MIN", "MAX_QUERY_CHARS", "RecordFields", "check_error_text",
           "check_keywords", "check_limit", "check_outcome", "check_prefix",
           "check_query_text", "check_text", "check_tool_name", "record_fields"]

ID_PREFIX_MIN = 8
ID_LEN = 32
_HEX = re.compile(r"[0-9a-f]+")
_MAX_TOOL_NAME = 128
_MAX_KEYWORDS = 32
_MAX_KEYWORD_CHARS = 64
MAX_QUERY_CHARS = 2_000
"""The longest search text (and the part of an error text a hint looks at)."""

# No tool is named with one, and PostgreSQL cannot even compare text holding NUL.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class RecordFields:
    """The fields of a new record, checked and normalised."""

    tool_name: str
    keywords: tuple[str, ...]
    symptom: str
    cause: str | None
    action: str
    outcome: ErrorOutcome


def record_fields(*, tool_name: object, keywords: object, symptom: object, action: object,
                  cause: object, outcome: object, max_chars: int) -> RecordFields:
    """Every field of ``write``, checked in the order a caller reads them."""
    return RecordFields(tool_name=check_tool_name(tool_name),
                        keywords=check_keywords(keywords),
                        symptom=check_text("symptom", symptom, max_chars),
                        cause=_optional_text("cause", cause, max_chars),
                        action=check_text("action", action, max_chars),
                        outcome=check_outcome(outcome))


def check_text(field: str, value: object, max_chars: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(field, "must be a non-empty string")
    if len(value) > max_chars:
        raise InvalidInput(field, f"must be at most {max_chars} characters, got {len(value)}")
    return check_stored_text(value, field).strip()


def _optional_text(field: str, value: object, max_chars: int) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return check_text(field, value, max_chars)


def check_tool_name(value: object, *, field: str = "tool_name") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(field, "must be a non-empty string (the tool's name)")
    name = value.strip()
    if len(name) > _MAX_TOOL_NAME or _CONTROL.search(name):
        raise InvalidInput(field, f"must be one line of at most {_MAX_TOOL_NAME} characters, "
                           "without control characters (NUL, tab, line breaks …)")
    return check_stored_text(name, field)


def check_keywords(value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InvalidInput("keywords", "must be a list of strings, e.g. ['timeout', 'http']")
    out: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise InvalidInput("keywords", f"must be a list of strings; got {item!r}")
        check_stored_text(item, f"keywords[{len(out)}]")
        word = " ".join(item.lower().split())
        if len(word) > _MAX_KEYWORD_CHARS:
            raise InvalidInput("keywords", f"each keyword must be at most "
                               f"{_MAX_KEYWORD_CHARS} characters; got {item[:20]!r}…")
        if word and word not in out:
            out.append(word)
    if len(out) > _MAX_KEYWORDS:
        raise InvalidInput("keywords", f"at most {_MAX_KEYWORDS} keywords, got {len(out)}")
    return tuple(out)


def check_outcome(value: object) -> ErrorOutcome:
    if isinstance(value, str) and value in OUTCOMES:
        return cast(ErrorOutcome, value)
    raise InvalidInput("outcome", f"must be one of {', '.join(OUTCOMES)}; got {value!r}")


def check_query_text(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput("keyword", "must be a non-empty string (words, a phrase or an "
                           "error message)")
    if len(value) > MAX_QUERY_CHARS:
        raise InvalidInput("keyword", f"must be at most {MAX_QUERY_CHARS} characters, got "
                           f"{len(value)}")
    return check_unicode(value, "keyword").strip()


def check_error_text(value: object) -> str:
    """The failure's text given to ``hint``, stripped and cut to what a search reads."""
    if not isinstance(value, str):
        raise InvalidInput("error_text", "must be a string")
    return check_unicode(value, "error_text").strip()[:MAX_QUERY_CHARS]


def check_limit(limit: object, default: int, top: int) -> int:
    if limit is None:
        return default
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= top:
        raise InvalidInput("limit", f"must be an integer from 1 to {top}, got {limit!r}")
    return limit


def check_prefix(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidInput("id", f"must be a string of {ID_PREFIX_MIN} to {ID_LEN} hex "
                           f"characters, got {value!r}")
    prefix = value.strip().lower()
    if not ID_PREFIX_MIN <= len(prefix) <= ID_LEN or not _HEX.fullmatch(prefix):
        raise InvalidInput("id", f"must be the record id or a prefix of it: {ID_PREFIX_MIN} "
                           f"to {ID_LEN} hex characters (0-9, a-f), got {value!r}")
    return prefix
