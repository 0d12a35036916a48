"""Recall: keyword, semantic and hybrid search, and the indexer that feeds the vectors.

The data flow: the indexer embeds queued messages and stores their vectors; the searcher
reads keyword hits and a session's hot vectors from the store, ranks and fuses them (pure
functions) and expands the hits with their neighbours.
"""

from ._cache import VectorCache
from ._follow import LiveIndexes
from ._fusion import vector_model
from ._indexer import Indexer
from ._modes import (
    MATCH_MODES,
    TIME_RANGES,
    check_exclude_window,
    check_limit,
    check_min_score,
    check_query,
    match_mode,
    since,
)
from ._searcher import CachedIndex, Searcher
from ._turns import IndexTurns

__all__ = [
    "MATCH_MODES",
    "TIME_RANGES",
    "CachedIndex",
    "IndexTurns",
    "Indexer",
    "LiveIndexes",
    "Searcher",
    "VectorCache",
    "check_exclude_window",
    "check_limit",
    "check_min_score",
    "check_query",
    "match_mode",
    "since",
    "vector_model",
]
