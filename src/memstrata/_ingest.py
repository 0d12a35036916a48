"""Validation and normalisation of everything written: ids, roles, content, records.

Every check raises ``InvalidInput`` naming the field and what is allowed, before anything is
written.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, cast

from .errors import InvalidInput
from .text import check_json_text, check_stored_text, check_unicode
from .types import Draft, Role

__all__ = [
    "MAX_AT",
    "MAX_FUTURE_SKEW_NS",
    "ROLES",
    "TEMP_PREFIX",
    "check_message_id",
    "check_session",
    "check_span",
    "check_tenant",
    "draft",
    "draft_from_record",
    "draft_item",
    "is_temp",
    "new_draft",
    "text_of",
    "too_long",
]

ROLES: tuple[Role, ...] = ("user", "assistant")
TEMP_PREFIX = "temp-"
_SESSION_RE = re.compile(r"[A-Za-z0-9._:@-]{1,128}")
# Tenants may also hold "/" (never sent in a URL path), so an application can name its end
# users under its own prefix: ``acme/user-42``.
_TENANT_RE = re.compile(r"[A-Za-z0-9._:@/-]{1,128}")
_TENANT_RULE = ("must be 1-128 characters from A-Z a-z 0-9 . _ : @ - / (ASCII only: no "
                "spaces)")
_MAX_SENDER = 256
_MAX_KEY = 256
_MAX_META_BYTES = 65_536
# Unix nanoseconds between 1970 and 2262 (the signed 64-bit range).
MAX_AT = 2**63 - 1
"""The latest time (Unix nanoseconds) a message may carry: 2262, the signed 64-bit end."""
MAX_FUTURE_SKEW_NS = 5 * 60 * 10**9
"""How far ahead of the memory's clock a caller-supplied ``at`` may be (clock skew)."""


_SESSION_RULE = ("must be 1-128 characters from A-Z a-z 0-9 . _ : @ - (ASCII only: no spaces, "
                 "no letters of other scripts)")


# "." and ".." are path segments every URL parser folds away: no HTTP client could name them.
_DOT_SEGMENTS = frozenset({".", ".."})


def check_session(session: object, field: str = "session") -> str:
    """The session id if valid: 1-128 characters of ``[A-Za-z0-9._:@-]`` (ASCII only), and
    neither ``.`` nor ``..``."""
    if session in _DOT_SEGMENTS:
        raise InvalidInput(field, f"{_SESSION_RULE}, and not '.' or '..' (no URL can carry "
                           f"those); got {session!r}")
    if not isinstance(session, str) or not _SESSION_RE.fullmatch(session):
        if isinstance(session, str) and 0 < len(session) <= 128:
            pos = next(i for i, c in enumerate(session) if not _SESSION_RE.fullmatch(c))
            char = session[pos]
            shown_char = repr(char) if char.isprintable() else ascii(char)
            raise InvalidInput(field, f"{_SESSION_RULE}; character {shown_char} "
                               f"(U+{ord(char):04X}) at position {pos} is not allowed")
        shown = repr(session) if not isinstance(session, str) or len(session) < 60 else \
            repr(session[:60] + "…")
        raise InvalidInput(field, f"{_SESSION_RULE}; got {shown}")
    return session


def check_tenant(tenant: object, field: str = "tenant") -> str:
    """The tenant name if valid: 1-128 characters of ``[A-Za-z0-9._:@/-]`` (ASCII only)."""
    if not isinstance(tenant, str) or not _TENANT_RE.fullmatch(tenant):
        shown = repr(tenant) if not isinstance(tenant, str) or len(tenant) < 60 else \
            repr(tenant[:60] + "…")
        raise InvalidInput(field, f"{_TENANT_RULE}; got {shown}")
    return tenant


