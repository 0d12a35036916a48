"""Features, labels and baseline rankings of every question of the retrieval sets.

Each conversation's messages are embedded the way the indexer embeds them (own text, and the
text after the message before it in its session), indexed with the package's own
``build_session_index``, and every question turned into one feature row per message of the
conversation by the package's own ``session_features``: what is trained here is what the
search computes. Embeddings are cached under ``--cache`` (outside the repository).
"""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from _sets import Conv

from memstrata.providers import Embedder
from memstrata.search._features import query_terms_of
from memstrata.search._fusion import (
    SessionIndex,
    build_session_index,
    embedding_keys,
    rank_session,
    session_features,
)
from memstrata.search._searcher import _merge
from memstrata.text import bigram_text, fts_match_expression, query_terms

__all__ = ["EmbedCache", "Query", "centre_of", "prepare"]

FloatArray = npt.NDArray[np.float32]


class EmbedCache:
    """Vectors of texts by one embedder, kept in one ``.npz`` file between runs.

    Each text is embedded alone: a model's vector of a text varies in its last bits with the
    other texts of its batch (their padding, the threads a batch runs on), so vectors made
    in batches would depend on the order the sets are read in, and training would not
    reproduce the shipped weights bit for bit. Alone, a text's vector is what a search's
    query embedding of the same text gives."""

    def __init__(self, embedder: Embedder, folder: Path, *, tag: str = "") -> None:
        self.embedder = embedder
        folder.mkdir(parents=True, exist_ok=True)
        name = embedder.model_id.replace(":", "_").replace("/", "_")
        # ``tag`` keeps apart vectors made under different BLAS kernels: they differ in
        # their last bits.
        self.path = folder / f"{name}-alone{'-' + tag if tag else ''}.npz"
        self._rows: dict[str, FloatArray] = {}
        if self.path.exists():
            with np.load(self.path) as data:
                for key, row in zip(data["keys"], data["vectors"], strict=True):
                    self._rows[str(key)] = row
        self._dirty = False

    @staticmethod
    def _key(text: str) -> str:
        return hashlib.sha1(text.encode("utf-8")).hexdigest()

    async def embed(self, texts: Sequence[str]) -> FloatArray:
        missing = list(dict.fromkeys(t for t in texts if self._key(t) not in self._rows))
        for done, text in enumerate(missing, start=1):
            vector = await self.embedder.embed([text])
            self._rows[self._key(text)] = np.asarray(vector[0], dtype=np.float32)
            self._dirty = True
            if done % 2000 == 0:
                self.save()  # a long first run keeps what it has embedded
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._rows[self._key(t)] for t in texts]).astype(np.float32)

    def save(self) -> None:
        if self._dirty:
            keys = np.asarray(list(self._rows))
            np.savez(self.path, keys=keys, vectors=np.stack(list(self._rows.values())))
            self._dirty = False


@dataclass
class Query:
    """One question (or off-topic query) over one conversation."""

    conv: int  # index into the conversation list
    set_name: str
    text: str
    kind: str
    evidence: frozenset[int]  # message positions; empty for an off-topic query
    off_topic: str = ""  # "" for a question; else the off-topic split ("train", "eval",
    # "near-train", "near-eval")
    hybrid: FloatArray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    semantic: FloatArray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    baselines: dict[str, list[int]] = field(default_factory=dict)
    """Rankings (message positions, best first) of the plain and old methods."""

    @property
    def labels(self) -> npt.NDArray[np.float32]:
        y = np.zeros(self.hybrid.shape[0], dtype=np.float32)
        if self.evidence:
            y[list(self.evidence)] = 1.0
        return y


def _tenant_index(conv: Conv, own: FloatArray, keyed: FloatArray) -> SessionIndex:
    """All the conversation's sessions side by side in one index (messages in order)."""
    codes: dict[str, int] = {}
    groups = [codes.setdefault(m.session, len(codes)) for m in conv.messages]
    if groups != sorted(groups):
        raise ValueError(f"{conv.id}: a session's messages must be contiguous")
    msgs = conv.messages
    return build_session_index(list(range(len(msgs))), [m.text for m in msgs],
                               [m.sender for m in msgs], [m.at for m in msgs], keyed,
                               own_vectors=own, groups=groups)


def _session_indexes(conv: Conv, own: FloatArray, keyed: FloatArray
                     ) -> list[tuple[list[int], SessionIndex]]:
    groups: dict[str, list[int]] = defaultdict(list)
    for i, m in enumerate(conv.messages):
        groups[m.session].append(i)
    out = []
    for positions in groups.values():
        msgs = [conv.messages[i] for i in positions]
        index = build_session_index(positions, [m.text for m in msgs], [m.sender for m in msgs],
                                    [m.at for m in msgs], keyed[positions],
                                    own_vectors=own[positions])
        out.append((positions, index))
    return out


