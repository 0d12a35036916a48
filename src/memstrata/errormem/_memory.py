"""Error memory: how tool failures were handled, shared by every session of a tenant.

An agent that hit an error and found a way around it writes an :class:`ErrorRecord`; later,
in any session, a similar failure finds the record again (``search`` or ``hint``) so the agent
does not rediscover the fix. Records live ``error_ttl_days`` (90 by default); every time one is
returned by ``search`` or ``hint`` it counts as a *hit* and its expiry moves to ``error_ttl_days``
from that moment, so records that keep helping stay and stale ones are swept.

Search is semantic first when an embedder is configured: a record is a semantic hit when the
cosine of its stored embedding and the query's is at least ``error_min_similarity``. When no
record passes, a keyword search (FTS5 over tool name, keywords, symptom, cause and action, plus a
substring scan) runs instead. Records the semantic pass cannot judge (stored without a vector
because the embedder failed, or embedded by another model) are found by keywords as well.

``read``, ``list`` and ``delete`` are bookkeeping, not use: they neither count as hits nor renew.
"""

from __future__ import annotations

import builtins
import logging
import secrets
from collections.abc import Callable, Sequence

import numpy as np

from ..config import Settings
from ..errors import InvalidInput
from ..providers import Embedder
from ..store import ErrorStore
from ..text import bigram_text, fts_match_expression, query_terms
from ..types import OUTCOMES, ErrorQuery, ErrorRecord, Vectors
from ._checks import (
    ID_LEN,
    ID_PREFIX_MIN,
    check_error_text,
    check_limit,
    check_prefix,
    check_query_text,
    check_tool_name,
    record_fields,
)

__all__ = ["ID_PREFIX_MIN", "ErrorMemory"]

log = logging.getLogger(__name__)

_NS_PER_DAY = 86_400 * 10**9
# How many matches an ambiguous prefix lists (one more is fetched to say "and more").
_AMBIGUOUS_SHOWN = 5


