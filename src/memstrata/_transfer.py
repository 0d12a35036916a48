"""Import and export of sessions: memstrata's JSONL records and the Go runtime's history array.

Everything is validated before anything is written; an error names the line (JSONL, 1-based)
or the index (history array) and the field. An import is one transaction: all or nothing.

Every exported message carries an idempotency ``key`` (the one it was stored with, else one
derived from the message and its id), and every imported message is stored under a key (the
record's, else one derived from the record), so importing the same file twice stores each
message once. A message written without a key is recognised by its derived key too: importing
an export back into the session it came from (a restored backup) adds nothing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from array import array
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._compaction import CompactionPolicy
from ._ingest import draft, draft_from_record, new_draft
from ._packed import PackedDrafts, PackedInts
from .errors import InvalidInput
from .store import MessageStore
from .text import check_json_text
from .types import Draft, Summary

__all__ = ["ParsedImport", "Transfer", "derived_key", "parse_history", "parse_records"]

_EXPORT_BATCH = 1000


class Transfer:
    """Moves whole sessions in and out of a store, for one ``Memory``."""

    def __init__(self, store: MessageStore, *, max_chars: int, policy: CompactionPolicy,
                 clock: Callable[[], int]) -> None:
        self._store = store
        self._max_chars = max_chars
        self._policy = policy
        self._clock = clock

    async def export(self, tenant: str, session: str) -> AsyncIterator[dict[str, Any]]:
        """The session's messages (oldest first, read in batches), then its summary."""
        cursor: int | None = None
        while True:
            batch = await self._store.after_cursor(tenant, session, cursor,
                                                   limit=_EXPORT_BATCH)
            keys = await self._store.keys(tenant, [m.id for m in batch]) if batch else {}
            for m in batch:
                key = keys.get(m.id) or derived_key(m.role, m.content, m.sender, m.at,
                                                    f"id:{m.id}")
                yield {"type": "message", "id": m.id, "role": m.role, "content": m.content,
                       "sender": m.sender, "at": m.at, "meta": m.meta, "key": key}
            if len(batch) < _EXPORT_BATCH:
                break
            cursor = batch[-1].id
        summary = await self._store.get_summary(tenant, session)
        if summary is not None:
            yield {"type": "summary", "kind": summary.kind, "body": summary.body,
                   "cursor": summary.cursor, "created_at": summary.created_at}

    async def import_records(self, tenant: str, session: str, records: Iterable[Any], *,
                             index: bool) -> int:
        """Exported records into ``session``; returns the number of messages added (those
        whose key the session already holds are not added again)."""
        now = self._clock()
        # Off the event loop: a large import takes seconds to validate, and the records may
        # be read from a stream as they are parsed (only the drafts are kept).
        parsed = await asyncio.to_thread(parse_records, session, records, now=now,
                                         max_chars=self._max_chars)
        newest = await self._newest(tenant, session)
        here = await self._already_here(tenant, session, parsed)
        drafts = parsed.drafts.without(here) if here else parsed.drafts
        resolve = parsed.summary_for()

        def summary_for(stored: list[int]) -> Summary | None:
            # The message ids of every record, in file order: those already here, then the
            # rest.
            rest = iter(stored)
            return resolve([here[i] if i in here else next(rest)
                            for i in range(len(parsed.drafts))])

        ids = await self._store.import_session(
            tenant, session, drafts, summary_for, now=now, policy=self._policy, index=index)
        return await asyncio.to_thread(_added, ids, newest)  # a pass per message

    async def _already_here(self, tenant: str, session: str,
                            parsed: ParsedImport) -> dict[int, int]:
        """The records (by position, with the message's id) that are messages this session
        already holds without a key: their key is the one ``export`` derives from the message
        and its id, and the message under that id says the same thing. Their key was never
        stored, so the store alone would take them for new messages."""
        # Off the event loop: a hash per record of a large import.
        wanted = await asyncio.to_thread(_exported_here, parsed)
        if not wanted:
            return {}
        found: dict[int, int] = {}
        cursor, top = min(wanted) - 1, max(wanted)
        while True:
            batch = await self._store.after_cursor(tenant, session, cursor, top,
                                                   limit=_EXPORT_BATCH)
            keyed = await self._store.keys(tenant, [m.id for m in batch]) if batch else {}
            for m in batch:
                i = wanted.get(m.id, -1)
                if i < 0 or m.id in keyed:
                    continue
                d = parsed.drafts[i]
                if (m.role, m.content, m.sender, m.at) == (d.role, d.content, d.sender, d.at):
                    found[i] = m.id
            if len(batch) < _EXPORT_BATCH:
                return found
            cursor = batch[-1].id

    async def import_history(self, tenant: str, session: str, history: Any, *,
                             index: bool) -> int:
        """A Go runtime history array into ``session``; returns the number of messages added."""
        now = self._clock()
        drafts = await asyncio.to_thread(parse_history, history, now=now,
                                         max_chars=self._max_chars)
        newest = await self._newest(tenant, session)
        ids = await self._store.import_session(tenant, session, drafts, None, now=now,
                                               policy=self._policy, index=index)
        return await asyncio.to_thread(_added, ids, newest)  # a pass per message

    async def _newest(self, tenant: str, session: str) -> int:
        last = await self._store.recent(tenant, session, 1)
        return last[0].id if last else 0


