"""The messages an append returns, made from the drafts it stored (both backends).

The values were validated on the way in and the store just wrote them, so the slots of each
frozen ``Message`` are filled directly: no per-field checks of a generated ``__init__`` and
no type tests of a row read back from disk. ``add_many`` returns one per message, which made
this one of the larger Python costs of a write.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from ..types import Draft, Message

__all__ = ["MESSAGE_SLOTS", "stored_messages"]

MESSAGE_SLOTS = tuple(Message.__dict__[name].__set__
                      for name in ("id", "session", "role", "content", "sender", "at", "meta"))
"""The setters of ``Message``'s slots, in that order, for the backends that build messages
by filling them (a frozen dataclass's generated ``__init__`` checks every field)."""
_ID, _SESSION, _ROLE, _CONTENT, _SENDER, _AT, _META = MESSAGE_SLOTS
_new = object.__new__


def stored_messages(ids: Iterable[int], session: str, drafts: Sequence[Draft]) -> list[Message]:
    """One message per draft, with the id it was stored under (``ids`` in draft order)."""
    out: list[Message] = []
    add = out.append
    for mid, d in zip(ids, drafts, strict=True):
        m: Message = _new(Message)
        _ID(m, mid)
        _SESSION(m, session)
        _ROLE(m, d.role)
        _CONTENT(m, d.content)
        _SENDER(m, d.sender)
        _AT(m, d.at)
        _META(m, None if d.meta_json is None else json.loads(d.meta_json))
        add(m)
    return out