class ErrorMemory:
    """The error memory of one tenant. Built by the facade; use it as ``mem.errors``."""

    def __init__(self, store: ErrorStore, *, tenant: str, settings: Settings,
                 embedder: Embedder | None, clock: Callable[[], int]) -> None:
        self._store = store
        self.tenant = tenant
        self.settings = settings
        self._embedder = embedder
        self._clock = clock

    # -- writes ----------------------------------------------------------------------------

    async def write(self, *, tool_name: str, keywords: Sequence[str], symptom: str,
                    action: str, cause: str | None = None,
                    outcome: str = "resolved") -> ErrorRecord:
        """Remember a tool error and what was done about it; searchable as soon as this returns.

        Raises ``InvalidInput`` (naming the field) and writes nothing when an argument is bad.
        """
        fields = record_fields(tool_name=tool_name, keywords=keywords, symptom=symptom,
                               action=action, cause=cause, outcome=outcome,
                               max_chars=self.settings.max_content_chars)
        now = self._clock()
        record = ErrorRecord(
            id=secrets.token_hex(ID_LEN // 2),
            tool_name=fields.tool_name,
            keywords=fields.keywords,
            symptom=fields.symptom,
            cause=fields.cause,
            action=fields.action,
            outcome=fields.outcome,
            created_at=now,
            expires_at=now + self._ttl(),
            hits=0,
        )
        vector = await self._embed(embedding_text(record))
        model_id = self._embedder.model_id if self._embedder is not None else None
        await self._store.insert(self.tenant, record, search_text=search_text(record),
                                 vector=vector, model_id=model_id if vector is not None else None)
        return record

    async def delete(self, id_or_prefix: str) -> bool:
        """Delete a record by id or unique prefix; ``False`` when none matches."""
        prefix = check_prefix(id_or_prefix)
        ids = await self._store.delete(self.tenant, prefix, now=self._clock(),
                                       limit=_AMBIGUOUS_SHOWN + 1)
        _check_unique(prefix, ids)
        return bool(ids)

    async def sweep(self) -> int:
        """Delete this tenant's expired records; returns how many were deleted."""
        return await self._store.sweep(self.tenant, now=self._clock())

    # -- reads -----------------------------------------------------------------------------

    async def search(self, keyword: str, *, tool: str | None = None,
                     limit: int | None = None) -> list[ErrorRecord]:
        """Records related to ``keyword`` (words, a phrase or an error message), best first.

        Each record returned is a hit: its ``hits`` grows by one and it expires
        ``error_ttl_days`` from now (the returned values already say so); on a full disk
        (SQLite) the records are found without counting the hit.
        """
        query = check_query_text(keyword)
        chosen_tool = None if tool is None else check_tool_name(tool, field="tool")
        n = self._limit(limit)
        vector = await self._embed(query)
        now = self._clock()
        return await self._store.search(ErrorQuery(
            tenant=self.tenant, needle=query,
            match=fts_match_expression(query_terms(query)),
            vector=vector,
            model_id=self._embedder.model_id if self._embedder is not None else None,
            min_similarity=self.settings.error_min_similarity,
            tool=chosen_tool, limit=n, now=now, renew_until=now + self._ttl()))

    async def read(self, id_or_prefix: str) -> ErrorRecord | None:
        """The record with this id or unique id prefix (8+ hex characters), or ``None``.

        Not a hit: reading does not renew the record (a model usually reads what a search,
        which did count, just showed it).
        """
        prefix = check_prefix(id_or_prefix)
        found = await self._store.by_prefix(self.tenant, prefix, now=self._clock(),
                                            limit=_AMBIGUOUS_SHOWN + 1)
        _check_unique(prefix, [r.id for r in found])
        return found[0] if found else None

    async def hint(self, tool_name: str, error_text: str) -> str:
        """What past records say about a failure of ``tool_name``, ready for a model to read
        right after the failed call; ``""`` when nothing relates.

        Records of the same tool are preferred; other tools' records are looked at only when
        the tool has none that relate. Returned records count as hits.
        """
        tool = check_tool_name(tool_name)
        text = check_error_text(error_text)
        if not text:
            return ""
        found = await self.search(text, tool=tool)
        if not found:
            found = await self.search(text)
        return format_hint(tool, found)

    # -- helpers ---------------------------------------------------------------------------

    def _ttl(self) -> int:
        return self.settings.error_ttl_days * _NS_PER_DAY

    def _limit(self, limit: int | None) -> int:
        return check_limit(limit, self.settings.error_limit, self.settings.error_limit_max)

    async def _embed(self, text: str) -> Vectors | None:
        """The text's vector, or ``None`` when there is no embedder or it failed.

        A failing embedder must not cost a record or a search: keyword search still works.
        """
        if self._embedder is None:
            return None
        try:
            vectors = await self._embedder.embed([text])
        except Exception as exc:  # any provider failure; the keyword path stands in
            log.warning("error memory: embedding failed, using keyword search: %s", exc)
            return None
        return np.asarray(vectors[0], dtype=np.float32)

    # Defined last: inside the class body below it, ``list`` names this method.
    async def list(self, *, tool: str | None = None) -> builtins.list[ErrorRecord]:
        """Every live record of the tenant (optionally of one tool), newest first. Not hits."""
        chosen_tool = None if tool is None else check_tool_name(tool, field="tool")
        return await self._store.all(self.tenant, tool=chosen_tool, now=self._clock())


# -- pure helpers ----------------------------------------------------------------------------


def embedding_text(record: ErrorRecord) -> str:
    """The text embedded for a record: tool, symptom and keywords.

    Measured with the local model: leaving cause and action out keeps a record's vector close
    to how a failure is described when it happens again, which is what queries look like.
    """
    keywords = f" ({', '.join(record.keywords)})" if record.keywords else ""
    return f"{record.tool_name}: {record.symptom}{keywords}"


def search_text(record: ErrorRecord) -> str:
    """The full-text indexed text: every field a keyword may be in, CJK runs as bigrams."""
    parts = [record.tool_name, " ".join(record.keywords), record.symptom, record.cause or "",
             record.action]
    return bigram_text("\n".join(p for p in parts if p))


def format_hint(tool_name: str, records: Sequence[ErrorRecord]) -> str:
    """Records as text for a model: resolved ones first, each with what was done and how it
    turned out. ``""`` for no records."""
    if not records:
        return ""
    rank = {outcome: i for i, outcome in enumerate(OUTCOMES)}
    ordered = sorted(records, key=lambda r: rank[r.outcome])  # stable: relevance kept within
    lines = [f"Error memory: {len(ordered)} past error(s) like this failure of {tool_name} "
             "(resolved ones first). Try what worked; avoid what failed."]
    for n, r in enumerate(ordered, 1):
        lines.append(f"{n}. [{r.outcome}] tool {r.tool_name}, id {r.id[:ID_PREFIX_MIN]}")
        lines.append(f"   symptom: {r.symptom}")
        if r.cause:
            lines.append(f"   cause: {r.cause}")
        lines.append(f"   action: {r.action}")
    return "\n".join(lines)


def _check_unique(prefix: str, ids: Sequence[str]) -> None:
    if len(ids) <= 1:
        return
    shown = ", ".join(ids[:_AMBIGUOUS_SHOWN]) + (", …" if len(ids) > _AMBIGUOUS_SHOWN else "")
    raise InvalidInput("id", f"prefix {prefix!r} matches several records ({shown}); give "
                       "more characters of the id")