def _exported_here(parsed: ParsedImport) -> dict[int, int]:
    """The old id → position of each record whose key is the one ``export`` derives from it
    (a message of this database exported without a key of its own)."""
    wanted: dict[int, int] = {}
    for i, old in parsed.old_ids.present():
        d = parsed.drafts[i]
        if d.key == derived_key(d.role, d.content, d.sender, d.at, f"id:{old}"):
            wanted[old] = i
    return wanted


def _added(ids: list[int], newest: int) -> int:
    """How many of an import's messages are new: a message already stored under its key has
    an id no larger than the session's newest before the import (ids only grow)."""
    return len({i for i in ids if i > newest})


def derived_key(role: str, content: str, sender: str | None, at: int | None,
                discriminator: str) -> str:
    """An idempotency key for a message that has none: a hash of what it says, who said it,
    when, and ``discriminator`` (its id in the exporting database, or its occurrence number in
    the file), so two equal messages of one session keep two keys."""
    text = json.dumps([role, content, sender, at, discriminator], ensure_ascii=False)
    return "x:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class _Occurrences:
    """Numbers records that have neither a key nor an id by how often the same message came
    before them in the file, so the derived keys are the same on every import of it.

    Each such record is first given the key of a first occurrence (``n:1``), and
    ``renumber`` gives the later occurrences theirs once the file is read. Two records say
    the same message exactly when their first-occurrence keys are equal (a hash of the
    message: 128 bits, as every derived key), so what is kept meanwhile is the record's
    position and 64 bits of that key, not the message: the messages of a large import are
    held once, packed, and not a second time here."""

    def __init__(self) -> None:
        self._places = array("q")   # 2 * position in the drafts, + 1 when it had no time
        self._prefixes = array("Q")  # the first 64 bits of its first-occurrence key

    def key(self, d: Draft, at: int | None, ident: object, position: int) -> str:
        if isinstance(ident, int) and not isinstance(ident, bool):
            return derived_key(d.role, d.content, d.sender, at, f"id:{ident}")
        first = derived_key(d.role, d.content, d.sender, at, "n:1")
        self._places.append(2 * position + (at is None))
        self._prefixes.append(int(first[2:18], 16))
        return first

    def renumber(self, drafts: PackedDrafts) -> None:
        """Give the second and later occurrences of a message in ``drafts`` their keys."""
        if len(self._prefixes) < 2:
            return
        prefixes = np.frombuffer(self._prefixes, dtype=np.uint64)
        order = np.argsort(prefixes, kind="stable")  # equal ones together, in file order
        ranked = prefixes[order]
        equal = ranked[1:] == ranked[:-1]
        if not equal.any():
            return
        shared = np.zeros(len(ranked), dtype=np.bool_)
        shared[1:] |= equal
        shared[:-1] |= equal
        seen: dict[str, int] = {}
        for j in order[shared].tolist():
            position, no_time = divmod(self._places[j], 2)
            d = drafts[position]
            assert d.key is not None
            n = seen.get(d.key, 0) + 1
            seen[d.key] = n
            if n > 1:
                drafts.replace_key(position, derived_key(
                    d.role, d.content, d.sender, None if no_time else d.at, f"n:{n}"))


def _with_key(d: Draft, key: str) -> Draft:
    return new_draft(d.role, d.content, d.at, d.sender, d.meta_json, key, d.size)


_SUMMARY_FIELDS = frozenset({"type", "kind", "body", "cursor", "created_at", "session",
                             "tokens_in", "tokens_out"})
_LLM_KEYS = ("key_decisions", "past_discussions", "current_discussion")


@dataclass(kw_only=True)
class ParsedImport:
    drafts: PackedDrafts = field(default_factory=PackedDrafts)
    old_ids: PackedInts = field(default_factory=PackedInts)
    """The id each message record carried (``None``: none, or not an integer)."""
    summary: Summary | None = None

    def summary_for(self) -> Callable[[list[int]], Summary | None]:
        """Resolve the summary's cursor (an id of the exporting database) to the new ids
        (given the id of each message record's message, in file order)."""
        def resolve(ids: list[int]) -> Summary | None:
            s = self.summary
            if s is None:
                return None
            cursor: int | None = None
            if s.cursor is not None:
                for i, old in self.old_ids.present():
                    if i < len(ids) and old <= s.cursor:
                        cursor = ids[i]
            return Summary(session=s.session, kind=s.kind, body=s.body, cursor=cursor,
                           created_at=s.created_at, tokens_in=s.tokens_in,
                           tokens_out=s.tokens_out)
        return resolve


def _line_record(item: Any, where: str) -> Mapping[str, Any] | None:
    if isinstance(item, str | bytes):
        try:
            text = item.decode("utf-8") if isinstance(item, bytes) else item
        except UnicodeDecodeError as exc:
            raise InvalidInput(where, f"is not UTF-8 text (byte {exc.start})") from exc
        if not text.strip():
            return None
        try:
            item = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(where, f"is not valid JSON ({exc.msg} at column "
                               f"{exc.colno})") from exc
    if not isinstance(item, Mapping):
        raise InvalidInput(where, "must be a JSON object with a \"type\" of message or summary")
    return item