def check_span(value: object, default: int, field: str) -> int:
    """How many neighbours to read on one side of a message: 0 to 50, ``None`` for
    ``default``."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 50:
        raise InvalidInput(field, f"must be an integer from 0 to 50; got {value!r}")
    return value


def too_long(length: int, max_chars: int) -> str:
    """Why a message of ``length`` characters is refused (the server says it in the same
    words when it refuses one as too large)."""
    return (f"is {length:,} characters; at most {max_chars:,} are allowed "
            "(max_content_chars), nothing is truncated")


def is_temp(session: str) -> bool:
    """Scratch sessions: never summarised, hidden from listings, purged when idle."""
    return session.startswith(TEMP_PREFIX)


def check_message_id(value: object, field: str = "id") -> int:
    # Past 2**63 - 1 no id can exist, and the database could not even compare it.
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_AT:
        raise InvalidInput(field, f"must be a positive integer message id, got {value!r}")
    return value


def text_of(content: object, field: str = "content") -> str:
    """Content as text: a string, or multimodal parts of which the text parts are kept."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for i, part in enumerate(content):
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                texts.append(cast(str, part["text"]))
            elif not isinstance(part, Mapping):
                raise InvalidInput(f"{field}[{i}]", "content parts must be strings or objects")
        return "\n".join(texts)
    raise InvalidInput(field, f"must be text (or a list of content parts), got "
                       f"{type(content).__name__}")


def draft(role: object, content: object, *, sender: object = None, at: object = None,
          meta: object = None, key: object = None, now: int, max_chars: int,
          prefix: str = "", at_field: str = "at") -> Draft:
    """A validated ``Draft``; ``prefix`` (e.g. ``"items[3]."``) goes before field names, and
    ``at_field`` names the time field in errors (``sendAt`` in a history array)."""
    if role not in ROLES:
        raise InvalidInput(prefix + "role", f"must be one of {', '.join(ROLES)}; got {role!r} "
                           "(system prompts and tool calls are not conversation memory)")
    text = content if type(content) is str else text_of(content, prefix + "content")
    if not text or text.isspace():
        raise InvalidInput(prefix + "content", "must not be empty")
    if len(text) > max_chars:
        raise InvalidInput(prefix + "content", too_long(len(text), max_chars))
    if "\x00" in text:
        check_stored_text(text, prefix + "content")
    size = len(text) if text.isascii() else _utf8_size(text, prefix + "content")
    if sender is not None:
        if not isinstance(sender, str) or not sender or sender.isspace() \
                or len(sender) > _MAX_SENDER:
            raise InvalidInput(prefix + "sender", f"must be a non-empty string of at most "
                               f"{_MAX_SENDER} characters, or omitted")
        check_stored_text(sender, prefix + "sender")
    if at is None:
        at_ns = now
    elif (type(at) is not int and (isinstance(at, bool) or not isinstance(at, int))) \
            or not 0 <= at <= MAX_AT:
        raise InvalidInput(prefix + at_field, f"must be UTC Unix time in nanoseconds (an "
                           f"integer 0..2^63-1), got {at!r}")
    elif at > now + MAX_FUTURE_SKEW_NS:
        raise InvalidInput(prefix + at_field, f"is {_span(at - now)} ahead of the memory's "
                           f"clock; at most {MAX_FUTURE_SKEW_NS // 60_000_000_000} minutes into "
                           f"the future are allowed (clock skew; {at_field} is UTC Unix "
                           "nanoseconds)")
    else:
        at_ns = at
    if key is not None and (not isinstance(key, str) or not key or len(key) > _MAX_KEY):
        raise InvalidInput(prefix + "key", f"must be a non-empty string of at most {_MAX_KEY} "
                           "characters, or omitted")
    if key is not None:
        # NUL is refused here as in all stored text (and SQLite's JSON functions cut text at
        # it, so such a key could not be looked up).
        check_stored_text(key, prefix + "key")
    meta_json = _meta_json(meta, prefix + "meta") if meta is not None else None
    return new_draft(role, text, at_ns, sender, meta_json, key, size)


