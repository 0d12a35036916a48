"""What the checks share: the check type, a fixed clock, message and vector builders, and
small readers that turn store answers into values a check can compare."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import numpy as np

from .._compaction import CompactionPolicy
from .._ingest import draft
from ..store import Store
from ..text import fts_match_expression, query_terms
from ..types import Claimed, Draft, Message, Vectors

__all__ = [
    "DIM",
    "MODEL",
    "OFF",
    "OTHER_MODEL",
    "T0",
    "Check",
    "blob",
    "claim",
    "embed",
    "keyword_ids",
    "msg",
    "pairs",
    "turns",
    "unit",
    "vector_count",
    "vector_of",
]

Check = Callable[[Store], Awaitable[None]]

T0 = 1_700_000_000 * 10**9
"""The checks' "now": a fixed UTC time in nanoseconds, so no check depends on the clock."""

OFF = CompactionPolicy(by_bytes=False, by_turns=False)
"""No compaction: every message stays hot unless a check asks for a policy."""

DIM = 4
MODEL = "model-a"
OTHER_MODEL = "model-b"
# No check stores vectors of this model, so "vectors of another model than this" counts them all.
_NO_MODEL = "model-none"


def msg(role: str, content: str, at: int = T0, key: str | None = None,
        sender: str | None = None) -> Draft:
    """A validated draft, built the way the facade builds one."""
    return draft(role, content, sender=sender, at=at, key=key, now=at, max_chars=10_000)


def pairs(n: int, start: int = 0) -> list[Draft]:
    """``n`` alternating user/assistant drafts numbered from ``start``, one ns apart."""
    return [msg("user" if i % 2 == 0 else "assistant", f"message number {i}", T0 + i)
            for i in range(start, start + n)]


def turns(max_turns: int, keep_turns: int) -> CompactionPolicy:
    """The turns policy alone: at ``max_turns`` hot messages only ``keep_turns`` stay hot."""
    return CompactionPolicy(by_bytes=False, by_turns=True, max_turns=max_turns,
                            keep_turns=keep_turns)


async def keyword_ids(store: Store, tenant: str, session: str | None, query: str,
                      since: int | None = None) -> list[int]:
    """Ids of the keyword hits for ``query`` (sorted), built like the facade's search."""
    rows = await store.keyword(tenant, session, fts_match_expression(query_terms(query)), query,
                               since=since, limit=32)
    return sorted(r.message.id for r in rows)


# -- vectors ---------------------------------------------------------------------------------

def unit(*axes: int, dim: int = DIM) -> Vectors:
    """The unit vector along the sum of the given axes (float32, shape ``(dim,)``)."""
    v = np.zeros(dim, dtype=np.float32)
    v[list(axes)] = 1.0
    out: Vectors = (v / np.linalg.norm(v)).astype(np.float32)
    return out


def blob(v: Vectors) -> bytes:
    """A vector as the indexer hands it to ``put``: raw float32 bytes."""
    return np.ascontiguousarray(v, dtype=np.float32).tobytes()


async def claim(store: Store, worker: str, tenant: str | None = "t", *, limit: int = 100,
                now: int = T0, stale_before: int = T0 - 1) -> list[Claimed]:
    """``vectors.claim`` with defaults under which no claim is stale."""
    return await store.vectors.claim(worker, tenant=tenant, limit=limit, now=now,
                                     stale_before=stale_before)


def vector_of(message: Message) -> Vectors:
    """The vector a check stores for a message: a function of its id, so it can be checked."""
    return unit(message.id % DIM)


async def embed(store: Store, worker: str, tenant: str | None = "t", *, limit: int = 100,
                model: str = MODEL) -> list[int]:
    """Claim up to ``limit`` queued messages and store a vector for each; the ids stored."""
    claimed = await claim(store, worker, tenant, limit=limit)
    items = [(c.message.id, blob(vector_of(c.message))) for c in claimed]
    stored = await store.vectors.put(worker, model, DIM, items)
    assert stored == len(items), (stored, len(items))
    return [c.message.id for c in claimed]


async def vector_count(store: Store, tenant: str) -> int:
    """How many vectors the tenant has (of any model): none are of ``_NO_MODEL``."""
    return await store.vectors.other_model_count(tenant, _NO_MODEL)
