"""What both backends do the same way with error records (pure: no SQL, no connection).

The values an insert writes, an embedding as stored bytes, the semantic pass's ranking over
the tenant's stored embeddings, and how the keyword hits join the semantic ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..types import ErrorQuery, ErrorRecord, Vectors

__all__ = ["FLOAT32_LE", "error_params", "join_keyword", "query_params", "rank_by_vector",
           "vector_blob"]

FLOAT32_LE = np.dtype("<f4")
"""How embeddings are stored: little-endian float32, row after row."""


def vector_blob(vector: Vectors) -> bytes:
    """An embedding as the bytes the stores keep."""
    return np.ascontiguousarray(vector, dtype=FLOAT32_LE).reshape(-1).tobytes()


def error_params(tenant: str, record: ErrorRecord, search_text: str, vector: Vectors | None,
                 model_id: str | None) -> dict[str, Any]:
    """The named values of an error record's insert; the embedding is kept only with the
    model that made it."""
    embedded = vector is not None and model_id is not None
    return {
        "tenant": tenant, "id": record.id, "tool_name": record.tool_name,
        "keywords": json.dumps(list(record.keywords), ensure_ascii=False),
        "symptom": record.symptom, "cause": record.cause, "action": record.action,
        "outcome": record.outcome, "created_at": record.created_at,
        "expires_at": record.expires_at, "hits": record.hits, "search_text": search_text,
        "embedding": vector_blob(vector) if embedded and vector is not None else None,
        "embed_model": model_id if embedded else None,
        "embed_dim": int(vector.shape[-1]) if embedded and vector is not None else None,
    }


def query_params(q: ErrorQuery) -> dict[str, Any]:
    """The named values every statement of a search shares."""
    dim = int(q.vector.shape[-1]) if q.vector is not None else None
    return {"tenant": q.tenant, "now": q.now, "tool": q.tool, "model": q.model_id, "dim": dim}


def rank_by_vector(rows: Sequence[tuple[Any, Any]], q: ErrorQuery) -> list[int]:
    """The seqs of ``rows`` (seq, stored embedding) reaching the query's similarity, best
    first; among equal scores the newer record (larger seq) first."""
    assert q.vector is not None
    if not rows:
        return []
    seqs = np.array([int(r[0]) for r in rows], dtype=np.int64)
    matrix = np.frombuffer(b"".join(bytes(r[1]) for r in rows), dtype=FLOAT32_LE).reshape(
        len(rows), -1)
    scores = matrix @ q.vector.astype(np.float32)
    passing = np.flatnonzero(scores >= q.min_similarity)
    order = sorted(passing, key=lambda i: (-float(scores[i]), -int(seqs[i])))
    return [int(seqs[i]) for i in order[:q.limit]]


def join_keyword(chosen: list[int], keyword: Iterable[int], limit: int) -> list[int]:
    """The semantic hits, then keyword hits not among them, up to ``limit``."""
    for seq in keyword:
        if len(chosen) >= limit:
            break
        if seq not in chosen:
            chosen.append(seq)
    return chosen