# Every field was checked above, so the draft's slots are filled directly: the generated
# __init__ of a frozen dataclass costs about as much as the rest of a short message's checks,
# and add_many builds one per message.
_ROLE, _CONTENT, _AT, _SENDER, _META_JSON, _KEY, _SIZE = (
    Draft.__dict__[name].__set__
    for name in ("role", "content", "at", "sender", "meta_json", "key", "size"))
_new = object.__new__


def new_draft(role: Role, content: str, at: int, sender: str | None, meta_json: str | None,
              key: str | None, size: int) -> Draft:
    """A ``Draft`` of values already checked (no checks: they were made by ``draft``)."""
    d: Draft = _new(Draft)
    _ROLE(d, role)
    _CONTENT(d, content)
    _AT(d, at)
    _SENDER(d, sender)
    _META_JSON(d, meta_json)
    _KEY(d, key)
    _SIZE(d, size)
    return d


def _utf8_size(text: str, field: str) -> int:
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        check_unicode(text, field)
        raise


def _span(ns: int) -> str:
    """A duration for an error message: minutes, hours or days."""
    minutes = ns / 60e9
    if minutes < 120:
        return f"{minutes:.1f} minutes"
    if minutes < 48 * 60:
        return f"{minutes / 60:.1f} hours"
    return f"{minutes / 1440:,.0f} days"


def _meta_json(meta: object, field: str) -> str | None:
    if meta is None:
        return None
    if not isinstance(meta, Mapping):
        raise InvalidInput(field, f"must be a JSON object (dict), got {type(meta).__name__}")
    check_json_text(dict(meta), field)
    try:
        text = json.dumps(dict(meta), ensure_ascii=False, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(field, f"must be JSON-serialisable: {exc}") from exc
    if len(text.encode("utf-8")) > _MAX_META_BYTES:
        raise InvalidInput(field, f"is larger than {_MAX_META_BYTES:,} bytes of JSON")
    return text


_ITEM_FIELDS = frozenset({"role", "content", "sender", "at", "meta", "key"})


def draft_item(i: int, item: object, *, now: int, max_chars: int) -> Draft:
    """Item ``i`` of an ``add_many`` call (a mapping of message fields) as a Draft."""
    if type(item) is not dict and not isinstance(item, Mapping):
        raise InvalidInput(f"items[{i}]", "must be a mapping with role and content")
    if not _ITEM_FIELDS.issuperset(item):
        unknown = sorted(set(item) - _ITEM_FIELDS, key=str)
        raise InvalidInput(f"items[{i}].{unknown[0]}", "unknown field; allowed: role, "
                           "content, sender, at, meta, key")
    try:
        return draft(item.get("role"), item.get("content"), sender=item.get("sender"),
                     at=item.get("at"), meta=item.get("meta"), key=item.get("key"), now=now,
                     max_chars=max_chars)
    except InvalidInput as exc:
        # The item's position is named only when something is wrong: building the prefix for
        # every item of a large batch costs more than the rest of a short message's checks.
        raise InvalidInput(f"items[{i}].{exc.field}", exc.reason) from None


_RECORD_FIELDS = frozenset({"type", "role", "content", "sender", "at", "meta", "key", "id",
                            "session"})


def draft_from_record(record: Mapping[str, Any], *, now: int, max_chars: int,
                      prefix: str) -> Draft:
    """A message record of the JSONL format (``{"type": "message", …}``) as a Draft."""
    unknown = sorted(set(record) - _RECORD_FIELDS)
    if unknown:
        raise InvalidInput(prefix + unknown[0], "unknown field; a message record has "
                           "role, content, sender, at, meta, key")
    at = record.get("at")
    if isinstance(at, float) and math.isfinite(at) and at.is_integer():
        at = int(at)
    return draft(record.get("role"), record.get("content"), sender=record.get("sender"),
                 at=at, meta=record.get("meta"), key=record.get("key"), now=now,
                 max_chars=max_chars, prefix=prefix)
