"""Ranking with the learned ranker over a tenant's in-process index (:class:`TenantIndex`):
one session's messages, or every searched session's in one pass (pure).

The features are those a per-session index gives (:func:`session_features`): each message's
own evidence within its own session, and the scoped ones, which compare it with the best of
every message searched (``cos_gap``, ``cov_gap``) or weigh the query's words by how many of
them hold each (``cov_scope``, ``bm25_scope``), across sessions, not per session. A
tenant-wide search is one product and one feature matrix over the tenant's rows instead of a
loop over sessions, and ranks them all by one probability.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._features import QueryTerms, feature_matrix
from ._fusion import Ranked, rank_features
from ._ranker import LearnedRanker
from ._tenant import TenantIndex

__all__ = ["CANDIDATES", "CANDIDATE_ROWS", "rank_tenant"]

FloatArray = npt.NDArray[np.float32]

CANDIDATE_ROWS = 200_000
"""A search over more hot messages than this ranks the sessions of its candidates only
(:meth:`TenantIndex.candidate_scope`); below it, every message searched is ranked."""
CANDIDATES = 512
"""Candidates taken by the query's vector (and as many by its terms): this many, or 4 per hit
asked for when that is more."""


def rank_tenant(index: TenantIndex, scope: Sequence[str], query: QueryTerms,
                query_vector: FloatArray, ranker: LearnedRanker, *, k: int, now: int,
                since: int | None = None, skip: set[int] | None = None,
                hybrid: bool, min_probability: float | None = None,
                candidate_rows: int = CANDIDATE_ROWS,
                candidates: int = CANDIDATES) -> list[Ranked]:
    """The ``k`` most probably relevant hot messages of the sessions in ``scope``, best
    first (:func:`memstrata.search._fusion.rank_learned` over all of them at once).

    Hybrid search also admits messages not yet embedded; ``since`` keeps messages sent then
    or later, ``skip`` leaves out ids (the context window). Past ``candidate_rows`` messages
    only the sessions of the candidates are ranked (``candidates`` by the query's vector and
    as many by its terms; each message of those sessions has the features a search of the
    whole scope gives it, but for the scoped ones, which compare it with the best of those
    sessions and count the query's words among their messages: the closest message is among
    them, and nearly always one holding the most of the query's words; and the relative
    ones, which place a message of a conversation among the messages of those sessions'
    conversations): one product over every row, and features for those sessions only."""
    semantic = ranker.mode == "semantic"
    q = np.asarray(query_vector, dtype=np.float32).ravel()
    norm = float(np.linalg.norm(q))
    if (norm > 0.0 and index.size > candidate_rows
            and index.scope_rows(scope) > candidate_rows):
        scope = index.candidate_scope(scope, q / norm, query.terms,
                                      rows=max(candidates, 4 * k), since=since,
                                      vectors_only=semantic)
    selection = index.select(scope)
    if not selection.rows.shape[0]:
        return []
    if norm == 0.0:
        zeros = np.zeros(selection.rows.shape[0], dtype=np.float32)
        cosines = (zeros, zeros.copy())
    else:
        cosines = index.cosines(selection, q / norm)
    # One session's rows are in its order (rows are appended in id order): adjacency is
    # its links, as in a per-session index.
    alone = len(scope) == 1
    x = feature_matrix(own_terms=index.keyword(selection, query.terms, key=False),
                       key_terms=index.keyword(selection, query.terms, key=True),
                       info=selection.info, times=selection.times,
                       sender_codes=selection.sender_codes,
                       sender_names=index.sender_names(), query=query, own_vectors=None,
                       key_vectors=None, query_vector=q, now=now,
                       groups=None if alone else selection.groups,
                       semantic_only=semantic, links=None if alone else selection.links,
                       cosines=cosines, centre=ranker.centre, candidates_only=True,
                       sessions=index.groups(selection, alone=alone))
    eligible = selection.present.copy() if not hybrid else np.ones_like(selection.present)
    if since is not None:
        eligible &= selection.times >= since
    if skip:
        eligible &= ~np.isin(selection.ids, np.fromiter(skip, dtype=np.int64))

    def hubs(rows: npt.NDArray[np.intp]) -> tuple[FloatArray, FloatArray]:
        # The candidates' vectors' products with the centre (rows of the selection).
        assert ranker.centre is not None
        return index.cosines(dataclasses.replace(selection, rows=selection.rows[rows]),
                             ranker.centre)

    def own_vectors(rows: npt.NDArray[np.intp]) -> FloatArray:
        # The candidates' own-text vectors, for the feedback drawn from them.
        return index.own_vectors(selection.rows[rows])

    return rank_features(selection.ids, x, ranker, k=k, present=selection.present,
                         eligible=eligible, min_probability=min_probability, hubs=hubs,
                         own_vectors=own_vectors, query_vector=q)
