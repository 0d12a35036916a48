"""Same answers: every question of the ranking sets searched through the per-session
indexes (one index per session, one ranking per session, merged) and through the tenant index
kept write by write (one pass), side by side.

    python bench/recall_same.py [--sets locomo,zh-facts,...] [--cache DIR] [--k 10]

The default model's vectors come from the ranking bench's embedding cache (``--cache``,
outside the repository; texts missing from it are embedded with the local model). For each
set and mode it prints recall@5 and @10 by both paths (the share of questions with an
evidence message among the first k), and how many questions got the very same first k ids.
``--candidates N`` ranks, on the tenant index, only the sessions of N candidates per query, as
a search over more than ``CANDIDATE_ROWS`` messages does (the sets are far smaller, so a small
N stands for the same share of a large tenant).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np
from _rankdata import EmbedCache, _keys
from _sets import SETS, Conv, load_sets

from memstrata.providers import make_embedder
from memstrata.search._across import CANDIDATE_ROWS, CANDIDATES, rank_tenant
from memstrata.search._features import query_terms_of
from memstrata.search._fusion import Ranked, SessionIndex, build_session_index, rank_learned
from memstrata.search._ranker import ranker_for
from memstrata.search._searcher import _merge
from memstrata.search._tenant import TenantIndex

MODEL = "local:use-multilingual-v3"


def _sessions(conv: Conv, own: np.ndarray, keyed: np.ndarray) -> list[SessionIndex]:
    """One index per session, as the per-session path builds them."""
    out = []
    for name in dict.fromkeys(m.session for m in conv.messages):
        pos = [i for i, m in enumerate(conv.messages) if m.session == name]
        msgs = [conv.messages[i] for i in pos]
        out.append(build_session_index(pos, [m.text for m in msgs], [m.sender for m in msgs],
                                       [m.at for m in msgs], keyed[pos],
                                       own_vectors=own[pos]))
    return out


def _old(conv: Conv, indexes: list[SessionIndex], terms: object, q: np.ndarray, mode: str,
         k: int) -> list[int]:
    ranker = ranker_for(MODEL, mode)
    assert ranker is not None
    found: list[Ranked] = []
    for index in indexes:
        present = index.present
        assert present is not None
        eligible = present.copy() if mode == "semantic" else np.ones_like(present)
        found += rank_learned(index, terms, q, ranker, k=k, now=conv.now,  # type: ignore[arg-type]
                              eligible=eligible)
    return [r.id for r in _merge(found, hybrid=mode == "hybrid")[:k]]


def _new(conv: Conv, index: TenantIndex, scope: list[str], terms: object, q: np.ndarray,
         mode: str, k: int, candidates: int | None) -> list[int]:
    ranker = ranker_for(MODEL, mode)
    assert ranker is not None
    # With ``candidates``, every search takes the candidate stage (its row limit at 0).
    found = rank_tenant(index, scope, terms, q, ranker, k=k, now=conv.now,  # type: ignore[arg-type]
                        hybrid=mode == "hybrid",
                        candidate_rows=CANDIDATE_ROWS if candidates is None else 0,
                        candidates=CANDIDATES if candidates is None else candidates)
    return [r.id - 1 for r in _merge(found, hybrid=mode == "hybrid")[:k]]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(),
                                                        "memstrata-bench-cache"))
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--candidates", type=int, default=None,
                        help="the tenant index ranks only the sessions of this many "
                             "candidates (by the query's vector, and as many by its terms), "
                             "as a search past CANDIDATE_ROWS messages does")
    args = parser.parse_args()
    cache = EmbedCache(make_embedder(MODEL), Path(args.cache))
    convs = load_sets(tuple(args.sets.split(",")))
    hits: dict[tuple[str, str, str, int], int] = defaultdict(int)
    asked: dict[tuple[str, str], int] = defaultdict(int)
    same: dict[tuple[str, str], int] = defaultdict(int)
    for conv in convs:
        own_keys, keyed_keys = _keys(conv)
        own = await cache.embed(own_keys)
        keyed = await cache.embed(keyed_keys)
        order = sorted(range(len(conv.messages)), key=lambda i: (conv.messages[i].session, i))
        index = TenantIndex(own.shape[1])
        # Ids are positions + 1 (an id is never 0).
        index.append([conv.messages[i].session for i in order], [i + 1 for i in order],
                     [conv.messages[i].text for i in order],
                     [conv.messages[i].sender for i in order],
                     [conv.messages[i].at for i in order], own[order], keyed[order],
                     np.any(keyed[order] != 0, axis=1))
        scope = list(dict.fromkeys(m.session for m in conv.messages))
        indexes = _sessions(conv, own, keyed)
        qvecs = await cache.embed([q.text for q in conv.questions])
        for question, q in zip(conv.questions, qvecs, strict=True):
            if not question.evidence:
                continue
            terms = query_terms_of(question.text)
            for mode in ("hybrid", "semantic"):
                old = _old(conv, indexes, terms, q, mode, args.k)
                new = _new(conv, index, scope, terms, q, mode, args.k, args.candidates)
                key = (conv.set_name, mode)
                asked[key] += 1
                same[key] += old == new
                for k in (5, 10):
                    hits[conv.set_name, mode, "old", k] += bool(question.evidence & set(old[:k]))
                    hits[conv.set_name, mode, "new", k] += bool(question.evidence & set(new[:k]))
        cache.save()
    print(f"{'set':<16} {'mode':<9} {'questions':>9} {'R@5 old':>8} {'R@5 new':>8} "
          f"{'R@10 old':>9} {'R@10 new':>9} {'same top-k':>10}")
    for (name, mode), n in sorted(asked.items()):
        def r(path: str, k: int, name: str = name, mode: str = mode, n: int = n) -> float:
            return 100.0 * hits[name, mode, path, k] / n
        print(f"{name:<16} {mode:<9} {n:>9} {r('old', 5):>8.1f} {r('new', 5):>8.1f} "
              f"{r('old', 10):>9.1f} {r('new', 10):>9.1f} "
              f"{100.0 * same[name, mode] / n:>9.1f}%")


if __name__ == "__main__":
    asyncio.run(main())
