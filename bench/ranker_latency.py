"""Time one query over one session's index: the learned ranker beside the hand-tuned fusion.

    python bench/ranker_latency.py [--messages 100000] [--queries 200]

The index is built by the package from synthetic messages and random unit vectors of the
default model's size (512); the query vector is random too, so what is timed is the ranking
itself (features, the two cosine products, the model), on one BLAS thread as search runs it.
The query's embedding and the store's reads are not included (the same for both).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

from memstrata.search._features import query_terms_of
from memstrata.search._fusion import build_session_index, rank_learned, rank_session
from memstrata.search._ranker import LEARNED_FLOOR, ranker_for

WORDS = ("budget trip dinner train hotel museum report meeting deadline garden dog cat "
         "concert coffee paper bike river mountain 火車 旅館 會議 報告 預算 晚餐").split()
QUERIES = ("train to the mountain hotel", "預算 會議 報告", "coffee with the dog",
           "deadline for the paper", "concert after dinner")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    n = args.messages
    rng = np.random.default_rng(0)
    texts = [" ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(12)) + f" #{i}"
             for i in range(n)]

    def unit(rows: int) -> np.ndarray:
        v = rng.normal(size=(rows, 512)).astype(np.float32)
        out: np.ndarray = v / np.linalg.norm(v, axis=1, keepdims=True)
        return out

    start = time.perf_counter()
    index = build_session_index(list(range(n)), texts, ["Ann"] * n,
                                [10**18 + i * 10**9 for i in range(n)], unit(n),
                                own_vectors=unit(n))
    print(f"index of {n:,} messages built in {time.perf_counter() - start:.1f} s")
    ranker = ranker_for("local:use-multilingual-v3", "hybrid")
    assert ranker is not None
    qvecs = unit(len(QUERIES))
    times: dict[str, list[float]] = {"learned": [], "fusion": []}
    with threadpool_limits(1):
        for i in range(args.queries):
            q, qv = QUERIES[i % len(QUERIES)], qvecs[i % len(QUERIES)]
            for name in ("learned", "fusion") if i % 2 == 0 else ("fusion", "learned"):
                t0 = time.perf_counter()
                if name == "learned":
                    rank_learned(index, query_terms_of(q), qv, ranker, k=8, now=2 * 10**18,
                                 min_probability=LEARNED_FLOOR["hybrid"])
                else:
                    rank_session(index, q, qv, k=8, mode="hybrid", min_similarity=0.2)
                times[name].append((time.perf_counter() - t0) * 1000)
    print(f"{args.queries} hybrid queries, one BLAS thread, interleaved:")
    for name, t in times.items():
        t.sort()
        print(f"  {name:8} p50 {statistics.median(t):7.1f} ms   p95 "
              f"{t[int(0.95 * len(t)) - 1]:7.1f} ms")
    ratio = (sorted(times["learned"])[int(0.95 * len(times["learned"])) - 1]
             / sorted(times["fusion"])[int(0.95 * len(times["fusion"])) - 1])
    print(f"  learned / fusion p95: {ratio:.2f}x")


if __name__ == "__main__":
    main()
