"""Framework records (Agents SDK items, LlamaIndex chat messages) as memstrata messages.

A record is stored as one message or, when it is large, as a run of consecutive messages
written in one ``add_many`` (so all of a record's parts are committed together). Each part's
``content`` is a piece of the record's readable text, which is what memstrata's search,
window and summaries see; its ``meta`` carries a piece of the record's exact JSON, which is
what the adapter reads back. The JSON is the truth: the text is derived and only for people
and search, so a record comes back exactly as it went in, whatever its size or type.

Parts carry ``{tag: {"p": index, "n": count, "j": json piece, ...extra}}`` in their meta;
the tag names the adapter, so a session can also hold ordinary messages written by other
code (they come back with ``tag`` absent and are converted by the adapter).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..types import Message

__all__ = ["Stored", "decode", "decode_damaged", "encode"]

# memstrata refuses meta above 64 KiB of UTF-8 JSON. Re-encoded inside meta, a character of
# the record's JSON costs at most 4 bytes (an astral character; a quote or backslash costs
# 2), so this many characters always fit, with room for the part's other fields.
_JSON_PIECE = 15_000
# Content that is only whitespace is refused; a part whose share of the text is empty (a
# large image or encrypted reasoning with little text) shows this instead.
_FILLER = "…"


@dataclass(frozen=True, slots=True)
class Stored:
    """A record read back: its JSON value, the ids of its parts (oldest first) and the meta
    fields beside the JSON (``extra``); ``value`` is ``None`` for a foreign message."""

    value: Any
    ids: tuple[int, ...]
    extra: dict[str, Any]
    message: Message

    @property
    def id(self) -> int:
        """The record's id: that of its first part."""
        return self.ids[0]


def encode(value: Any, text: str, *, role: str, tag: str, max_chars: int,
           sender: str | None = None, at: int | None = None,
           extra: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """``add_many`` items storing one JSON-serialisable record, in as many parts as its text
    (at most ``max_chars`` a part) and its JSON need."""
    blob = json.dumps(value, ensure_ascii=False, allow_nan=False)
    # memstrata stores no NUL in text; the record's JSON (which keeps it, escaped) is the truth,
    # so the readable text shows U+FFFD in its place.
    text = text.replace("\x00", "\ufffd")
    count = max(1, math.ceil(len(blob) / _JSON_PIECE), math.ceil(len(text) / max_chars))
    # The text fills the first parts (words stay whole for search where they can); the JSON
    # is spread evenly.
    texts = _cut(text, count, max_chars)
    pieces = _cut(blob, count, math.ceil(len(blob) / count))
    items: list[dict[str, Any]] = []
    for i in range(count):
        part: dict[str, Any] = {"p": i, "n": count, "j": pieces[i]}
        if i == 0 and extra:
            part.update(extra)
        item: dict[str, Any] = {"role": role, "content": texts[i] if texts[i].strip()
                                else _FILLER, "meta": {tag: part}}
        if sender is not None:
            item["sender"] = sender
        if at is not None:
            item["at"] = at
        items.append(item)
    return items


def _cut(text: str, count: int, size: int) -> list[str]:
    """``text`` in ``count`` consecutive pieces of at most ``size`` characters (the last
    ones empty when it runs out)."""
    size = max(1, size)
    return [text[i * size:(i + 1) * size] for i in range(count)]


def decode(messages: Iterable[Message], tag: str) -> list[Stored]:
    """The records held by ``messages`` (oldest first). A record whose parts are not all
    there (a removal that stopped halfway) is left out; a message without the tag comes
    back on its own with ``value=None``."""
    return decode_damaged(messages, tag)[0]


def decode_damaged(messages: Iterable[Message], tag: str) -> tuple[list[Stored], list[int]]:
    """:func:`decode`'s records, and the ids of the tagged messages left out as damaged
    (oldest first): parts whose record lacks a part (or begins before ``messages``), and
    parts whose joined JSON does not parse."""
    out: list[Stored] = []
    damaged: list[int] = []
    run: list[Message] = []
    for m in messages:
        part = _part(m, tag)
        if part is None:
            damaged.extend(r.id for r in run)
            run = []
            out.append(Stored(None, (m.id,), {}, m))
            continue
        if part["p"] == 0:
            damaged.extend(r.id for r in run)
            run = [m]
        elif run and part["p"] == len(run):
            run.append(m)
        else:
            damaged.extend(r.id for r in run)
            damaged.append(m.id)  # a part whose predecessor is gone
            run = []
            continue
        if len(run) == part["n"]:
            stored = _join(run, tag)
            if stored is not None:
                out.append(stored)
            else:
                damaged.extend(r.id for r in run)
            run = []
    damaged.extend(r.id for r in run)
    return out, damaged


def _part(m: Message, tag: str) -> dict[str, Any] | None:
    part = (m.meta or {}).get(tag)
    if not isinstance(part, dict) or not isinstance(part.get("p"), int) \
            or not isinstance(part.get("n"), int) or not isinstance(part.get("j"), str):
        return None
    return part


def _join(run: Sequence[Message], tag: str) -> Stored | None:
    parts = [_part(m, tag) for m in run]
    blob = "".join(p["j"] for p in parts if p is not None)
    try:
        value = json.loads(blob)
    except ValueError:
        return None  # not ours after all; leave it out as a damaged row would be
    first = parts[0] or {}
    extra = {k: v for k, v in first.items() if k not in ("p", "n", "j")}
    return Stored(value, tuple(m.id for m in run), extra, run[0])