def _keys(conv: Conv) -> tuple[list[str], list[str]]:
    own, keyed = [], []
    last: dict[str, int] = {}
    for i, m in enumerate(conv.messages):
        before = last.get(m.session)
        prev = conv.messages[before] if before is not None else None
        a, b = embedding_keys(m.text, m.sender, None if prev is None else prev.text,
                              None if prev is None else prev.sender)
        own.append(a)
        keyed.append(b)
        last[m.session] = i
    return own, keyed


def _fts_ranking(conv: Conv, db: sqlite3.Connection, query: str, k: int) -> list[int]:
    expr = fts_match_expression(query_terms(query))
    if not expr:
        return []
    rows = db.execute("SELECT pos FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?",
                      (bigram_text(expr), k)).fetchall()
    return [int(r[0]) for r in rows]


def _fts_table(conv: Conv) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(pos UNINDEXED, body, "
               "tokenize='porter unicode61')")
    db.executemany("INSERT INTO t VALUES (?, ?)",
                   [(i, bigram_text(f"{m.sender}: {m.text}"))
                    for i, m in enumerate(conv.messages)])
    return db


def _old_ranking(indexes: list[tuple[list[int], SessionIndex]], query: str,
                 qvec: FloatArray, mode: str, k: int) -> list[int]:
    found = []
    for _, index in indexes:
        found += rank_session(index, query, qvec, k=k, mode=mode)
    return [r.id for r in _merge(found, hybrid=mode == "hybrid")[:k]]


async def centre_of(convs: Sequence[Conv], cache: EmbedCache) -> FloatArray:
    """The mean of the messages' own-text vectors (no question or label is read), rounded as
    the shipped file keeps it: the direction every vector of the embedder shares, which the
    centred cosines take away."""
    total = np.zeros(cache.embedder.dim, dtype=np.float64)
    count = 0
    for conv in convs:
        own = await cache.embed(_keys(conv)[0])
        total += own.astype(np.float64).sum(axis=0)
        count += own.shape[0]
    cache.save()
    out: FloatArray = np.round(total / max(count, 1), 5).astype(np.float32)
    return out


async def prepare(convs: Sequence[Conv], cache: EmbedCache,
                  off_topic: dict[str, Sequence[str]], k: int = 50,
                  baselines: bool = True, old_pools: bool = False,
                  near: Callable[[Conv], dict[str, list[str]]] | None = None,
                  centre: FloatArray | None = None) -> list[Query]:
    """Every question's features and baseline rankings; ``off_topic`` maps "train"/"eval" to
    off-topic queries added to each conversation (those none of whose terms it holds);
    ``near`` gives a conversation's own near-topic queries by split (added as
    "near-train"/"near-eval"); ``centre`` is the mean vector of the centred cosines."""
    from _offtopic import off_topic_for

    out: list[Query] = []
    for ci, conv in enumerate(convs):
        own_keys, keyed_keys = _keys(conv)
        own = await cache.embed(own_keys)
        keyed = await cache.embed(keyed_keys)
        tenant = _tenant_index(conv, own, keyed)
        old_too = baselines and (conv.scope == "session" or old_pools)
        indexes = _session_indexes(conv, own, keyed) if old_too else []
        db = _fts_table(conv) if baselines else None
        keyed_texts = [f"{m.sender}: {m.text}" for m in conv.messages]
        queries = [Query(ci, conv.set_name, q.text, q.kind, q.evidence)
                   for q in conv.questions]
        absent = set(off_topic_for(keyed_texts))
        for split, texts in off_topic.items():
            queries += [Query(ci, conv.set_name, t, "off-topic", frozenset(), split)
                        for t in texts if t in absent]
        queries += [Query(ci, conv.set_name, t, "near-topic", frozenset(), f"near-{split}")
                    for split, texts in (near(conv) if near is not None else {}).items()
                    for t in texts]
        qvecs = await cache.embed([q.text for q in queries])
        for q, qvec in zip(queries, qvecs, strict=True):
            terms = query_terms_of(q.text)
            q.hybrid = session_features(tenant, terms, qvec, now=conv.now, centre=centre)
            q.semantic = session_features(tenant, terms, qvec, now=conv.now,
                                          semantic_only=True)
            if baselines and db is not None and not q.off_topic:
                q.baselines["BM25 (FTS5)"] = _fts_ranking(conv, db, q.text, k)
                cos = own @ (qvec / (np.linalg.norm(qvec) or 1.0))
                q.baselines["cosine"] = [int(i) for i in np.argsort(-cos, kind="stable")[:k]]
                if old_too:
                    q.baselines["old hybrid"] = _old_ranking(indexes, q.text, qvec, "hybrid",
                                                             k)
                    q.baselines["old semantic"] = _old_ranking(indexes, q.text, qvec,
                                                               "semantic", k)
            out.append(q)
        cache.save()
        await asyncio.sleep(0)
    return out