def _without_bom(item: Any) -> Any:
    """A file's first line without the byte-order mark some editors write (UTF-8 BOM)."""
    if isinstance(item, bytes) and item.startswith(b"\xef\xbb\xbf"):
        return item[3:]
    if isinstance(item, str) and item.startswith("\ufeff"):
        return item[1:]
    return item


def parse_records(session: str, records: Iterable[Any], *, now: int,
                  max_chars: int) -> ParsedImport:
    """Validate exported records (dicts or JSON lines); at most one summary record."""
    out = ParsedImport()
    occurrences = _Occurrences()
    for number, item in enumerate(records, start=1):
        where = f"line {number}"
        if number == 1:
            item = _without_bom(item)
        record = _line_record(item, where)
        if record is None:
            continue
        kind = record.get("type")
        if kind == "message":
            d = draft_from_record(record, now=now, max_chars=max_chars, prefix=f"{where}: ")
            if d.key is None:
                at = d.at if record.get("at") is not None else None
                d = _with_key(d, occurrences.key(d, at, record.get("id"), len(out.drafts)))
            out.drafts.append(d)
            old = record.get("id")
            out.old_ids.append(old if isinstance(old, int) and not isinstance(old, bool)
                               else None)
        elif kind == "summary":
            if out.summary is not None:
                raise InvalidInput(where, "a second summary record; a session has one summary")
            out.summary = _summary(session, record, now, where)
        else:
            raise InvalidInput(f"{where}: type", f"must be 'message' or 'summary'; got {kind!r}")
    occurrences.renumber(out.drafts)
    return out


def _summary(session: str, record: Mapping[str, Any], now: int, where: str) -> Summary:
    unknown = sorted(set(record) - _SUMMARY_FIELDS)
    if unknown:
        raise InvalidInput(f"{where}: {unknown[0]}", "unknown field; a summary record has "
                           "kind, body, cursor, created_at")
    kind = record.get("kind", "llm")
    if kind not in ("llm", "digest"):
        raise InvalidInput(f"{where}: kind", f"must be 'llm' or 'digest'; got {kind!r}")
    body = record.get("body")
    if not isinstance(body, Mapping):
        raise InvalidInput(f"{where}: body", "must be a JSON object")
    check_json_text(dict(body), f"{where}: body")
    if kind == "llm" and sum(k in body for k in _LLM_KEYS) < 2:
        raise InvalidInput(f"{where}: body", "a summary needs at least two of "
                           f"{', '.join(_LLM_KEYS)}")
    if kind == "digest" and not isinstance(body.get("text"), str):
        raise InvalidInput(f"{where}: body", "a digest body is {\"text\": string}")
    ints: dict[str, int | None] = {}
    for name in ("cursor", "created_at", "tokens_in", "tokens_out"):
        value = record.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 0):
            raise InvalidInput(f"{where}: {name}", "must be a non-negative integer or null")
        ints[name] = value
    return Summary(session=session, kind=kind, body=dict(body), cursor=ints["cursor"],
                   created_at=ints["created_at"] or now, tokens_in=ints["tokens_in"] or 0,
                   tokens_out=ints["tokens_out"] or 0)


def parse_history(history: Any, *, now: int, max_chars: int) -> PackedDrafts:
    """Validate the Go runtime's history array ``[{role, content, sendAt, sender}]``.

    Entries of other roles (system prompts, tool calls and results) are skipped, as they are
    not conversation memory; ``sendAt`` is UTC Unix nanoseconds.
    """
    if isinstance(history, str | bytes):
        try:
            history = json.loads(_without_bom(history))
        except json.JSONDecodeError as exc:
            raise InvalidInput("history", f"is not valid JSON ({exc.msg} at line {exc.lineno}"
                               f", column {exc.colno})") from exc
    if not isinstance(history, list):
        raise InvalidInput("history", "must be a JSON array of {role, content, sendAt, sender}")
    drafts = PackedDrafts()
    occurrences = _Occurrences()
    for index, item in enumerate(history):
        where = f"history[{index}]"
        if not isinstance(item, Mapping):
            raise InvalidInput(where, "must be an object with role and content")
        role = item.get("role")
        if role in ("system", "tool", "function"):
            continue
        at = item.get("sendAt")
        if at is not None and (isinstance(at, bool) or not isinstance(at, int) or at < 0):
            raise InvalidInput(f"{where}.sendAt", f"must be UTC Unix time in nanoseconds (a "
                               f"non-negative integer), got {at!r}")
        d = draft(role, item.get("content"), sender=item.get("sender") or None,
                  at=at or None, now=now, max_chars=max_chars, prefix=f"{where}.",
                  at_field="sendAt")
        drafts.append(_with_key(d, occurrences.key(d, at or None, None, len(drafts))))
    occurrences.renumber(drafts)
    return drafts
